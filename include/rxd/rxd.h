/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rxd's own API: start and stop the stack, inspect ports, GIDs and
 * neighbours, read counters, inject faults and capture frames.  The RDMA
 * API itself is the standard verbs API (<infiniband/verbs.h>).
 *
 * A DPDK-native program calls rte_eal_init() and then rxd_start(); the
 * engines run on the EAL worker lcores (or, with none, inside rxd_poll()).
 */
#ifndef RXD_H
#define RXD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rxd_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Start rxd on every DPDK port with the configuration built from defaults,
 * the RXD_CONFIG file or --config, RXD_* environment variables and rxd's
 * options in argv[0..*argc) (the part after EAL's "--"; argv[0] is the
 * program name), in that order of precedence.  rxd's options are removed:
 * on return argv holds only the application's own.
 *
 * @return 0, or -1 with errno set and the reason in rxd_last_error().
 */
int rxd_start(int *argc, char **argv);

/** Start rxd with a complete configuration. Same return as rxd_start(). */
int rxd_start_conf(const struct rxd_conf *conf);

/** Stop the engines and release every port. */
void rxd_stop(void);

/** True between a successful rxd_start() and rxd_stop(). */
bool rxd_running(void);

/** The configuration rxd runs with (valid while rxd_running()). */
const struct rxd_conf *rxd_config(void);

/** The message of the last failed call of this API (thread-local). */
const char *rxd_last_error(void);

/**
 * Progress for programs without engine lcores: run one pass of every
 * engine that has no lcore of its own.  @return work done (0 = idle).
 */
unsigned int rxd_poll(void);

/**
 * Wait until every engine has finished the loop pass it was in, so that an
 * object unpublished before the call is no longer used by any engine.
 */
void rxd_sync_engines(void);

/**
 * True when some engine has no lcore of its own, so the application's
 * threads drive it through rxd_poll() (ibv_poll_cq does so when idle).
 */
bool rxd_inline_progress(void);

/** Called on an engine lcore when a port's link goes up or down. */
typedef void (*rxd_port_event_fn)(unsigned int port, bool up);

/** Install the (single) port event handler; NULL removes it. */
void rxd_set_port_event_handler(rxd_port_event_fn fn);

/** Number of rxd ports (rxd0, rxd1, ...). */
unsigned int rxd_port_count(void);

/** What rxd_port_info() reports. */
struct rxd_port_info {
	char name[64];        /**< DPDK device name */
	char driver[32];
	uint16_t dpdk_port;
	uint8_t mac[6];
	uint16_t mtu;         /**< Ethernet MTU */
	uint16_t ib_mtu;      /**< active IB MTU: 256..4096 fitting mtu - 80 */
	bool link_up;
	uint32_t link_speed;  /**< Mbit/s; UINT32_MAX unknown, 0 none */
	char offloads[128];
	unsigned int n_gids;
	unsigned int engine;  /**< engine serving the port */
	uint16_t rx_queues;   /**< DPDK receive queues, all polled */
	uint16_t tx_queues;   /**< DPDK transmit queues (rxd sends on 0) */
	uint64_t arp_conflicts;  /**< ARP frames claiming our IPv4 address */
	uint8_t conflict_mac[6]; /**< the last claimant (arp_conflicts > 0) */
	uint8_t conflict_ip[4];  /**< the address it claimed */
	bool conflict_probing;   /**< it came while rxd probed (RFC 5227) */
	bool probing;            /**< rxd is still probing or announcing */
	/** How the peers' frames reach the engine owning their QP with
	 *  several engines on the port: "flow" (an rte_flow rule per
	 *  connection), "reta" (RSS's RETA), "none" (the hand-off). */
	char steering[8];
	uint64_t steered;         /**< connections steered so far */
	uint64_t steered_active;  /**< connections steered now */
	uint64_t steer_collisions; /**< left to the hand-off: RETA entry
				    *   taken by another engine's QP */
	uint64_t steer_failed;    /**< left to the hand-off: refused */
};

/** Describe port @p port. @return 0 or -1 (errno ENODEV). */
int rxd_port_info(unsigned int port, struct rxd_port_info *info);

/** Number of engines (0 when rxd is not running). */
unsigned int rxd_engine_count(void);

/** What rxd_engine_info() reports of one engine. */
struct rxd_engine_info {
	unsigned int lcore;       /**< the lcore running it */
	bool inline_mode;         /**< no lcore: rxd_poll() runs it */
	unsigned int n_ports;     /**< port shares it serves */
	unsigned int qps;         /**< QPs it owns */
	uint64_t busy_cycles;     /**< TSC cycles of loop passes with work */
	uint64_t idle_cycles;     /**< TSC cycles of the others (back-off
				   *   included) */
	uint64_t handoff_sent;    /**< frames handed to another engine */
	uint64_t handoff_received;/**< frames other engines handed here */
	uint64_t handoff_dropped; /**< hand-offs lost to a full ring */
	uint64_t loops, busy_loops;
	uint64_t roce_rx;         /**< RoCE frames its QPs took (every port
				   *   it serves; hand-offs to it included) */
};

/** Describe engine @p engine. @return 0 or -1 (errno ENODEV). */
int rxd_engine_info(unsigned int engine, struct rxd_engine_info *info);

/**
 * The QPNs engine @p engine owns, on port @p port, up to @p max of them
 * in @p qpns (ascending).  @return how many it owns, or -1 (ENODEV).
 */
int rxd_engine_qps(unsigned int engine, unsigned int port, uint32_t *qpns,
		   unsigned int max);

/**
 * Read entry @p index of the port's GID table: index 0 is the link-local
 * fe80:: GID (EUI-64 of the MAC), then one RoCE v2 GID per configured
 * address (IPv4 as ::ffff:a.b.c.d).
 *
 * @return 0, or -1 with errno EINVAL (no such entry) or ENODEV.
 */
int rxd_query_gid(unsigned int port, unsigned int index, uint8_t gid[16]);

/**
 * Resolve the MAC of the next hop to @p gid, waiting up to timeout_ms.
 * @return 0, or -1 with errno EHOSTUNREACH, ETIMEDOUT or ENODEV.
 */
int rxd_resolve(unsigned int port, const uint8_t gid[16], uint8_t mac[6],
		unsigned int timeout_ms);

/** One neighbour cache entry, as rxd_neigh_list() reports it. */
struct rxd_neigh_info {
	uint8_t ip[16];
	uint8_t mac[6];
	const char *state;   /**< "incomplete", "reachable", "probe", "failed" */
	unsigned int held;   /**< frames waiting for this neighbour */
};

/** Copy up to @p max neighbour entries. @return the count, or -1. */
int rxd_neigh_list(unsigned int port, struct rxd_neigh_info *out,
		   unsigned int max);

/**
 * Send @p count ICMP/ICMPv6 echo requests to @p gid and wait up to
 * timeout_ms for the replies. @return replies received, or -1.
 */
int rxd_ping(unsigned int port, const uint8_t gid[16], unsigned int count,
	     unsigned int timeout_ms);

/** Counters of one port (DESIGN.md section 8). */
struct rxd_port_counters {
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes, tx_full;
	uint64_t roce_rx, roce_not_local, roce_unknown_qp, roce_bad_peer;
	uint64_t qkey_viol;        /**< UD Q_Key mismatches (qkey_viol_cntr) */
	uint64_t other_dropped;
	uint64_t wire_err[32];     /**< by enum rxd_wire_err */
	uint64_t arp_rx, arp_tx, nd_rx, nd_tx;
	uint64_t echo_answered, echo_replies;
	uint64_t not_for_us, malformed, resolve_failed, held_dropped, no_route;
	uint64_t fault_rx_dropped, fault_rx_duplicated, fault_rx_reordered,
		 fault_rx_corrupted, fault_rx_cut, fault_rx_opcode;
	uint64_t fault_tx_dropped, fault_tx_duplicated, fault_tx_reordered,
		 fault_tx_corrupted, fault_tx_cut, fault_tx_opcode;
	uint64_t capture_written, capture_lost;
	uint64_t icmp_rx, icmp6_rx;  /**< every ICMP, ICMPv6 frame in */
	uint64_t arp_answered, nd_answered;
	uint64_t neigh_confirmed;  /**< ARP replies, NAs for cached peers */
	uint64_t neigh_ignored;    /**< other ARP opcodes; replies and NAs
				    *   about peers not cached (not learnt) */
	uint64_t neigh_evicted;    /**< learnt entries given up for peers
				    *   rxd needs */
	uint64_t reply_failed;     /**< ARP/ND/echo answers with no mbuf */
	uint64_t net_other_dropped; /**< ICMP types not served (part of
				     *   other_dropped) */
	uint64_t mbufs_in_use;     /**< of the port's pool, now */
	uint64_t roce_mcast_no_member; /**< UD frames to a group no QP of
					*   the port is attached to */
	uint64_t roce_ce;          /**< CE-marked RoCE frames received (any
				    *   outcome: also counted where they end) */
	uint64_t igmp_rx;          /**< every IGMP frame in */
	uint64_t mld_rx;           /**< MLD messages (of icmp6_rx) */
	uint64_t group_queries;    /**< IGMP/MLD queries taken */
	uint64_t group_ignored;    /**< other hosts' reports and leaves */
	uint64_t group_reports_tx; /**< IGMP/MLD reports and leaves sent */
	uint64_t arp_conflicts;    /**< ARP frames from another MAC claiming
				    *   our address: not learnt, not answered */
	uint64_t roce_bad_cnp;     /**< CNPs refused: to a UD QP or one not
				    *   receiving, without BECN, or with
				    *   another P_Key */
	uint64_t burst_faults;     /**< bursts ended by a memory fault while
				    *   the link was down: a memif peer
				    *   unmapped the rings mid-burst */
	uint64_t roce_rx_fast;     /**< of roce_rx: the next MIDDLE/LAST of
				    *   an RC message, a SEND/WRITE ONLY or
				    *   a plain ACK, taken without the
				    *   full parse (receive fast path) */
	uint64_t tx_waited;        /**< QP frames that waited for their next
				    *   hop's MAC (sent in order once it was
				    *   known, or counted in held_dropped) */
};

/*
 * Every frame a port receives (rx_pkts, before fault injection) is counted
 * once more by what became of it: roce_rx (a QP took it), a wire_err[]
 * reason, roce_not_local, roce_unknown_qp, roce_bad_peer, roce_bad_cnp,
 * roce_mcast_no_member, other_dropped less net_other_dropped, or arp_rx,
 * icmp_rx, icmp6_rx, igmp_rx.  Each of the last four is counted once more
 * as arp_answered, nd_answered, echo_answered, echo_replies,
 * neigh_confirmed, neigh_ignored, not_for_us, arp_conflicts,
 * net_other_dropped, malformed, reply_failed, group_queries or
 * group_ignored.
 */

/** Read the counters of a port. @return 0 or -1 (errno ENODEV). */
int rxd_port_counters(unsigned int port, struct rxd_port_counters *c);

/** Transport counters of one QP (DESIGN.md section 8). */
struct rxd_qp_stats {
	uint64_t tx_pkts, rx_pkts;
	uint64_t retransmits;      /**< go-back-N rewinds */
	uint64_t timeouts;         /**< retransmit timer expiries */
	uint64_t rnr_waits;        /**< RNR NAKs obeyed */
	uint64_t naks_rx[5];       /**< by NAK code: PSN sequence .. RD */
	uint64_t naks_tx[5];
	uint64_t rnr_naks_tx;
	uint64_t duplicates;       /**< duplicate requests or responses */
	uint64_t out_of_sequence;  /**< requests ahead of the expected PSN */
	uint64_t bad_addr;         /**< wrong service or P_Key */
	uint64_t dropped;          /**< UC/UD messages dropped (gap, no WQE) */
	uint64_t too_big;          /**< frames larger than the port carries
				    *   (path MTU above the link): lost */
	uint64_t acks_tx;          /**< ACK/NAK packets sent (not responses) */
	uint64_t acks_coalesced;   /**< AckReqs answered by a later ACK */
	uint64_t ce_rx;            /**< CE-marked frames received */
	uint64_t cnp_tx;           /**< CNPs sent (at most one per
				    *   cnp_interval_us) */
	uint64_t cnp_rx;           /**< CNPs received */
	uint64_t rate_cuts;        /**< rate cuts of the port's cc law */
	uint64_t rate_kbps;        /**< the rate the law paces at now, kbit/s
				    *   (line rate at the start); 0 = cc off */
	uint64_t keepalives;       /**< keepalive probes sent to a silent
				    *   peer (port key keepalive_ms) */
	uint64_t rtt_us;           /**< RC: the last round trip sampled, us
				    *   (a new frame to the ACK or response
				    *   covering it); 0 = none yet */
	uint64_t rtt_samples;      /**< round trips sampled */
};

/**
 * Read the transport counters of QP @p qpn on rxd port @p port.
 * @return 0 or -1 (errno ENODEV, ENOENT).
 */
int rxd_qp_stats(unsigned int port, uint32_t qpn, struct rxd_qp_stats *s);

/**
 * Memory of one QP, by where it comes from, as rxd_qp_memory() computes it
 * from rxd's own structures.  Heap parts come from malloc, rings from DPDK
 * memory (rte_ring).  A CQ is not part of a QP: cqe is its per-entry cost.
 */
struct rxd_qp_memory {
	size_t verbs_qp;       /**< the verbs QP object (heap) */
	size_t transport;      /**< transport state without its arrays (heap) */
	size_t send_window;    /**< requester's copies of the posted WQEs (heap) */
	size_t responder;      /**< READ/atomic responder resources (heap) */
	size_t sq_ring;        /**< send queue ring (DPDK memory) */
	size_t rq_ring;        /**< receive queue ring (DPDK memory) */
	size_t wr_batch;       /**< ibv_wr_* staging, extended QPs only (heap) */
	size_t total;          /**< sum of the above */
	unsigned int sq_slots; /**< send ring slots: power of 2 above the depth */
	unsigned int rq_slots; /**< receive ring slots */
	unsigned int responder_entries;
	size_t send_wqe;       /**< one send ring slot (and wr_batch entry) */
	size_t window_entry;   /**< one send window entry */
	size_t recv_wqe;       /**< one receive ring slot */
	size_t cqe;            /**< one CQ ring slot */
};

/**
 * Compute the memory of a QP of type @p qp_type (an enum ibv_qp_type:
 * IBV_QPT_RC, IBV_QPT_UC or IBV_QPT_UD) created with these queue depths
 * (no QP is created): only RC keeps a send window entry per send WR and
 * responder resources.  @p extended: created by ibv_create_qp_ex() with
 * send_ops_flags (the ibv_wr_* API).  Without an SRQ.
 */
void rxd_qp_memory(int qp_type, uint32_t max_send_wr, uint32_t max_recv_wr,
		   bool extended, struct rxd_qp_memory *m);

/** Name of wire error @p i, for printing rxd_port_counters.wire_err. */
const char *rxd_wire_err_name(unsigned int i);

/** Direction of a fault injector. */
enum rxd_dir { RXD_DIR_RX = 0, RXD_DIR_TX = 1 };

/**
 * Replace the fault injection of one direction of a port at run time.
 * @return 0 or -1 (errno ENODEV, EINVAL).
 */
int rxd_fault_set(unsigned int port, enum rxd_dir dir,
		  const struct rxd_conf_fault *fault, uint64_t seed);

/** Start writing every frame of the port to a pcapng file. */
int rxd_capture_start(unsigned int port, const char *path);

/** Stop the port's capture and close the file. */
int rxd_capture_stop(unsigned int port);

#ifdef __cplusplus
}
#endif

#endif /* RXD_H */
