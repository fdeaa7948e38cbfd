/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transmit lanes of an engine's binding to a port: the transmit
 * queues it sends on, each with its burst of frames being filled and the
 * frames its PMD queue has not taken yet.  One lane, the engine's queue,
 * on most ports.  On a port with lanes steering (pmd_glue/rxd_steer.h:
 * memif or ring shared by N engines, N x N queue pairs) share k has N
 * lanes, lane j being transmit queue k*N + j, which arrives on the peer's
 * receive queue k*N + j, read by the peer's engine j.  A QP's frames go on
 * the lane of the engine that owns its peer QP: learnt from the queue the
 * peer's frames come in on (q / N is the peer engine that sent them), or
 * before any came, the engine rxd's own rule gives the peer QPN.
 */
#ifndef RXD_TX_LANE_H
#define RXD_TX_LANE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rxd_qp_core.h"

#define RXD_TX_BURST 64
#define RXD_TX_HELD 512            /* frames kept while the PMD is full */
/** The receive queue of a frame that came through a hand-off. */
#define RXD_RXQ_HANDED_OFF UINT16_MAX

struct rxd_engine_port;

/** One transmit queue of a binding. */
struct rxd_tx_lane {
	uint16_t txq;
	uint16_t n_tx;
	/** Prepared frames the PMD has not taken yet, oldest first. */
	uint16_t n_held;
	struct rte_mbuf *tx[RXD_TX_BURST];
	struct rte_mbuf *held[RXD_TX_HELD];
};

/**
 * Give the binding its lanes: n (transmit queues shard*n .. shard*n+n-1)
 * when its port has lanes steering for exactly its engines, else one
 * (transmit queue shard).  @return 0 or -ENOMEM.
 */
int rxd_tx_lanes_init(struct rxd_engine_port *ep);

/** Free the binding's lanes and the frames still in them. */
void rxd_tx_lanes_fini(struct rxd_engine_port *ep);

/** Queue a frame on a lane (flushed in bursts; lane 0 with one lane). */
void rxd_tx_lane_put(struct rxd_engine_port *ep, uint16_t lane,
		     struct rte_mbuf *m);

/**
 * Hand every lane's frames to the PMD: new ones are captured and faulted,
 * then queue behind the held ones, and the PMD takes what it has room for.
 * @return how many frames the PMD took.
 */
unsigned int rxd_tx_lanes_flush(struct rxd_engine_port *ep);

/** The lane of a frame qp sends to QPN dqpn. */
uint16_t rxd_tx_lane_of(const struct rxd_engine_port *ep,
			const struct rxd_qp_core *qp, uint32_t dqpn);

/**
 * A frame from qp's peer came in on receive queue rxq of a binding with
 * lanes: its peer QP's engine is rxq / lanes (a connected QP only).
 */
void rxd_tx_lane_learn(const struct rxd_engine_port *ep,
		       struct rxd_qp_core *qp, uint16_t rxq);

#endif /* RXD_TX_LANE_H */
