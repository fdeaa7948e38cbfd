/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP placement and the per-port QP tables (see rxd_qp_engine.h; the
 * engines read the tables lent to them, rxd_engine_qp()), a QP's
 * transport state made at attach and freed at detach, and the state
 * changes an engine applies
 * itself: a QP returning to RESET drops its queued work requests
 * silently, a UD QP being destroyed sends what was posted first.  A QP entering ERR flushes them with
 * IBV_WC_WR_FLUSH_ERR through lib/qp's rxd_qp_flush().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "rxd_qp_engine.h"
#include "rxd_qp_steer.h"
#include "rxd_stack.h"
#include "rxd_transport.h"

#define UD_DRAIN_PASSES 64

static struct rxd_qp_core **
slot(unsigned int port, uint32_t qpn)
{
	if (port >= rxd_stk.n_ports || qpn >= rxd_stk.qp_table_len)
		return NULL;
	return &rxd_stk.qp_table[port][qpn];
}

struct rxd_qp_core *
rxd_qp_lookup(unsigned int port, uint32_t qpn)
{
	struct rxd_qp_core **s = slot(port, qpn);

	return s == NULL ? NULL : __atomic_load_n(s, __ATOMIC_ACQUIRE);
}

/* A QP's frames leave addressed, in order, on their lane. */
static void
qp_send(void *ctx, const struct rxd_qp_core *qp, const struct rxd_pkt *pkt,
	struct rxd_net_hint *hint, struct rte_mbuf *m)
{
	struct rxd_engine_port *ep = ctx;

	rxd_tx_addr_send(ep, rxd_tx_lane_of(ep, qp, pkt->dqpn), pkt->dgid,
			 hint, m);
}

static void
qp_resolve(void *ctx, const uint8_t dgid[RXD_GID_LEN])
{
	rxd_tx_addr_resolve(ctx, dgid);
}

static int
gid_of_port(unsigned int port, unsigned int i, uint8_t gid[RXD_GID_LEN])
{
	return rxd_query_gid(port, i, gid);
}

/* DCQCN with the fixed steps of the port's dcqcn keys (cc = dcqcn). */
static void
dcqcn_fixed(const struct rxd_conf_dcqcn *c, struct rxd_dcqcn_params *p)
{
	p->line_mbps = c->line_mbps;
	p->min_mbps = c->min_mbps;
	p->g = c->g;
	p->alpha_us = c->alpha_us;
	p->cut_gap_us = c->cut_gap_us;
	p->timer_us = c->timer_us;
	p->byte_reset = c->byte_reset;
	p->fr_steps = c->fr_steps;
	p->ai_mbps = c->ai_mbps;
	p->hai_mbps = c->hai_mbps;
	p->scaled = false;
	p->burst_bytes = c->burst_bytes;
}

/* The port's ECN settings and the law of its cc key, as the transport
 * takes them.  The scale-free laws keep their own defaults but the line
 * rate and the bucket (doc/congestion.md). */
static void
congestion_settings(struct rxd_engine_port *ep, struct rxd_xmit *x)
{
	const struct rxd_conf_port *c = &rxd_stk.conf.port[ep->port->index];

	x->ecn = c->ecn;
	x->cnp_dscp = (uint8_t)c->cnp_dscp;
	x->cnp_gap = rte_get_tsc_hz() / 1000000 * c->cnp_interval_us;
	x->burst = c->dcqcn.burst_bytes;
	x->dcqcn = NULL;
	x->delay = NULL;
	switch (c->cc) {
	case RXD_CC_DCQCN:
		dcqcn_fixed(&c->dcqcn, &ep->dcqcn);
		x->dcqcn = &ep->dcqcn;
		break;
	case RXD_CC_ECN:
		rxd_dcqcn_params_default(&ep->dcqcn);
		ep->dcqcn.line_mbps = c->dcqcn.line_mbps;
		ep->dcqcn.burst_bytes = c->dcqcn.burst_bytes;
		x->dcqcn = &ep->dcqcn;
		break;
	case RXD_CC_DELAY:
		rxd_delay_params_default(&ep->delay);
		ep->delay.line_mbps = c->dcqcn.line_mbps;
		x->delay = &ep->delay;
		break;
	case RXD_CC_OFF:
		break;
	}
}

static int
bind_cmd(struct rxd_engine *e, void *arg)
{
	struct rxd_qp_core *qp = arg;
	struct rxd_xmit x = { .send = qp_send, .resolve = qp_resolve,
		.gid = gid_of_port };
	unsigned int i;

	for (i = 0; i < e->n_ports; i++) {
		struct rxd_engine_port *ep = &e->ports[i];

		if (ep->port->index != qp->port)
			continue;
		x.ctx = ep;
		x.pool = ep->port->pool;
		x.vlan = ep->net->vlan;
		x.qkey_viol = &ep->roce.qkey_viol;
		x.held = &ep->n_held;
		memcpy(x.smac, ep->port->mac.addr_bytes, RXD_ETH_ALEN);
		congestion_settings(ep, &x);
		x.keepalive = rte_get_tsc_hz() / 1000 *
			rxd_stk.conf.port[ep->port->index].keepalive_ms;
		rxd_transport_bind(qp, &x, &e->timers);
		return 0;
	}
	return -ENODEV;
}

int
rxd_qp_attach(struct rxd_qp_core *qp, uint32_t sq_size)
{
	struct rxd_qp_core **s = slot(qp->port, qp->qpn);
	struct rxd_engine *e = rxd_stack_qp_engine(qp->port, qp->qpn);
	int rc;

	if (s == NULL || e == NULL)
		return -ENOSPC;
	if (rxd_transport_init(qp, sq_size) != 0)
		return -ENOMEM;
	qp->engine = e;
	qp->doorbell_ring = e->doorbells;
	rc = rxd_engine_call(e, bind_cmd, qp);
	if (rc != 0) {
		rxd_transport_fini(qp);
		return rc;
	}
	__atomic_add_fetch(&e->n_qps, 1, __ATOMIC_RELAXED);
	__atomic_store_n(s, qp, __ATOMIC_RELEASE);
	return 0;
}

/* Forget a doorbell the QP may still have queued; keep the others. */
static void
drop_doorbell(struct rxd_engine *e, struct rxd_qp_core *qp)
{
	unsigned int n = rte_ring_count(e->doorbells);
	struct rxd_qp_core *q;

	while (n-- > 0 && rte_ring_sc_dequeue(e->doorbells, (void **)&q) == 0)
		if (q != qp)
			rte_ring_mp_enqueue(e->doorbells, q);
	__atomic_store_n(&qp->doorbell, 0, __ATOMIC_RELEASE);
}

/*
 * A UD QP's posted sends leave before it goes, as on Soft-RoCE, which
 * sends them within ibv_post_send: mckey destroys its QP right after
 * posting unsignaled sends.  Bounded: a PMD that takes nothing ends it.
 */
static void
drain_ud(struct rxd_engine *e, struct rxd_qp_core *qp)
{
	unsigned int pass;

	if (qp->type != IBV_QPT_UD)
		return;
	for (pass = 0; pass < UD_DRAIN_PASSES && rxd_transport_sq(qp); pass++)
		rxd_engine_flush(e);
	rxd_engine_flush(e);
}

static int
unbind_cmd(struct rxd_engine *e, void *arg)
{
	struct rxd_qp_core *qp = arg;

	drain_ud(e, qp);
	drop_doorbell(e, qp);
	rxd_engine_forget_qp(e, qp);
	rxd_qp_steer_release(qp);
	rxd_transport_unbind(qp);
	__atomic_sub_fetch(&e->n_qps, 1, __ATOMIC_RELAXED);
	return 0;
}

void
rxd_qp_detach(struct rxd_qp_core *qp)
{
	struct rxd_qp_core **s = slot(qp->port, qp->qpn);

	if (s != NULL)
		__atomic_store_n(s, NULL, __ATOMIC_RELEASE);
	if (qp->engine != NULL)
		rxd_engine_call(qp->engine, unbind_cmd, qp);
	rxd_sync_engines();
	rxd_transport_fini(qp);
}

void
rxd_qp_transport_memory(enum ibv_qp_type type, uint32_t sq_size,
			struct rxd_qp_memory *m)
{
	rxd_transport_memory(type, sq_size, m);
}

static void
drop_all(struct rte_ring *r)
{
	if (r != NULL)
		rte_ring_reset(r);
}

struct apply_arg {
	struct rxd_qp_core *qp;
	const struct ibv_qp_attr *attr;
	int mask;
};

static int
apply_cmd(struct rxd_engine *e, void *arg)
{
	struct apply_arg *a = arg;
	struct rxd_qp_core *qp = a->qp;
	enum ibv_qp_state to = (a->mask & IBV_QP_STATE) ? a->attr->qp_state :
		qp->attr.qp_state;
	enum ibv_qp_state from = qp->attr.qp_state;

	(void)e;
	qp->attr = *a->attr;
	qp->attr.qp_state = to;
	if (to != from && to <= IBV_QPS_RTR) {   /* a new connection */
		qp->peer_sport = 0;
		qp->peer_lane = 0;
	}
	if (to == IBV_QPS_RESET) {
		drop_all(qp->sq);
		drop_all(qp->rq);
	}
	rxd_transport_modify(qp, from);
	rxd_qp_steer_modify(qp, from);
	return 0;
}

int
rxd_qp_apply(struct rxd_qp_core *qp, const struct ibv_qp_attr *attr,
	     int mask)
{
	struct apply_arg a = { .qp = qp, .attr = attr, .mask = mask };

	return rxd_engine_call(qp->engine, apply_cmd, &a);
}
