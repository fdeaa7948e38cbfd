/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine-side half of a queue pair: what the verbs layer hands to the
 * engine that serves the QP (rings, CQs, state, attributes), the QP table
 * the engines look packets' destination QPNs up in, and the doorbell that
 * tells an engine a send queue has work.  The transport keeps its own state
 * behind `transport`.
 */
#ifndef RXD_QP_CORE_H
#define RXD_QP_CORE_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "rxd_wq.h"

#define RXD_QPN_GSI 1               /**< QP1: connection management */
#define RXD_QPN_FIRST 0x11          /**< first QPN given to applications */

struct rxd_engine;

/** A control command: fn runs on the engine's lcore. */
typedef int (*rxd_engine_fn)(struct rxd_engine *e, void *arg);

/**
 * Run fn on the engine serving an rxd port and return its result
 * (-ENODEV without such a port).
 */
int rxd_port_call(unsigned int port, rxd_engine_fn fn, void *arg);

/**
 * How many engines share an rxd port (engines_per_port, as far as the
 * device and the engine lcores allow); 0 without such a port.  With more
 * than one, the QPs of one CQ or SRQ may be served by several engines.
 */
unsigned int rxd_port_engines(unsigned int port);

/** Engine-side QP. */
struct rxd_qp_core {
	uint32_t qpn;
	enum ibv_qp_type type;
	const struct ibv_pd *pd;    /**< its MRs are the ones it may use */
	unsigned int port;          /**< rxd port index */
	struct rte_ring *sq;        /**< of struct rxd_send_wqe */
	struct rte_ring *rq;        /**< of struct rxd_recv_wqe; NULL with SRQ */
	struct rxd_srq_core *srq;   /**< shared receive queue, or NULL */
	struct rxd_cq_core *scq, *rcq;
	bool sq_sig_all;
	struct ibv_qp_attr attr;    /**< as last applied by ibv_modify_qp */
	uint32_t doorbell;          /**< 1 while queued on the engine */
	/** RC/UC: the UDP source port of the first frame from the peer
	 *  that this QP took since it left INIT; 0 until then.  Frames
	 *  from the peer's address with another one are not the peer's. */
	uint16_t peer_sport;
	struct rxd_engine *engine;
	void *transport;            /**< lib/transport's state */
	/** Raise an affiliated asynchronous event (verbs layer). */
	void (*async)(struct rxd_qp_core *qp, enum ibv_event_type ev);
};

/**
 * Place a QP on the engine serving its port and publish it in the port's
 * QP table.  @return 0 or a negative errno (-ENOSPC: QPN out of range).
 */
int rxd_qp_attach(struct rxd_qp_core *qp);

/**
 * Unpublish a QP, take it off its engine's timers and doorbells, and wait
 * until no engine uses it.
 */
void rxd_qp_detach(struct rxd_qp_core *qp);

/**
 * Apply checked attributes on the QP's engine (state, PSNs, path).
 * @return 0 or a negative errno.
 */
int rxd_qp_apply(struct rxd_qp_core *qp, const struct ibv_qp_attr *attr,
		 int mask);

/**
 * Complete every WR still queued in the QP's send and receive rings (or
 * its SRQ's share: none) with IBV_WC_WR_FLUSH_ERR (engine side).
 */
void rxd_qp_flush(struct rxd_qp_core *qp);

/** Tell the QP's engine that its send queue has work. */
void rxd_qp_doorbell(struct rxd_qp_core *qp);

/** The QP with this QPN on a port, or NULL (engine side). */
struct rxd_qp_core *rxd_qp_lookup(unsigned int port, uint32_t qpn);

#endif /* RXD_QP_CORE_H */
