/* SPDX-License-Identifier: BSD-3-Clause */
/* Functions shared by the files of lib/net; not for other layers. */
#ifndef RXD_NET_PRIV_H
#define RXD_NET_PRIV_H

#include "rxd_net.h"

#define RXD_ARP_REQUEST 1    /**< ARP opcodes (RFC 826) */
#define RXD_ARP_REPLY 2

/**
 * Allocate a frame with its Ethernet (and VLAN) header written: source MAC
 * ours, destination dmac (may be NULL: filled in by rxd_net_output), the
 * given ethertype.  *l3 points where the L3 header goes; len bytes of room
 * after it are reserved.
 */
struct rte_mbuf *rxd_net_frame(struct rxd_net_port *np, uint16_t ethertype,
			       const struct rte_ether_addr *dmac,
			       uint16_t len, uint8_t **l3);

/** Set the destination MAC of a frame built by rxd_net_frame(). */
void rxd_net_frame_set_dmac(struct rte_mbuf *m, const struct rte_ether_addr *mac);

/** Why rxd_neigh_lookup() is called: what it may create or reuse. */
enum rxd_neigh_want {
	RXD_NEIGH_FIND,   /**< an existing entry only */
	RXD_NEIGH_LEARN,  /**< a peer asked for us: a new entry in a free or
			   *   failed slot, never at another entry's cost */
	RXD_NEIGH_NEED,   /**< rxd sends to ip: may also reuse an entry that
			   *   was only learned and holds nothing */
};

/**
 * Find the entry of ip, or make one as @p want allows (a new entry is
 * FAILED: the caller starts resolution or confirms it).  An entry that rxd
 * needs stops being evictable.  NULL if there is none and no room.
 */
/** The entry of ip, or NULL; changes nothing (other engines read). */
const struct rxd_neigh *rxd_neigh_peek(const struct rxd_net_port *np,
				       const uint8_t ip[RXD_GID_LEN]);

struct rxd_neigh *rxd_neigh_lookup(struct rxd_net_port *np,
				   const uint8_t ip[RXD_GID_LEN],
				   enum rxd_neigh_want want);

/** A peer told us its MAC: mark reachable and send what was held. */
void rxd_neigh_confirm(struct rxd_net_port *np, struct rxd_neigh *n,
		       const struct rte_ether_addr *mac);

/** Ask for the MAC of ip (ARP request or neighbour solicitation). */
void rxd_neigh_solicit(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN],
		       const struct rte_ether_addr *unicast);

/** Ask for the MAC of an IPv4 address; unicast NULL means broadcast. */
void rxd_arp_request(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN],
		     const struct rte_ether_addr *unicast);

/** Send an ARP probe for ip (sender IP 0.0.0.0, RFC 5227). */
void rxd_arp_probe(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN]);

/** Start probing and announcing the port's IPv4 addresses. */
void rxd_acd_start(struct rxd_net_port *np, uint64_t now);

/** Send the probes and announcements that are due. */
void rxd_acd_timer(struct rxd_net_port *np, uint64_t now);

/**
 * Whether an ARP frame (op, sender MAC and IP, target IP) claims one of
 * our IPv4 addresses from another MAC, or probes for one while we probe.
 * If so it is counted, reported and, when due, defended against; the
 * caller drops it.
 */
bool rxd_acd_conflict(struct rxd_net_port *np, uint16_t op,
		      const struct rte_ether_addr *sha,
		      const uint8_t sip[RXD_GID_LEN],
		      const uint8_t tip[RXD_GID_LEN]);

/** Handle an ARP frame; consumes m. */
void rxd_arp_input(struct rxd_net_port *np, struct rte_mbuf *m,
		   const struct rxd_pkt *pkt);

/** Ask for the MAC of an IPv6 address (solicited-node multicast if NULL). */
void rxd_nd_solicit(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN],
		    const struct rte_ether_addr *unicast);

/** Send an unsolicited neighbour advertisement for gid to all nodes. */
void rxd_nd_advertise(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN]);

/** Handle an ICMPv4 frame; consumes m. */
void rxd_icmp4_input(struct rxd_net_port *np, struct rte_mbuf *m,
		     const struct rxd_pkt *pkt);

/** Handle an ICMPv6 frame (echo and neighbour discovery); consumes m. */
void rxd_icmp6_input(struct rxd_net_port *np, struct rte_mbuf *m,
		     const struct rxd_pkt *pkt);

/** Handle a neighbour solicitation or advertisement (icmp, len bytes). */
void rxd_nd_input(struct rxd_net_port *np, const struct rxd_pkt *pkt,
		  const uint8_t *icmp, uint32_t len);

/** Write an IPv6 header (hop limit, next header 58) at ip. */
void rxd_ipv6_hdr(uint8_t *ip, const uint8_t src[RXD_GID_LEN],
		  const uint8_t dst[RXD_GID_LEN], uint16_t plen, uint8_t hops);

/** Write an IPv4 header (protocol, checksum) at ip. */
void rxd_ipv4_hdr(struct rxd_net_port *np, uint8_t *ip,
		  const uint8_t src[RXD_GID_LEN],
		  const uint8_t dst[RXD_GID_LEN], uint8_t proto, uint16_t plen);

/** ICMPv6 checksum of len bytes at icmp between src and dst. */
uint16_t rxd_icmp6_csum(const uint8_t *ip6, const uint8_t *icmp, uint32_t len);

/** What an IGMP or MLD report says about a group. */
enum rxd_group_record {
	RXD_GROUP_CURRENT,  /**< answer to a query: member (any source) */
	RXD_GROUP_JOIN,     /**< state change: now a member */
	RXD_GROUP_LEAVE,    /**< state change: no longer a member */
};

/**
 * Send an IGMP report (v3, or v2 after a v2 query) or leave about an
 * IPv4-mapped group.  @return false without an IPv4 address or an mbuf.
 */
bool rxd_igmp_send(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN],
		   enum rxd_group_record r);

/**
 * Send an MLD report (v2, or v1 after a v1 query) or done about an IPv6
 * group.  @return false without an mbuf.
 */
bool rxd_mld_send(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN],
		  enum rxd_group_record r);

/** One IGMP or MLD message type: its least length and what rxd does. */
struct rxd_group_msg {
	uint8_t type;
	uint8_t min_len;
	/** @return false when the message is malformed */
	bool (*handle)(struct rxd_net_port *np, const uint8_t *msg,
		       uint32_t len);
};

/** Another host's report, leave or done: counted, never answered. */
bool rxd_group_msg_ignore(struct rxd_net_port *np, const uint8_t *msg,
			  uint32_t len);

/** The entry of a message table for type, or NULL. */
const struct rxd_group_msg *rxd_group_msg_find(const struct rxd_group_msg *t,
					       unsigned int n, uint8_t type);

/** Handle an IGMP frame; consumes m. */
void rxd_igmp_input(struct rxd_net_port *np, struct rte_mbuf *m,
		    const struct rxd_pkt *pkt);

/** Handle an MLD message (icmp, len bytes, checksum checked). */
void rxd_mld_input(struct rxd_net_port *np, const struct rxd_pkt *pkt,
		   const uint8_t *icmp, uint32_t len);

/** True if an ICMPv6 type is an MLD message. */
bool rxd_mld_type(uint8_t type);

/**
 * A query for one group (NULL: every group of the family) answered within
 * max_ms: schedule the reports of the groups joined.
 */
void rxd_group_query(struct rxd_net_port *np, const uint8_t *group, bool v4,
		     uint32_t max_ms);

/** The link came up: report every group joined, as on a join. */
void rxd_group_announce(struct rxd_net_port *np);

/** Send the reports that are due. */
void rxd_group_timer(struct rxd_net_port *np, uint64_t now);

#endif /* RXD_NET_PRIV_H */
