/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/transport: the RC, UC and UD transports of a QP (requester,
 * completer, responder, timers), run by the engine that owns the QP.  It sees packets
 * as parsed frames (lib/wire) and sends frames through the transmit hook
 * the engine gives it: it never touches ethdev.
 */
#ifndef RXD_TRANSPORT_H
#define RXD_TRANSPORT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rxd/rxd.h"
#include "rxd_dcqcn.h"
#include "rxd_delay.h"
#include "rxd_qp_core.h"
#include "rxd_wire.h"

struct rxd_tqp;
struct rxd_net_hint;           /* lib/net: a peer's MAC, kept per QP */

/** How a QP's frames leave: the engine's hook, and where mbufs come from. */
struct rxd_xmit {
	/** Send a frame of qp, built from pkt (its destination GID and QPN
	 *  choose the way out), whose Ethernet destination is filled in by
	 *  the hook; hint (NULL for UD) keeps the connected peer's MAC
	 *  between frames. */
	void (*send)(void *ctx, const struct rxd_qp_core *qp,
		     const struct rxd_pkt *pkt, struct rxd_net_hint *hint,
		     struct rte_mbuf *m);
	void *ctx;
	struct rte_mempool *pool;
	uint8_t smac[RXD_ETH_ALEN];
	uint16_t vlan;
	/** The port's Q_Key violation counter (qkey_viol_cntr). */
	uint64_t *qkey_viol;
	/** Frames waiting for room in the PMD (the engine's held queue). */
	const uint16_t *held;
	/** Start resolving the peer's MAC (RTR), so the first frames go. */
	void (*resolve)(void *ctx, const uint8_t dgid[RXD_GID_LEN]);
	/** Read GID index i of the QP's port into gid; 0 or -1. */
	int (*gid)(unsigned int port, unsigned int i, uint8_t gid[RXD_GID_LEN]);
	/** Frames leave ECN-capable (ECT(0)). */
	bool ecn;
	/** DSCP of CNPs, and the least time between two of a QP (TSC). */
	uint8_t cnp_dscp;
	uint64_t cnp_gap;
	/** DCQCN parameters of the port; NULL: CNPs do not slow QPs down. */
	const struct rxd_dcqcn_params *dcqcn;
	/** Delay law parameters of the port; NULL: round trips do not
	 *  pace QPs.  At most one of dcqcn and delay is set; neither:
	 *  QPs are unpaced (cc = off). */
	const struct rxd_delay_params *delay;
	/** Depth of a paced QP's token bucket, bytes. */
	uint32_t burst;
	/** Idle time before an RC QP probes its peer (TSC); 0: never. */
	uint64_t keepalive;
};

/** Per-engine list of QPs with a running timer. */
struct rxd_timers {
	struct rxd_tqp *head;
	/** TSC read at the start of the engine's pass: the clock of its
	 *  QPs' pacers (one reading a pass, not one a frame). */
	uint64_t now;
};

/* Transport counters: struct rxd_qp_stats of include/rxd/rxd.h. */

/** Allocate the transport state of a QP (rxd_qp_attach(), app thread). */
int rxd_transport_init(struct rxd_qp_core *qp, uint32_t sq_size);

/**
 * Fill the transport's share of rxd_qp_memory() (state, send window,
 * responder resources) for a QP of this type and sq_size send WRs.
 */
void rxd_transport_memory(enum ibv_qp_type type, uint32_t sq_size,
			  struct rxd_qp_memory *m);

/** Free it (rxd_qp_detach(), after rxd_sync_engines()). */
void rxd_transport_fini(struct rxd_qp_core *qp);

/** Bind the QP to its engine's transmit hook and timer list. */
void rxd_transport_bind(struct rxd_qp_core *qp, const struct rxd_xmit *x,
			struct rxd_timers *t);

/** Take the QP off its engine's timer list (on the engine, at detach). */
void rxd_transport_unbind(struct rxd_qp_core *qp);

/** Apply a modify_qp on the engine (after qp->attr was updated). */
void rxd_transport_modify(struct rxd_qp_core *qp, enum ibv_qp_state from);

/**
 * A RoCE frame for this QP (addresses already checked); consumes m.
 * @return false if its deferred ICRC check (pkt->icrc_deferred) failed:
 * the frame was dropped and the caller counts it.
 */
bool rxd_transport_rx(struct rxd_qp_core *qp, struct rte_mbuf *m,
		      const struct rxd_pkt *pkt);

/**
 * The receive fast path: true if the frame (one segment, parse flags as
 * for rxd_wire_parse()) is one the RC QP expects from its peer: at the
 * expected PSN the next MIDDLE or LAST of the message in progress, or a
 * SEND or WRITE ONLY (with or without immediate data); or a plain ACK of
 * a PSN sent and not acknowledged yet; every fixed header byte as in the
 * frame the QP learnt its receive template from (rxd_rx_tmpl.h).  Then
 * pkt is what rxd_wire_parse() would have made of it, and
 * rxd_transport_rx() takes it as the full path would (the engine's
 * address checks passed for the learnt frame hold for it; the RETH's
 * rkey, address and length are checked there as for any WRITE).  False:
 * m untouched, the full path.  The templates are learnt from an RC
 * request (responses: from a response) the full path accepted and
 * forgotten at every modify.
 */
bool rxd_transport_rx_expected(struct rxd_qp_core *qp,
			       const struct rte_mbuf *m, unsigned int flags,
			       struct rxd_pkt *pkt);

/** What a send queue has left after rxd_transport_sq(). */
enum rxd_sq_left {
	RXD_SQ_DONE = 0,   /**< nothing until a post, an ACK or a timer */
	RXD_SQ_MORE,       /**< frames it could send now */
	RXD_SQ_PACED,      /**< frames held only by the QP's pacer (DCQCN):
			    *   due again, but no work for the engine's
			    *   idle back-off */
};

/**
 * Send what the send queue allows.  @return what is left: the engine
 * rings the doorbell again unless RXD_SQ_DONE.
 */
enum rxd_sq_left rxd_transport_sq(struct rxd_qp_core *qp);

/** Fire due retransmission and RNR timers of the list. */
void rxd_transport_timers(struct rxd_timers *t, uint64_t now);

/**
 * Look at an RC QP's keepalive (rxd_keepalive.c): probe a peer silent for
 * the interval, give a dead one up.  The engine calls it for each of its
 * QPs every few hundred milliseconds at most.
 */
void rxd_transport_keepalive(struct rxd_qp_core *qp, uint64_t now);

/** Copy the QP's counters. */
void rxd_transport_counters(const struct rxd_qp_core *qp,
			    struct rxd_qp_stats *c);

#endif /* RXD_TRANSPORT_H */
