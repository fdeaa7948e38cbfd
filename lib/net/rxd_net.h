/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net: rxd as an IP host on one port.  Owns the port's addresses and
 * GID table, next-hop selection, the neighbour cache (ARP for IPv4, neighbour
 * discovery for IPv6, EUI-64 for link-local GIDs), ICMP/ICMPv6 echo,
 * holding frames while their next hop is being resolved, and the multicast
 * groups the port has joined (IGMP and MLD reports and queries).
 *
 * Runs on the engine lcore that owns the port; frames leave through the
 * transmit callback given at init (this layer never touches rte_eth_*).
 */
#ifndef RXD_NET_H
#define RXD_NET_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "rxd_config.h"
#include "rxd_net_hint.h"
#include "rxd_wire.h"

#define RXD_MAX_GIDS 16
#define RXD_NEIGH_SLOTS 256        /**< power of two */
#define RXD_NEIGH_PENDING 16       /**< frames held per unresolved peer */
#define RXD_NEIGH_TRIES 5          /**< requests before giving up */
#define RXD_NEIGH_RETRY_MS 500
#define RXD_NEIGH_REACHABLE_S 60   /**< then re-confirmed with a probe */
#define RXD_NET_GROUPS 64          /**< multicast groups a port joins */
#define RXD_MCAST_REPEAT_MS 1000   /**< unsolicited report repeated after */

/* RFC 5227 section 1.1, with PROBE_WAIT as the unit (arp_probe_ms) */
#define RXD_ACD_PROBE_NUM 3        /**< probes, PROBE_MIN..PROBE_MAX apart */
#define RXD_ACD_ANNOUNCE_NUM 2     /**< announcements, ANNOUNCE_INTERVAL apart */
#define RXD_ACD_DEFEND_S 10        /**< DEFEND_INTERVAL */
#define RXD_ACD_LOG_S 60           /**< one conflict message per this */

/** Host-networking counters of one port. */
struct rxd_net_stats {
	uint64_t arp_rx, arp_tx;         /**< every ARP frame in, out */
	uint64_t icmp_rx, icmp6_rx;      /**< every ICMP, ICMPv6 frame in */
	uint64_t arp_requests_answered;
	uint64_t neigh_confirmed;        /**< ARP replies, NAs that gave the
					  *   MAC of a peer in the cache */
	uint64_t neigh_ignored;          /**< other ARP opcodes; replies and
					  *   NAs about peers not in the
					  *   cache (never learnt from) */
	uint64_t neigh_evicted;          /**< learned entries given up for
					  *   peers rxd needs */
	uint64_t nd_rx, nd_tx;
	uint64_t nd_solicits_answered;
	uint64_t echo_requests_answered; /**< ICMP and ICMPv6 */
	uint64_t echo_replies_rx;
	uint64_t not_for_us;             /**< other MAC, IP or VLAN */
	uint64_t reply_failed;           /**< no mbuf for an answer */
	/* Each ARP, ICMP and ICMPv6 frame in (arp_rx, icmp_rx, icmp6_rx) is
	 * counted once more, as what became of it: arp_requests_answered,
	 * nd_solicits_answered, echo_requests_answered, echo_replies_rx,
	 * neigh_confirmed, neigh_ignored, not_for_us, arp_conflicts,
	 * other_dropped, malformed or reply_failed. */
	uint64_t arp_conflicts;          /**< ARP frames from another MAC
					  *   claiming one of our addresses
					  *   (or probing for it while we
					  *   do): never learnt or answered */
	uint64_t other_dropped;          /**< protocols rxd does not serve */
	uint64_t malformed;
	uint64_t resolve_failed;         /**< peers that never answered */
	uint64_t held_dropped;           /**< frames dropped while resolving */
	uint64_t no_route;
	/* multicast groups (IGMP, MLD) */
	uint64_t igmp_rx;                /**< every IGMP frame in */
	uint64_t mld_rx;                 /**< MLD messages (of icmp6_rx) */
	uint64_t group_queries;          /**< IGMP/MLD queries taken (each
					  *   also counted as what it was) */
	uint64_t group_ignored;          /**< other hosts' reports, leaves;
					  *   queries for groups not joined */
	uint64_t group_reports_tx;       /**< IGMP/MLD reports sent */
};

/** A multicast group the port belongs to (IPv4-mapped or IPv6 GID). */
struct rxd_net_group {
	uint8_t gid[RXD_GID_LEN];
	bool used;
	uint8_t repeats;               /**< unsolicited reports still due */
	uint64_t report_at;            /**< TSC of the next report, 0 none */
};

enum rxd_neigh_state {
	RXD_NEIGH_FREE = 0,
	RXD_NEIGH_INCOMPLETE,
	RXD_NEIGH_REACHABLE,
	RXD_NEIGH_PROBE,      /**< old but usable, being re-confirmed */
	RXD_NEIGH_FAILED,
};

/** One neighbour cache entry. */
struct rxd_neigh {
	uint8_t ip[RXD_GID_LEN];    /**< IPv4-mapped or IPv6 */
	struct rte_ether_addr mac;
	uint8_t state;              /**< enum rxd_neigh_state */
	bool learned;               /**< made because the peer asked for us;
				     *   rxd has not needed it (evictable) */
	uint8_t tries;
	uint8_t n_held;
	uint64_t deadline;          /**< TSC of the next retry or expiry */
	struct rte_mbuf *held[RXD_NEIGH_PENDING];
};

/** One configured address with its prefix in GID terms (v4: +96). */
struct rxd_net_addr {
	uint8_t gid[RXD_GID_LEN];
	uint8_t prefix;
};

/** Where RFC 5227 address conflict detection is for the IPv4 addresses. */
enum rxd_acd_phase {
	RXD_ACD_IDLE = 0,     /**< nothing to send */
	RXD_ACD_PROBE,        /**< sending ARP probes (sender IP 0.0.0.0) */
	RXD_ACD_ANNOUNCE,     /**< sending gratuitous ARP announcements */
};

/**
 * Address conflict detection of a port.  rxd uses its addresses while it
 * probes (its peers start at once); a conflict is reported, not resolved.
 */
struct rxd_net_acd {
	uint32_t probe_ms;             /**< PROBE_WAIT; 0 = announce at once */
	uint8_t phase;                 /**< enum rxd_acd_phase */
	uint8_t left;                  /**< probes or announcements to send */
	uint64_t deadline;             /**< TSC of the next one */
	uint64_t last_defend;          /**< TSC of the last defence, or 0 */
	uint64_t last_log;             /**< TSC of the last message, or 0 */
	bool conflict;                 /**< one was seen (fields below) */
	bool while_probing;            /**< ... and it stopped the probes */
	struct rte_ether_addr conflict_mac;
	uint8_t conflict_ip[4];
};

/** Called to transmit a complete Ethernet frame. */
typedef void (*rxd_net_tx_fn)(void *ctx, struct rte_mbuf *m);

/** Host state of one port. */
struct rxd_net_port {
	struct rte_mempool *pool;
	struct rte_ether_addr mac;
	uint16_t vlan;                 /**< 0 = untagged */
	struct rxd_net_addr addrs[RXD_MAX_ADDRS];
	unsigned int n_addrs;
	uint8_t gw4[RXD_GID_LEN], gw6[RXD_GID_LEN];
	bool has_gw4, has_gw6;
	uint8_t gids[RXD_MAX_GIDS][RXD_GID_LEN];
	unsigned int n_gids;
	struct rxd_neigh neigh[RXD_NEIGH_SLOTS];
	uint32_t neigh_gen;            /**< moves when a MAC may have changed */
	rxd_net_tx_fn tx;
	void *tx_ctx;
	uint64_t hz;                   /**< TSC ticks per second */
	uint16_t ip_id;
	struct rxd_net_group groups[RXD_NET_GROUPS];
	bool igmp_v2_querier;          /**< answer in IGMPv2 (RFC 3376 7.2) */
	bool mld_v1_querier;           /**< answer in MLDv1 (RFC 3810 8.2) */
	struct rxd_net_acd acd;
	struct rxd_net_stats stats;
};

/**
 * Initialise the host state of a port from its configuration and build its
 * GID table: index 0 the link-local fe80:: GID from the MAC (EUI-64), then
 * one RoCE v2 GID per configured address, in configuration order.
 */
void rxd_net_port_init(struct rxd_net_port *np, const struct rxd_conf_port *c,
		       const struct rte_ether_addr *mac,
		       struct rte_mempool *pool, rxd_net_tx_fn tx, void *ctx);

/** Free every held frame. */
void rxd_net_port_fini(struct rxd_net_port *np);

/**
 * Announce our addresses: an unsolicited NA for each IPv6 one at once;
 * for the IPv4 ones RFC 5227's sequence (ARP probes, then gratuitous ARP
 * announcements) run by rxd_net_timer(), or at once when arp_probe_ms is 0.
 */
void rxd_net_announce(struct rxd_net_port *np);

/** True if the GID is one of this port's (a packet for us). */
bool rxd_net_is_local(const struct rxd_net_port *np,
		      const uint8_t gid[RXD_GID_LEN]);

/**
 * True if a frame's L2 header is for us: our MAC or a group address, and
 * the port's VLAN (or no tag when the port has none).
 */
bool rxd_net_l2_accept(const struct rxd_net_port *np,
		       const struct rxd_pkt *pkt);

/** Handle an ARP, ICMP or ICMPv6 frame; consumes m. */
void rxd_net_input(struct rxd_net_port *np, struct rte_mbuf *m,
		   const struct rxd_pkt *pkt);

/**
 * Send a frame whose Ethernet header is in place except the destination
 * MAC, towards the IP (GID) dgid: on-link or through the gateway.  The frame
 * is sent now, or held until the next hop resolves (and then sent or
 * dropped).  Consumes m.
 *
 * With a hint (one peer's, may be NULL) noted in the same table
 * generation, the frame takes the hint's MAC without a lookup; a lookup
 * that finds the MAC notes it in the hint.
 *
 * @return 0 (sent or held), -EHOSTUNREACH (no route or resolution failed
 *   earlier), -ENOBUFS (too many frames held for that peer).
 */
int rxd_net_output(struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN],
		   struct rte_mbuf *m, struct rxd_net_hint *hint);

/**
 * Look up (and if needed start resolving) the MAC of the next hop to dgid.
 *
 * @return 0 with mac set, -EAGAIN while resolving, -EHOSTUNREACH.
 */
int rxd_net_resolve(struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN],
		    struct rte_ether_addr *mac);

/**
 * The MAC of the next hop to dgid if already known, changing nothing: for
 * the other engines of a port, which share its tables read-only.
 *
 * @return 0 with mac set, -EAGAIN when not known (yet), -EHOSTUNREACH
 * when dgid has no route or its resolution failed lately (as
 * rxd_net_resolve() says).
 */
int rxd_net_peek(const struct rxd_net_port *np,
		 const uint8_t dgid[RXD_GID_LEN], struct rte_ether_addr *mac);

/**
 * The source GID to use towards dgid: the port's address of the same family
 * whose prefix contains dgid, else the first of that family.
 *
 * @return 0, or -EHOSTUNREACH if the port has no address of that family.
 */
int rxd_net_source(const struct rxd_net_port *np,
		   const uint8_t dgid[RXD_GID_LEN], uint8_t sgid[RXD_GID_LEN]);

/** Send an ICMP (IPv4-mapped dgid) or ICMPv6 echo request. */
int rxd_net_ping(struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN],
		 uint16_t id, uint16_t seq, uint16_t data_len);

/**
 * The Ethernet group address of a multicast GID, as RoCEv2 and IP map it:
 * IPv4 01:00:5e and the low 23 bits, IPv6 33:33 and the low 32 bits.
 */
void rxd_net_mcast_mac(const uint8_t gid[RXD_GID_LEN],
		       struct rte_ether_addr *mac);

/**
 * Join a multicast group: the port reports it (IGMP for an IPv4-mapped
 * GID, MLD for IPv6) at once and once more RXD_MCAST_REPEAT_MS later, and
 * answers queries for it.
 *
 * @return 0, -EINVAL (not a multicast GID), -EEXIST (joined already),
 *   -ENOSPC (RXD_NET_GROUPS joined).
 */
int rxd_net_join(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN]);

/** Leave a group (a leave or done message is sent). @return 0, -ENOENT. */
int rxd_net_leave(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN]);

/** True if the port has joined the group. */
bool rxd_net_is_member(const struct rxd_net_port *np,
		       const uint8_t gid[RXD_GID_LEN]);

/** Retries, expiry and ageing; call about every millisecond. */
void rxd_net_timer(struct rxd_net_port *np, uint64_t now);


#endif /* RXD_NET_H */
