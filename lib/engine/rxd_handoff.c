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

#define TX_TAG ((uintptr_t)1)   /* low bit: to send, not received */

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

static struct rte_mbuf *
untag(void *p)
{
	return (struct rte_mbuf *)((uintptr_t)p & ~TX_TAG);
}

void
rxd_handoff_fini(struct rxd_engine *e)
{
	void *p;
	unsigned int i, k;

	for (i = 0; i < RXD_MAX_LCORES; i++) {   /* bursts not passed on */
		for (k = 0; k < e->handoff.n_out[i]; k++)
			rte_pktmbuf_free(untag(e->handoff.out[i][k]));
		e->handoff.n_out[i] = 0;
	}
	for (i = 0; i < RXD_MAX_LCORES; i++) {
		struct rte_ring *r = e->handoff.from[i];

		if (r == NULL)
			continue;
		while (rte_ring_sc_dequeue(r, &p) == 0)
			rte_pktmbuf_free(untag(p));
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
		rte_pktmbuf_free(untag(h->out[id][i]));
	h->stats.sent += sent;
	h->stats.dropped += n - sent;
	h->n_out[id] = 0;
	return n;
}

static void
push(struct rxd_engine *e, unsigned int id, void *p)
{
	struct rxd_handoff *h = &e->handoff;

	if (h->to[id] == NULL) {   /* no ring: not sharing a port */
		h->stats.dropped++;
		rte_pktmbuf_free(untag(p));
		return;
	}
	if (h->n_out[id] == RXD_HANDOFF_BURST)
		flush_one(e, id);
	h->out[id][h->n_out[id]++] = p;
}

void
rxd_handoff_rx(struct rxd_engine_port *ep, struct rxd_engine *to,
	       struct rte_mbuf *m)
{
	m->port = ep->port->port_id;   /* not every PMD sets it */
	push(ep->engine, to->id, m);
}

static void
set_dmac(struct rte_mbuf *m, const struct rte_ether_addr *mac)
{
	rte_ether_addr_copy(mac,
		&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr);
}

void
rxd_handoff_output(struct rxd_engine_port *ep, uint16_t lane,
		   const uint8_t dgid[RXD_GID_LEN], struct rxd_net_hint *hint,
		   struct rte_mbuf *m)
{
	uint32_t gen = __atomic_load_n(&ep->net->neigh_gen, __ATOMIC_ACQUIRE);
	struct rte_ether_addr mac;

	if (hint != NULL && hint->gen == gen && gen != 0) {
		set_dmac(m, &hint->mac);
		rxd_tx_lane_put(ep, lane, m);
		return;
	}
	if (rxd_net_peek(ep->net, dgid, &mac) == 0) {
		if (hint != NULL) {
			hint->mac = mac;
			hint->gen = gen;
		}
		set_dmac(m, &mac);
		rxd_tx_lane_put(ep, lane, m);
		return;
	}
	m->port = ep->port->port_id;
	push(ep->engine, ep->first->engine->id,
	     (void *)((uintptr_t)m | TX_TAG));
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

/*
 * The destination GID of a frame a QP built: its IPv4 address mapped,
 * or its IPv6 address (after an 802.1Q tag, if any).
 */
static void
frame_dgid(const struct rte_mbuf *m, uint8_t dgid[RXD_GID_LEN])
{
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	size_t l3 = sizeof(struct rte_ether_hdr);
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);

	if (type == RTE_ETHER_TYPE_VLAN) {
		type = (uint16_t)(f[16] << 8 | f[17]);
		l3 += sizeof(struct rte_vlan_hdr);
	}
	if (type == RTE_ETHER_TYPE_IPV4) {
		memcpy(dgid, v4_mapped, sizeof(v4_mapped));
		memcpy(dgid + 12, f + l3 + 16, 4);
	} else {
		memcpy(dgid, f + l3 + 24, RXD_GID_LEN);
	}
}

static void
take(struct rxd_engine *e, void *p)
{
	struct rte_mbuf *m = untag(p);
	struct rxd_engine_port *ep = binding_of(e, m->port);
	uint8_t dgid[RXD_GID_LEN];

	if (ep == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	if (((uintptr_t)p & TX_TAG) == 0) {
		rxd_engine_classify(ep, m, RXD_RXQ_HANDED_OFF);
		return;
	}
	frame_dgid(m, dgid);
	rxd_net_output(ep->net, dgid, m, NULL);
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
