/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hand-off between the engines sharing a port (see rxd_handoff.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_lcore.h>

#include "rxd_engine.h"
#include "rxd_handoff.h"

int
rxd_handoff_link(struct rxd_engine *a, struct rxd_engine *b)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	if (a == b || a->handoff.to[b->id] != NULL)
		return 0;
	snprintf(name, sizeof(name), "rxd_ho%u_%u", a->id, b->id);
	r = rte_ring_create(name, RXD_HANDOFF_RING,
			    (int)rte_lcore_to_socket_id(b->lcore),
			    RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		return -rte_errno;
	a->handoff.to[b->id] = r;
	a->handoff.out_ids[a->handoff.n_out_ids++] = (uint8_t)b->id;
	b->handoff.from[a->id] = r;
	b->handoff.in_ids[b->handoff.n_in_ids++] = (uint8_t)a->id;
	return 0;
}

void
rxd_handoff_fini(struct rxd_engine *e)
{
	void *p;
	unsigned int i, k;

	for (i = 0; i < RXD_MAX_LCORES; i++) {   /* bursts not passed on */
		for (k = 0; k < e->handoff.n_out[i]; k++)
			rte_pktmbuf_free(e->handoff.out[i][k]);
		e->handoff.n_out[i] = 0;
	}
	for (i = 0; i < RXD_MAX_LCORES; i++) {
		struct rte_ring *r = e->handoff.from[i];

		if (r == NULL)
			continue;
		while (rte_ring_sc_dequeue(r, &p) == 0)
			rte_pktmbuf_free(p);
		rte_ring_free(r);
		e->handoff.from[i] = NULL;
	}
	memset(e->handoff.to, 0, sizeof(e->handoff.to));
	e->handoff.n_in_ids = e->handoff.n_out_ids = 0;
}

/* Pass the burst for engine id; what its full ring refuses is dropped. */
static unsigned int
flush_one(struct rxd_engine *e, unsigned int id)
{
	struct rxd_handoff *h = &e->handoff;
	unsigned int n = h->n_out[id], sent, i;

	if (n == 0)
		return 0;
	sent = rte_ring_sp_enqueue_burst(h->to[id], h->out[id], n, NULL);
	for (i = sent; i < n; i++)
		rte_pktmbuf_free(h->out[id][i]);
	h->stats.sent += sent;
	h->stats.dropped += n - sent;
	h->n_out[id] = 0;
	return n;
}

static void
push(struct rxd_engine *e, unsigned int id, struct rte_mbuf *m)
{
	struct rxd_handoff *h = &e->handoff;

	if (h->to[id] == NULL) {   /* no ring: not sharing a port */
		h->stats.dropped++;
		rte_pktmbuf_free(m);
		return;
	}
	if (h->n_out[id] == RXD_HANDOFF_BURST)
		flush_one(e, id);
	h->out[id][h->n_out[id]++] = m;
}

void
rxd_handoff_rx(struct rxd_engine_port *ep, struct rxd_engine *to,
	       struct rte_mbuf *m)
{
	m->port = ep->port->port_id;   /* not every PMD sets it */
	push(ep->engine, to->id, m);
}

unsigned int
rxd_handoff_flush(struct rxd_engine *e)
{
	unsigned int i, n = 0;

	for (i = 0; i < e->handoff.n_out_ids; i++)
		n += flush_one(e, e->handoff.out_ids[i]);
	return n;
}

static struct rxd_engine_port *
binding_of(struct rxd_engine *e, uint16_t port_id)
{
	unsigned int i;

	for (i = 0; i < e->n_ports; i++)
		if (e->ports[i].port->port_id == port_id)
			return &e->ports[i];
	return NULL;
}

static void
take(struct rxd_engine *e, struct rte_mbuf *m)
{
	struct rxd_engine_port *ep = binding_of(e, m->port);

	if (ep == NULL)
		rte_pktmbuf_free(m);
	else
		rxd_engine_classify(ep, m, RXD_RXQ_HANDED_OFF);
}

unsigned int
rxd_handoff_receive(struct rxd_engine *e)
{
	void *p[RXD_HANDOFF_BURST];
	unsigned int k, n, i, work = 0;

	for (k = 0; k < e->handoff.n_in_ids; k++) {
		n = rte_ring_sc_dequeue_burst(
			e->handoff.from[e->handoff.in_ids[k]], p,
					      RXD_HANDOFF_BURST, NULL);
		for (i = 0; i < n; i++)
			take(e, p[i]);
		work += n;
	}
	e->handoff.stats.received += work;
	return work;
}
