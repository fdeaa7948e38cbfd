/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core of a queue pair, shared by the layers that serve it: what the
 * verbs layer hands to the engine that owns the QP (rings, CQs, SRQ,
 * state, attributes), the QPN numbering, the doorbell that tells the
 * engine a send queue has work, and the flush of a QP entering ERR.  The
 * transport keeps its own state behind `transport`; placing a QP on an
 * engine and the QP tables are the stack's (lib/stack/rxd_qp_engine.h).
 *
 * Below lib/engine and lib/transport, so nothing here calls the engine:
 * what the engine lends a QP at attach is data (its doorbell ring, an
 * owner pointer opaque here), and rxd_qp_doorbell() pushes onto that ring.
 */
#ifndef RXD_QP_CORE_H
#define RXD_QP_CORE_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "rxd_wq.h"

#define RXD_QPN_GSI 1               /**< QP1: connection management */
#define RXD_QPN_FIRST 0x11          /**< first QPN given to applications */

struct rxd_engine;

/** A QP as its engine and its transport see it (lib/verbs embeds it). */
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
	/** The owning engine's doorbell ring (multi-producer, of QP
	 *  pointers), set by the engine at attach. */
	struct rte_ring *doorbell_ring;
	/** RC/UC: the UDP source port of the first frame from the peer
	 *  that this QP took since it left INIT; 0 until then.  Frames
	 *  from the peer's address with another one are not the peer's. */
	uint16_t peer_sport;
	/** RC/UC on a port with lanes steering: 1 + the lane its peer's
	 *  frames came in from (the peer QP's engine), 0 until one came
	 *  since it left INIT (lib/engine's). */
	uint16_t peer_lane;
	/** RC/UC with several engines on the port: the port's steering of
	 *  the peer's frames to the owner's queue (lib/engine's), or NULL */
	void *steer;
	struct rxd_engine *engine;  /**< owner, set at attach (lib/engine's) */
	void *transport;            /**< lib/transport's state */
	/** Raise an affiliated asynchronous event (verbs layer). */
	void (*async)(struct rxd_qp_core *qp, enum ibv_event_type ev);
};

/**
 * Complete every WR still queued in the QP's send and receive rings (or
 * its SRQ's share: none) with IBV_WC_WR_FLUSH_ERR (on the owning engine).
 */
void rxd_qp_flush(struct rxd_qp_core *qp);

/**
 * Tell the QP's engine that its send queue has work (any thread, after
 * attach): the QP is queued on the engine's doorbell ring once until the
 * engine takes it.
 */
void rxd_qp_doorbell(struct rxd_qp_core *qp);

#endif /* RXD_QP_CORE_H */
