/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A binding's transmit lanes (see rxd_tx_lane.h).
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "rxd_engine.h"
#include "rxd_tx_lane.h"

int
rxd_tx_lanes_init(struct rxd_engine_port *ep)
{
	uint16_t n = ep->port->steer.lanes == ep->n_shards ?
		ep->n_shards : 1, j;

	ep->lanes = rte_zmalloc_socket("rxd_tx_lanes", n * sizeof(*ep->lanes),
				       0, ep->port->socket);
	if (ep->lanes == NULL)
		return -ENOMEM;
	ep->n_lanes = n;
	for (j = 0; j < n; j++)
		ep->lanes[j].txq = (uint16_t)(ep->shard * n + j);
	return 0;
}

void
rxd_tx_lanes_fini(struct rxd_engine_port *ep)
{
	uint16_t j;

	for (j = 0; j < ep->n_lanes; j++) {
		struct rxd_tx_lane *l = &ep->lanes[j];

		rte_pktmbuf_free_bulk(l->tx, l->n_tx);
		rte_pktmbuf_free_bulk(l->held, l->n_held);
	}
	rte_free(ep->lanes);
	ep->lanes = NULL;
	ep->n_lanes = 0;
	ep->n_held = 0;
}

/*
 * Only frames that find the lane's held queue full are dropped (tx_full).
 * The binding's n_held follows every lane's.  @return frames the PMD took.
 */
static uint16_t
lane_flush(struct rxd_engine_port *ep, struct rxd_tx_lane *l)
{
	struct rte_mbuf *out[2 * RXD_TX_BURST + 1];
	uint16_t n, keep, sent;

	n = rxd_port_tx_prepare(ep->port, l->txq, l->tx, l->n_tx, out);
	l->n_tx = 0;
	keep = RTE_MIN(n, (uint16_t)(RXD_TX_HELD - l->n_held));
	memcpy(&l->held[l->n_held], out, keep * sizeof(out[0]));
	l->n_held = (uint16_t)(l->n_held + keep);
	rxd_port_tx_drop(ep->port, l->txq, out + keep, (uint16_t)(n - keep));
	if (l->n_held == 0)
		return 0;
	sent = rxd_port_tx_burst(ep->port, l->txq, l->held, l->n_held);
	l->n_held = (uint16_t)(l->n_held - sent);
	memmove(l->held, l->held + sent, l->n_held * sizeof(l->held[0]));
	ep->n_held = (uint16_t)(ep->n_held + keep - sent);
	return sent;
}

unsigned int
rxd_tx_lanes_flush(struct rxd_engine_port *ep)
{
	unsigned int sent = 0;
	uint16_t j;

	for (j = 0; j < ep->n_lanes; j++)
		sent += lane_flush(ep, &ep->lanes[j]);
	return sent;
}

void
rxd_tx_lane_put(struct rxd_engine_port *ep, uint16_t lane, struct rte_mbuf *m)
{
	struct rxd_tx_lane *l = &ep->lanes[lane];

	if (l->n_tx == RXD_TX_BURST)
		lane_flush(ep, l);
	l->tx[l->n_tx++] = m;
}

uint16_t
rxd_tx_lane_of(const struct rxd_engine_port *ep, const struct rxd_qp_core *qp,
	       uint32_t dqpn)
{
	if (ep->n_lanes == 1)
		return 0;
	if (qp->peer_lane != 0)
		return (uint16_t)(qp->peer_lane - 1);
	return (uint16_t)rxd_qp_share(dqpn, ep->n_lanes);
}

void
rxd_tx_lane_learn(const struct rxd_engine_port *ep, struct rxd_qp_core *qp,
		  uint16_t rxq)
{
	uint16_t n = ep->n_lanes, lane = (uint16_t)(rxq / n + 1);

	/* stored only when it changes: the QP core's lines are read by the
	 * threads that post, and a store per frame would take them away */
	if (qp->type != IBV_QPT_UD && rxq < n * n && qp->peer_lane != lane)
		qp->peer_lane = lane;
}
