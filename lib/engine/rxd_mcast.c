/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-port multicast attachment table (see rxd_mcast.h).
 */
#include <errno.h>
#include <string.h>

#include "rxd_engine.h"
#include "rxd_mcast.h"
#include "rxd_net.h"
#include "rxd_transport.h"

_Static_assert(RXD_MCAST_GROUPS <= RXD_NET_GROUPS,
	       "lib/net must hold every group the engine attaches QPs to");

struct mcast_arg {
	struct rxd_qp_core *qp;
	const uint8_t *gid;
};

static struct rxd_engine_port *
port_of(struct rxd_engine *e, unsigned int port)
{
	unsigned int i;

	for (i = 0; i < e->n_ports; i++)
		if (e->ports[i].port->index == port)
			return &e->ports[i];
	return NULL;
}

/* The slot of a group with attached QPs, or -1. */
static int
group_index(const struct rxd_mcast_table *t, const uint8_t *gid)
{
	unsigned int i;

	for (i = 0; i < RXD_MCAST_GROUPS; i++)
		if (t->groups[i].n_qps != 0 &&
		    memcmp(t->groups[i].gid, gid, RXD_GID_LEN) == 0)
			return (int)i;
	return -1;
}

static struct rxd_mcast_group *
group_of(struct rxd_mcast_table *t, const uint8_t *gid)
{
	int i = group_index(t, gid);

	return i < 0 ? NULL : &t->groups[i];
}

/* A free slot, joined in lib/net; NULL when the table is full. */
static struct rxd_mcast_group *
new_group(struct rxd_engine_port *ep, const uint8_t *gid)
{
	unsigned int i;

	for (i = 0; i < RXD_MCAST_GROUPS; i++) {
		struct rxd_mcast_group *g = &ep->mcast.groups[i];

		if (g->n_qps != 0)
			continue;
		if (rxd_net_join(ep->net, gid) != 0)
			return NULL;
		memcpy(g->gid, gid, RXD_GID_LEN);
		return g;
	}
	return NULL;
}

static int
attach_cmd(struct rxd_engine *e, void *arg)
{
	struct mcast_arg *a = arg;
	struct rxd_engine_port *ep = port_of(e, a->qp->port);
	struct rxd_mcast_group *g;
	unsigned int i;

	if (ep == NULL)
		return -ENODEV;
	g = group_of(&ep->mcast, a->gid);
	if (g == NULL)
		g = new_group(ep, a->gid);
	if (g == NULL)
		return -ENOMEM;
	for (i = 0; i < g->n_qps; i++)
		if (g->qps[i] == a->qp)
			return -EALREADY;
	if (g->n_qps == RXD_MCAST_QP_ATTACH)
		return -ENOMEM;
	g->qps[g->n_qps++] = a->qp;
	return 0;
}

static int
detach_cmd(struct rxd_engine *e, void *arg)
{
	struct mcast_arg *a = arg;
	struct rxd_engine_port *ep = port_of(e, a->qp->port);
	struct rxd_mcast_group *g;
	unsigned int i;

	if (ep == NULL)
		return -ENODEV;
	g = group_of(&ep->mcast, a->gid);
	for (i = 0; g != NULL && i < g->n_qps; i++) {
		if (g->qps[i] != a->qp)
			continue;
		g->qps[i] = g->qps[--g->n_qps];
		if (g->n_qps == 0)
			rxd_net_leave(ep->net, a->gid);
		return 0;
	}
	return -ENOENT;
}

/* The engine of the first binding of a QP's port, which holds its groups;
 * NULL when the QP is on no engine. */
static struct rxd_engine *
groups_engine(const struct rxd_qp_core *qp)
{
	struct rxd_engine_port *ep;

	if (qp->engine == NULL)
		return NULL;
	ep = port_of(qp->engine, qp->port);
	return ep == NULL ? NULL : ep->first->engine;
}

int
rxd_mcast_attach(struct rxd_qp_core *qp, const uint8_t gid[RXD_GID_LEN])
{
	struct mcast_arg a = { .qp = qp, .gid = gid };
	struct rxd_engine *e = groups_engine(qp);

	if (e == NULL)
		return -ENODEV;
	/* groups deliver on the port's first engine: only its QPs may join
	 * (another engine's QP would have two engines taking its RQ) */
	if (qp->engine != e)
		return -EOPNOTSUPP;
	return rxd_engine_call(e, attach_cmd, &a);
}

int
rxd_mcast_detach(struct rxd_qp_core *qp, const uint8_t gid[RXD_GID_LEN])
{
	struct mcast_arg a = { .qp = qp, .gid = gid };
	struct rxd_engine *e = groups_engine(qp);

	return e == NULL ? -ENODEV : rxd_engine_call(e, detach_cmd, &a);
}

unsigned int
rxd_mcast_deliver(const struct rxd_mcast_table *t, struct rte_mbuf *m,
		  const struct rxd_pkt *pkt)
{
	int k = group_index(t, pkt->dgid);
	const struct rxd_mcast_group *g;
	unsigned int i;

	if (k < 0)
		return 0;
	g = &t->groups[k];
	for (i = 0; i < g->n_qps; i++) {
		/* each QP's receive frees m once: keep one reference back */
		rte_mbuf_refcnt_update(m, 1);
		rxd_transport_rx(g->qps[i], m, pkt);
	}
	return g->n_qps;
}
