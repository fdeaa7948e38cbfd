/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/engine: one engine is one lcore running rxd's run-to-completion loop
 * (receive a burst, classify, hand ARP/ND/ICMP to lib/net and RoCE to the
 * transport, run control commands, fire timers, transmit in bursts, back
 * off when idle).  An engine owns its ports' queues and everything it
 * serves outright: other threads reach it only through its control ring.
 */
#ifndef RXD_ENGINE_H
#define RXD_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rxd_config.h"
#include "rxd_engine_cmd.h"
#include "rxd_handoff.h"
#include "rxd_mcast.h"
#include <rte_spinlock.h>

#include "rxd_net.h"
#include "rxd_port.h"
#include "rxd_qp_core.h"
#include "rxd_transport.h"
#include "rxd_tx_addr.h"
#include "rxd_tx_lane.h"
#include "rxd_wire.h"

#define RXD_RX_BURST 32
#define RXD_MAX_ENGINES RXD_MAX_LCORES

/** RoCE receive counters of one port binding. */
struct rxd_roce_stats {
	uint64_t rx;                          /**< RoCEv2 frames a QP took */
	uint64_t wire_err[RXD_WIRE_ERR_MAX];  /**< dropped, by reason */
	uint64_t not_local;                   /**< destination IP not ours */
	uint64_t unknown_qp;                  /**< no such QP */
	uint64_t bad_peer;                    /**< not from the QP's peer
					       *   (address or UDP port) */
	uint64_t bad_cnp;                     /**< CNPs no QP may act on */
	uint64_t qkey_viol;                   /**< UD Q_Key mismatches (of rx) */
	uint64_t other_dropped;               /**< other UDP, unknown L3 */
	uint64_t mcast_no_member;             /**< to a group no QP here is
					       *   attached to */
	uint64_t ce;                          /**< CE-marked RoCE frames
					       *   (of any outcome) */
	uint64_t rx_fast;                     /**< of rx: taken by the
					       *   receive fast path */
	/* Every frame received ends in exactly one of rx, wire_err[],
	 * not_local, unknown_qp, bad_peer, bad_cnp, other_dropped, mcast_no_member,
	 * or lib/net's arp_rx, icmp_rx, icmp6_rx, igmp_rx.  A frame to a
	 * group counts once in rx however many QPs take it. */
};

/**
 * What the stack lends an engine with a port (rxd_engine_add_port()):
 * the port's QP table, which the engine only reads, and what to call when
 * the port's link changes.  The engine reaches the stack through these
 * only, never by a call of its own.
 */
struct rxd_engine_host {
	struct rxd_qp_core **qp_table;        /**< by QPN, published with
					       *   release stores */
	uint32_t qp_table_len;                /**< its slots */
	/** The port's link went up or down (on the engine's lcore). */
	void (*port_event)(unsigned int port, bool up);
};

/** A port's queues polled by an engine, with its transmit lanes. */
struct rxd_engine_port {
	struct rxd_port *port;
	struct rxd_net_port *net;
	struct rxd_engine *engine;            /**< the engine polling it */
	struct rxd_engine_host host;          /**< what the stack lends it */
	/** The port's first binding (shard 0): it owns ARP/ND/ICMP, QP1,
	 *  multicast and the neighbour table; itself when shard is 0. */
	struct rxd_engine_port *first;
	uint16_t shard;                       /**< this engine's share */
	uint16_t n_shards;                    /**< engines sharing the port */
	/** Its transmit queues (rxd_tx_lane.h): lane j leads to the peer's
	 *  engine j on a port with lanes steering; one lane otherwise. */
	struct rxd_tx_lane *lanes;
	uint16_t n_lanes;
	/** Frames held over all lanes: the transport holds back new data
	 *  while there are many. */
	uint16_t n_held;
	/** QP frames waiting for their next hop's MAC, oldest first, and
	 *  what became of such frames (rxd_tx_addr.h). */
	struct rxd_tx_wait *wait;
	uint16_t n_wait;
	struct rxd_tx_addr_stats addr_stats;
	struct rxd_roce_stats roce;
	struct rxd_mcast_table mcast;         /**< UD QPs by group */
	struct rxd_dcqcn_params dcqcn;        /**< its QPs' DCQCN (cc = dcqcn,
					       *   ecn) */
	struct rxd_delay_params delay;        /**< its QPs' delay law */
	/** The RC QP the last frame the full path gave a QP went to: the
	 *  receive fast path offers the next frames to it first. */
	struct rxd_qp_core *fast_qp;
};

/** Loop counters of an engine. */
struct rxd_engine_stats {
	uint64_t loops;
	uint64_t busy_loops;
	uint64_t sleeps;
	uint64_t commands;
};

/** One engine. */
struct rxd_engine {
	unsigned int id;
	unsigned int lcore;
	struct rxd_engine_port ports[RXD_MAX_PORTS];
	unsigned int n_ports;
	struct rte_ring *ctrl;
	struct rte_ring *doorbells;   /**< QPs whose send queue has work */
	struct rxd_timers timers;     /**< QPs with a running timer */
	enum rxd_idle_policy idle;
	uint32_t idle_spins;
	uint32_t idle_sleep_max_us;
	uint32_t idle_count;
	uint32_t sleep_us;
	uint64_t next_tick;
	uint64_t ticks;
	uint64_t tick_tsc;
	volatile bool stop;
	volatile bool running;
	/** Held by the thread running a pass or a command of an engine that
	 *  has no lcore running it (inline progress, or before launch). */
	rte_spinlock_recursive_t inline_lock;
	struct rxd_engine_stats stats;
	struct rxd_handoff handoff;   /**< to and from engines sharing ports */
	uint32_t n_qps;               /**< QPs it owns */
	uint32_t keepalive_at;        /**< QPN the keepalive sweep is at */
	uint64_t busy_cycles;         /**< TSC cycles of passes with work */
	uint64_t idle_cycles;         /**< TSC cycles of passes without */
	uint64_t last_now;            /**< clock reading of the last pass */
	bool last_busy;               /**< the last pass found work */
};


extern int rxd_logtype_engine;   /**< rte_log type "rxd.engine" */

/** Prepare an engine (ring, idle policy); ports are added after. */
int rxd_engine_init(struct rxd_engine *e, unsigned int id, unsigned int lcore,
		    const struct rxd_conf *conf);

/** Release an engine's ring; the engine must be stopped. */
void rxd_engine_fini(struct rxd_engine *e);

/**
 * Serve share `shard` of a port (of n_shards engines) with its host
 * state: the receive queues q with q % n_shards == shard (RSS may put a
 * flow on any of them) and transmit queue `shard`, or with lanes
 * steering its n_shards lanes (rxd_tx_lane.h).  first is the port's
 * binding of shard 0 (NULL when this is it); host is what the stack
 * lends the binding (copied).  @return 0 or a negative errno.
 */
int rxd_engine_add_port(struct rxd_engine *e, struct rxd_port *port,
			struct rxd_net_port *net, uint16_t shard,
			uint16_t n_shards, struct rxd_engine_port *first,
			const struct rxd_engine_host *host);

/**
 * Classify and process one received frame on a binding (engine side);
 * rxq is the receive queue it came in on, or RXD_RXQ_HANDED_OFF.
 */
void rxd_engine_classify(struct rxd_engine_port *ep, struct rte_mbuf *m,
			 uint16_t rxq);

/** A QP leaves the engine: no receive fast path leads to it any more
 *  (engine side). */
void rxd_engine_forget_qp(struct rxd_engine *e, const struct rxd_qp_core *qp);

/** One pass of the loop; returns the amount of work done (0 = idle). */
unsigned int rxd_engine_poll(struct rxd_engine *e);

/**
 * One pass of an engine that no lcore runs, by whichever thread calls,
 * under the engine's inline lock.  @return the work done; 0 also when
 * another thread is running the engine right now.
 */
unsigned int rxd_engine_poll_inline(struct rxd_engine *e);

/** lcore entry point: loop until rxd_engine_stop(). */
int rxd_engine_main(void *arg);

/** Ask the loop to end (does not wait). */
void rxd_engine_stop(struct rxd_engine *e);

/**
 * Run fn(e, arg) on the engine and return its result.  From the engine's
 * own lcore, or when the engine is not running, fn runs directly; otherwise
 * the caller waits for the engine to run it.
 */
int rxd_engine_call(struct rxd_engine *e, rxd_engine_fn fn, void *arg);

/**
 * Queue fn(e, arg) on the engine without waiting (an engine asking
 * another: two engines waiting on each other would never finish).  Runs
 * it at once, like rxd_engine_call(), when the engine is not running or
 * this is its lcore.  @return 0, or -ENOBUFS/-ENOMEM when it could not be
 * queued (fn not run: the caller still owns arg).
 */
int rxd_engine_post(struct rxd_engine *e, rxd_engine_fn fn, void *arg);

/** Hand every port's queued frames to the PMD now (engine side). */
void rxd_engine_flush(struct rxd_engine *e);

/** The QP with this QPN on a binding's port, or NULL (engine side). */
struct rxd_qp_core *rxd_engine_qp(const struct rxd_engine_port *ep,
				  uint32_t qpn);

/**
 * Run the keepalive of a slice of the engine's QPs (engine side, every
 * tick): each QP of its ports is looked at once every 100 ticks.
 */
void rxd_qp_keepalive_sweep(struct rxd_engine *e, uint64_t now);

/**
 * Which of a port's n engines owns the frames to QPN qpn, the rule both
 * ends of a link follow: QP1 and multicast (the groups) the first (0),
 * any other QPN modulo n.
 */
unsigned int rxd_qp_share(uint32_t qpn, unsigned int n);

#endif /* RXD_ENGINE_H */
