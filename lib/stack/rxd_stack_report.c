/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RXD_ENGINE_STATS set: at rxd_stop(), once the engines stopped, one line
 * per engine binding (the RoCE frames its QPs took, the frames it handed
 * to other engines and took from them) and one per port (its steering),
 * for programs rxd runs under that print nothing of rxd's (perftest on
 * the compat libraries).  Prefixed "rxd engine" and "rxd port".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "rxd_stack.h"

/* Frames the PMD gave and took on the binding's own queues. */
static void
queue_frames(const struct rxd_engine_port *ep, uint64_t *rx, uint64_t *tx)
{
	const struct rxd_port *p = ep->port;
	uint16_t q;

	*rx = *tx = 0;
	for (q = ep->shard; q < p->nb_rxq; q += ep->n_shards)
		*rx += p->stats[q].rx_pkts;
	for (q = 0; q < ep->n_lanes; q++)
		*tx += p->stats[ep->lanes[q].txq].tx_pkts;
}

static void
report_engine(const struct rxd_engine *e)
{
	const struct rxd_handoff_stats *h = &e->handoff.stats;
	unsigned int i;

	for (i = 0; i < e->n_ports; i++) {
		const struct rxd_engine_port *ep = &e->ports[i];
		const struct rxd_roce_stats *r = &ep->roce;
		uint64_t wire_err = 0, rx, tx;
		unsigned int k;

		for (k = 0; k < RXD_WIRE_ERR_MAX; k++)
			wire_err += r->wire_err[k];
		queue_frames(ep, &rx, &tx);
		fprintf(stderr, "rxd engine %u: port %u shard %u qps %u "
			"roce_rx %" PRIu64 " handoff_sent %" PRIu64
			" handoff_received %" PRIu64 " handoff_dropped %"
			PRIu64 " not_local %" PRIu64 " unknown_qp %" PRIu64
			" bad_peer %" PRIu64 " wire_err %" PRIu64
			" other_dropped %" PRIu64 " queue_rx %" PRIu64
			" queue_tx %" PRIu64 "\n", e->id, ep->port->index,
			ep->shard, e->n_qps, r->rx, h->sent, h->received,
			h->dropped, r->not_local, r->unknown_qp, r->bad_peer,
			wire_err, r->other_dropped, rx, tx);
	}
}

static void
report_port(const struct rxd_port *p)
{
	const struct rxd_steer_stats *s = &p->steer.stats;

	fprintf(stderr, "rxd port %u: steering %s steered %" PRIu64
		" collisions %" PRIu64 " refused %" PRIu64 "\n", p->index,
		rxd_steer_mode_name(p->steer.mode), s->steered,
		s->collisions, s->failed);
}

void
rxd_stack_report(void)
{
	unsigned int i;

	if (getenv("RXD_ENGINE_STATS") == NULL)
		return;
	for (i = 0; i < rxd_stk.n_engines; i++)
		report_engine(&rxd_stk.engines[i]);
	for (i = 0; i < rxd_stk.n_ports; i++)
		report_port(&rxd_stk.ports[i]);
}
