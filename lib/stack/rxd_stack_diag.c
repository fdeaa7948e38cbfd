/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Diagnostic control calls of include/rxd/rxd.h: counters, fault injection
 * and capture, each applied on the engine that owns the port so that the
 * data path never sees a half-changed setting.
 */
#include <errno.h>
#include <string.h>

#include <rte_mempool.h>

#include "rxd_stack.h"

struct counters_arg {
	unsigned int port;
	struct rxd_port_counters *c;
};

static void
add_roce(struct rxd_port_counters *c, const struct rxd_roce_stats *r)
{
	unsigned int i;

	c->roce_rx += r->rx;
	c->roce_not_local += r->not_local;
	c->roce_unknown_qp += r->unknown_qp;
	c->roce_bad_peer += r->bad_peer;
	c->roce_bad_cnp += r->bad_cnp;
	c->qkey_viol += r->qkey_viol;
	c->other_dropped += r->other_dropped;
	c->roce_mcast_no_member += r->mcast_no_member;
	c->roce_ce += r->ce;
	c->roce_rx_fast += r->rx_fast;
	for (i = 0; i < RXD_WIRE_ERR_MAX; i++)
		c->wire_err[i] += r->wire_err[i];
}

/* A binding's receive counters, and its QP frames that waited for their
 * next hop (those dropped join lib/net's held_dropped). */
static void
add_binding(struct rxd_port_counters *c, const struct rxd_engine_port *ep)
{
	add_roce(c, &ep->roce);
	c->tx_waited += ep->addr_stats.waited;
	c->held_dropped += ep->addr_stats.dropped;
}

static void
add_net(struct rxd_port_counters *c, const struct rxd_net_stats *s)
{
	c->arp_rx = s->arp_rx;
	c->arp_tx = s->arp_tx;
	c->nd_rx = s->nd_rx;
	c->nd_tx = s->nd_tx;
	c->echo_answered = s->echo_requests_answered;
	c->echo_replies = s->echo_replies_rx;
	c->not_for_us = s->not_for_us;
	c->other_dropped += s->other_dropped;
	c->net_other_dropped = s->other_dropped;
	c->icmp_rx = s->icmp_rx;
	c->icmp6_rx = s->icmp6_rx;
	c->arp_answered = s->arp_requests_answered;
	c->nd_answered = s->nd_solicits_answered;
	c->neigh_confirmed = s->neigh_confirmed;
	c->neigh_ignored = s->neigh_ignored;
	c->arp_conflicts = s->arp_conflicts;
	c->neigh_evicted = s->neigh_evicted;
	c->reply_failed = s->reply_failed;
	c->malformed = s->malformed;
	c->resolve_failed = s->resolve_failed;
	c->held_dropped += s->held_dropped;
	c->no_route = s->no_route;
	c->igmp_rx = s->igmp_rx;
	c->mld_rx = s->mld_rx;
	c->group_queries = s->group_queries;
	c->group_ignored = s->group_ignored;
	c->group_reports_tx = s->group_reports_tx;
}

static void
add_faults(struct rxd_port_counters *c, const struct rxd_port *p)
{
	const struct rxd_fault_stats *rx = &p->fault_rx.stats;
	const struct rxd_fault_stats *tx = &p->fault_tx.stats;

	c->fault_rx_dropped = rx->dropped;
	c->fault_rx_duplicated = rx->duplicated;
	c->fault_rx_reordered = rx->reordered;
	c->fault_rx_corrupted = rx->corrupted;
	c->fault_rx_cut = rx->cut;
	c->fault_rx_opcode = rx->opcode_dropped;
	c->fault_tx_dropped = tx->dropped;
	c->fault_tx_duplicated = tx->duplicated;
	c->fault_tx_reordered = tx->reordered;
	c->fault_tx_corrupted = tx->corrupted;
	c->fault_tx_cut = tx->cut;
	c->fault_tx_opcode = tx->opcode_dropped;
}

static int
counters_cmd(struct rxd_engine *e, void *arg)
{
	struct counters_arg *a = arg;
	const struct rxd_port *p = &rxd_stk.ports[a->port];
	struct rxd_port_counters *c = a->c;
	struct rxd_port_stats st;
	unsigned int i, k;

	(void)e;
	memset(c, 0, sizeof(*c));
	rxd_port_stats_sum(p, &st);
	c->rx_pkts = st.rx_pkts;
	c->rx_bytes = st.rx_bytes;
	c->tx_pkts = st.tx_pkts;
	c->tx_bytes = st.tx_bytes;
	c->tx_full = st.tx_full;
	c->burst_faults = st.burst_faults;
	/* every engine serving the port (the others' counters read as
	 * they stand: they only grow) */
	for (k = 0; k < rxd_stk.n_engines; k++)
		for (i = 0; i < rxd_stk.engines[k].n_ports; i++)
			if (rxd_stk.engines[k].ports[i].port == p)
				add_binding(c, &rxd_stk.engines[k].ports[i]);
	add_net(c, &rxd_stk.net[a->port].stats);
	add_faults(c, p);
	c->mbufs_in_use = rte_mempool_in_use_count(p->pool);
	if (p->capture != NULL)
		rxd_capture_counts(p->capture, &c->capture_written,
				   &c->capture_lost);
	return 0;
}

int
rxd_port_counters(unsigned int port, struct rxd_port_counters *c)
{
	struct rxd_engine *e = rxd_stack_engine_of(port);
	struct counters_arg a = { .port = port, .c = c };

	if (e == NULL)
		return -1;
	return rxd_engine_call(e, counters_cmd, &a);
}

struct qp_stats_arg {
	struct rxd_qp_core *qp;
	struct rxd_qp_stats *s;
};

static int
qp_stats_cmd(struct rxd_engine *e, void *arg)
{
	struct qp_stats_arg *a = arg;

	(void)e;
	rxd_transport_counters(a->qp, a->s);
	return 0;
}

int
rxd_qp_stats(unsigned int port, uint32_t qpn, struct rxd_qp_stats *s)
{
	struct qp_stats_arg a = { .s = s };

	if (rxd_stack_engine_of(port) == NULL)
		return -1;
	a.qp = rxd_qp_lookup(port, qpn);
	if (a.qp == NULL)
		return rxd_stack_fail(ENOENT, "port %u has no QP %u", port, qpn);
	/* on the QP's own engine: its counters change only there */
	return rxd_engine_call(a.qp->engine, qp_stats_cmd, &a);
}

const char *
rxd_wire_err_name(unsigned int i)
{
	return rxd_wire_strerror((enum rxd_wire_err)i);
}

struct fault_arg {
	struct rxd_port *p;
	struct rxd_fault *f;
	const struct rxd_conf_fault *conf;
	uint64_t seed;
};

static int
fault_cmd(struct rxd_engine *e, void *arg)
{
	struct fault_arg *a = arg;

	(void)e;
	rxd_port_fault_set(a->p, a->f, a->conf, a->seed);
	return 0;
}

int
rxd_fault_set(unsigned int port, enum rxd_dir dir,
	      const struct rxd_conf_fault *fault, uint64_t seed)
{
	struct rxd_engine *e = rxd_stack_engine_of(port);
	struct fault_arg a = { .conf = fault, .seed = seed };

	if (e == NULL)
		return -1;
	if (fault->drop < 0 || fault->drop > 1 || fault->dup < 0 ||
	    fault->dup > 1 || fault->reorder < 0 || fault->reorder > 1 ||
	    fault->corrupt < 0 || fault->corrupt > 1 ||
	    fault->drop_opcode > 255)
		return rxd_stack_fail(EINVAL, "fault rates must be 0..1 and "
				      "drop_opcode at most 255");
	if (fault->only_qpn > RXD_QPN_MASK)
		return rxd_stack_fail(EINVAL, "fault only_qpn %u is not a "
				      "24-bit QP number", fault->only_qpn);
	a.p = &rxd_stk.ports[port];
	a.f = dir == RXD_DIR_RX ? &rxd_stk.ports[port].fault_rx :
		&rxd_stk.ports[port].fault_tx;
	return rxd_engine_call(e, fault_cmd, &a);
}

struct capture_arg {
	struct rxd_port *p;
	struct rxd_capture *c;
};

static int
capture_swap_cmd(struct rxd_engine *e, void *arg)
{
	struct capture_arg *a = arg;
	struct rxd_capture *old = a->p->capture;

	(void)e;
	a->p->capture = a->c;
	a->c = old;
	return 0;
}

static int
capture_swap(unsigned int port, struct rxd_capture *c)
{
	struct rxd_engine *e = rxd_stack_engine_of(port);
	struct capture_arg a = { .c = c };

	if (e == NULL)
		return -1;
	a.p = &rxd_stk.ports[port];
	rxd_engine_call(e, capture_swap_cmd, &a);
	rxd_capture_close(a.c);
	return 0;
}

int
rxd_capture_start(unsigned int port, const char *path)
{
	char err[256];
	struct rxd_capture *c;

	if (rxd_stack_engine_of(port) == NULL)
		return -1;
	c = rxd_capture_open(path, rxd_stk.ports[port].socket, err,
			     sizeof(err));
	if (c == NULL)
		return rxd_stack_fail(EIO, "%s", err);
	return capture_swap(port, c);
}

int
rxd_capture_stop(unsigned int port)
{
	return capture_swap(port, NULL);
}
