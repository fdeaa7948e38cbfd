/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine loop (see rxd_engine.h) and its idle back-off.
 */
#include <errno.h>
#include <string.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "rxd_engine.h"

RTE_LOG_REGISTER(rxd_logtype_engine, rxd.engine, NOTICE);

#define CTRL_RING_SIZE 256
#define TICK_US 1000
#define LINK_POLL_TICKS 100

struct engine_cmd {
	rxd_engine_fn fn;
	void *arg;
	int rc;
	volatile bool done;
	bool posted;        /* nobody waits: the engine frees it */
};

int
rxd_engine_init(struct rxd_engine *e, unsigned int id, unsigned int lcore,
		const struct rxd_conf *conf)
{
	char name[RTE_RING_NAMESIZE];

	memset(e, 0, sizeof(*e));
	e->id = id;
	e->lcore = lcore;
	rte_spinlock_recursive_init(&e->inline_lock);
	e->idle = conf->idle;
	e->idle_spins = conf->idle_spins;
	e->idle_sleep_max_us = conf->idle_sleep_max_us;
	e->tick_tsc = rte_get_tsc_hz() / 1000000 * TICK_US;
	e->last_now = rte_rdtsc();
	snprintf(name, sizeof(name), "rxd_ctrl%u", id);
	e->ctrl = rte_ring_create(name, CTRL_RING_SIZE,
				  (int)rte_lcore_to_socket_id(lcore),
				  RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rxd_db%u", id);
	e->doorbells = rte_ring_create(name, rte_align32pow2(conf->max_qp + 1),
				       (int)rte_lcore_to_socket_id(lcore),
				       RING_F_SC_DEQ);
	return e->ctrl == NULL || e->doorbells == NULL ? -rte_errno : 0;
}

void
rxd_engine_fini(struct rxd_engine *e)
{
	unsigned int i;

	for (i = 0; i < e->n_ports; i++) {
		rxd_tx_addr_fini(&e->ports[i]);
		rxd_tx_lanes_fini(&e->ports[i]);
	}
	rxd_handoff_fini(e);
	rte_ring_free(e->ctrl);
	rte_ring_free(e->doorbells);
	e->ctrl = NULL;
	e->doorbells = NULL;
}

/* lib/net's transmit: its own frames go on lane 0 (QPs' frames are
 * addressed by rxd_tx_addr.h and never pass through it). */
static void
net_tx(void *ctx, struct rte_mbuf *m)
{
	rxd_tx_lane_put(ctx, 0, m);
}

int
rxd_engine_add_port(struct rxd_engine *e, struct rxd_port *port,
		    struct rxd_net_port *net, uint16_t shard,
		    uint16_t n_shards, struct rxd_engine_port *first,
		    const struct rxd_engine_host *host)
{
	struct rxd_engine_port *ep;

	if (e->n_ports >= RXD_MAX_PORTS)
		return -ENOSPC;
	ep = &e->ports[e->n_ports++];
	ep->port = port;
	ep->net = net;
	ep->engine = e;
	ep->host = *host;
	ep->first = first != NULL ? first : ep;
	ep->shard = shard;
	ep->n_shards = n_shards;
	if (rxd_tx_lanes_init(ep) != 0 || rxd_tx_addr_init(ep) != 0) {
		rxd_tx_lanes_fini(ep);
		e->n_ports--;
		return -ENOMEM;
	}
	if (first == NULL) {   /* lib/net's own frames leave from shard 0 */
		net->tx = net_tx;
		net->tx_ctx = ep;
	}
	return 0;
}

void
rxd_engine_flush(struct rxd_engine *e)
{
	unsigned int i;

	for (i = 0; i < e->n_ports; i++)
		rxd_tx_lanes_flush(&e->ports[i]);
}

/*
 * A connected QP hears only its peer: at the address it was given, and
 * from the UDP source port its first frame came from (a peer keeps one
 * per QP, as RoCE devices do: it is the flow's ECMP entropy).
 */
static bool
from_peer(const struct rxd_engine_port *ep, const struct rxd_qp_core *qp,
	  const struct rxd_pkt *pkt)
{
	unsigned int sgid = qp->attr.ah_attr.grh.sgid_index;

	if (qp->type == IBV_QPT_UD)
		return true;
	if (memcmp(pkt->sgid, qp->attr.ah_attr.grh.dgid.raw, RXD_GID_LEN))
		return false;
	/* a CNP may also come from port 0 (ConnectX sends it so) */
	if (qp->peer_sport != 0 && pkt->udp_sport != qp->peer_sport &&
	    !(pkt->opcode == RXD_OP_CNP && pkt->udp_sport == 0))
		return false;
	return sgid < ep->net->n_gids &&
		memcmp(pkt->dgid, ep->net->gids[sgid], RXD_GID_LEN) == 0;
}

/*
 * A CNP a QP may act on: to a connected QP that is receiving (RTR, RTS,
 * SQD), with the BECN bit and the default P_Key, as ConnectX and rxd
 * send them.  Anything else would let a forged frame (which may claim
 * UDP source port 0, from_peer()) slow a QP down or reach a QP DCQCN
 * does not run on.
 */
static bool
cnp_ok(const struct rxd_qp_core *qp, const struct rxd_pkt *pkt)
{
	enum ibv_qp_state st = qp->attr.qp_state;

	return qp->type != IBV_QPT_UD && pkt->becn &&
		(pkt->pkey & 0x7fff) == (RXD_DEFAULT_PKEY & 0x7fff) &&
		(st == IBV_QPS_RTR || st == IBV_QPS_RTS || st == IBV_QPS_SQD);
}

/*
 * A RoCE frame refused for the reason counted by *why, unless its check
 * was deferred (RXD_PARSE_DEFER_ICRC) and it is corrupt: then that is the
 * reason.  Consumes m.
 */
static void
roce_refuse(struct rxd_engine_port *ep, struct rte_mbuf *m,
	    const struct rxd_pkt *pkt, uint64_t *why)
{
	if (pkt->icrc_deferred &&
	    !rxd_wire_icrc_ok(rte_pktmbuf_mtod(m, const uint8_t *), pkt))
		why = &ep->roce.wire_err[RXD_WIRE_ICRC];
	(*why)++;
	rte_pktmbuf_free(m);
}

/* A UD SEND to a group: every attached QP takes it (or none is there). */
static void
mcast_input(struct rxd_engine_port *ep, struct rte_mbuf *m,
	    const struct rxd_pkt *pkt)
{
	if (ep->first != ep) {   /* the groups are the first engine's */
		rxd_handoff_rx(ep, ep->first->engine, m);
		return;
	}
	if (rxd_mcast_deliver(&ep->mcast, m, pkt) == 0) {
		roce_refuse(ep, m, pkt, &ep->roce.mcast_no_member);
		return;
	}
	ep->roce.rx++;
	rte_pktmbuf_free(m);
}

static void
roce_input(struct rxd_engine_port *ep, struct rte_mbuf *m,
	   const struct rxd_pkt *pkt, uint16_t rxq)
{
	struct rxd_qp_core *qp;

	if ((pkt->tos & RXD_ECN_MASK) == RXD_ECN_CE)
		ep->roce.ce++;
	if (pkt->dqpn == RXD_QPN_MCAST && rxd_gid_is_mcast(pkt->dgid) &&
	    rxd_net_l2_accept(ep->net, pkt)) {
		mcast_input(ep, m, pkt);
		return;
	}
	if (!rxd_net_l2_accept(ep->net, pkt) ||
	    !rxd_net_is_local(ep->net, pkt->dgid)) {
		roce_refuse(ep, m, pkt, &ep->roce.not_local);
		return;
	}
	qp = rxd_engine_qp(ep, pkt->dqpn);
	if (qp == NULL) {
		roce_refuse(ep, m, pkt, &ep->roce.unknown_qp);
		return;
	}
	if (qp->engine != ep->engine) {   /* another engine's QP */
		rxd_handoff_rx(ep, qp->engine, m);
		return;
	}
	if (!from_peer(ep, qp, pkt)) {
		roce_refuse(ep, m, pkt, &ep->roce.bad_peer);
		return;
	}
	if (pkt->opcode == RXD_OP_CNP && !cnp_ok(qp, pkt)) {
		roce_refuse(ep, m, pkt, &ep->roce.bad_cnp);
		return;
	}
	if (!rxd_transport_rx(qp, m, pkt)) {
		ep->roce.wire_err[RXD_WIRE_ICRC]++;
		return;
	}
	ep->roce.rx++;
	if (qp->peer_sport == 0 && qp->type != IBV_QPT_UD &&
	    pkt->opcode != RXD_OP_CNP)
		qp->peer_sport = pkt->udp_sport;
	if (ep->n_lanes > 1)
		rxd_tx_lane_learn(ep, qp, rxq);
	if (qp->type == IBV_QPT_RC)
		ep->fast_qp = qp;
}

/*
 * The frame the last RC QP served expects next goes straight to it
 * (rxd_transport_rx_expected()).  @return false if it takes the full
 * path.
 */
static bool
fast_input(struct rxd_engine_port *ep, struct rte_mbuf *m,
	   unsigned int flags)
{
	struct rxd_qp_core *qp = ep->fast_qp;
	struct rxd_pkt pkt;

	/* a QP being destroyed leaves the table before the engine */
	if (!rxd_transport_rx_expected(qp, m, flags, &pkt) ||
	    rxd_engine_qp(ep, qp->qpn) != qp)
		return false;
	if (!rxd_transport_rx(qp, m, &pkt)) {
		ep->roce.wire_err[RXD_WIRE_ICRC]++;
		return true;
	}
	ep->roce.rx++;
	ep->roce.rx_fast++;
	return true;
}

void
rxd_engine_forget_qp(struct rxd_engine *e, const struct rxd_qp_core *qp)
{
	unsigned int i;

	for (i = 0; i < e->n_ports; i++)
		if (e->ports[i].fast_qp == qp)
			e->ports[i].fast_qp = NULL;
}

void
rxd_engine_classify(struct rxd_engine_port *ep, struct rte_mbuf *m,
		    uint16_t rxq)
{
	struct rxd_pkt pkt;
	enum rxd_wire_err err;
	unsigned int flags;

	if (rte_pktmbuf_is_contiguous(m) == 0 && rte_pktmbuf_linearize(m)) {
		ep->roce.wire_err[RXD_WIRE_TRUNCATED]++;
		rte_pktmbuf_free(m);
		return;
	}
	flags = RXD_PARSE_DEFER_ICRC | rxd_port_rx_parse_flags(m->ol_flags);
	if (ep->fast_qp != NULL && fast_input(ep, m, flags))
		return;
	err = rxd_wire_parse(rte_pktmbuf_mtod(m, const uint8_t *),
			     rte_pktmbuf_data_len(m), &pkt, flags);
	if (err != RXD_WIRE_OK) {
		ep->roce.wire_err[err]++;
		rte_pktmbuf_free(m);
		return;
	}
	switch (pkt.kind) {
	case RXD_FRAME_ROCE:
		roce_input(ep, m, &pkt, rxq);
		break;
	case RXD_FRAME_ARP:
	case RXD_FRAME_ICMP4:
	case RXD_FRAME_ICMP6:
	case RXD_FRAME_IGMP:
		if (ep->first != ep)
			rxd_handoff_rx(ep, ep->first->engine, m);
		else
			rxd_net_input(ep->net, m, &pkt);
		break;
	default:
		ep->roce.other_dropped++;
		rte_pktmbuf_free(m);
	}
}

static unsigned int
rx_queue(struct rxd_engine_port *ep, uint16_t q)
{
	struct rte_mbuf *pkts[2 * RXD_RX_BURST];
	uint16_t n, i;

	n = rxd_port_rx(ep->port, q, pkts, 2 * RXD_RX_BURST);
	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		rxd_engine_classify(ep, pkts[i], q);
	}
	return n;
}

/* Every receive queue of this share: RSS may put a flow on any. */
static unsigned int
rx_port(struct rxd_engine_port *ep)
{
	unsigned int work = 0;
	uint16_t q;

	for (q = ep->shard; q < ep->port->nb_rxq; q += ep->n_shards)
		work += rx_queue(ep, q);
	return work;
}

static unsigned int
run_commands(struct rxd_engine *e)
{
	struct engine_cmd *cmd;
	unsigned int n = 0;

	while (rte_ring_sc_dequeue(e->ctrl, (void **)&cmd) == 0) {
		cmd->rc = cmd->fn(e, cmd->arg);
		if (cmd->posted)
			free(cmd);
		else
			__atomic_store_n(&cmd->done, true, __ATOMIC_RELEASE);
		n++;
	}
	e->stats.commands += n;
	return n;
}

/*
 * Link state is polled every LINK_POLL_TICKS; coming up announces us, a
 * memif client that is down dials its server again.
 */
static void
link_poll(struct rxd_engine_port *ep)
{
	if (!rxd_port_link_poll(ep->port)) {
		rxd_port_redial(ep->port);
		return;
	}
	rte_log(RTE_LOG_NOTICE, rxd_logtype_engine, "rxd: port %u link %s\n",
		ep->port->index, ep->port->link_up ? "up" : "down");
	if (ep->port->link_up)
		rxd_net_announce(ep->net);
	if (ep->host.port_event != NULL)
		ep->host.port_event(ep->port->index, ep->port->link_up);
}

static void
tick(struct rxd_engine *e, uint64_t now)
{
	bool poll_link = ++e->ticks % LINK_POLL_TICKS == 0;
	unsigned int i;

	for (i = 0; i < e->n_ports; i++) {
		struct rxd_engine_port *ep = &e->ports[i];

		rxd_port_tick(ep->port, ep->lanes[0].txq, now);
		if (ep->first != ep)   /* host state is the first engine's */
			continue;
		rxd_net_timer(ep->net, now);
		if (poll_link)
			link_poll(ep);
	}
	rxd_qp_keepalive_sweep(e, now);
}

/* Run the send queues that rang; a QP with work left rings again.  A QP
 * held only by its pacer is not work: the engine may back off (at most
 * idle_sleep_max_us at a time, within what the bucket's depth absorbs)
 * instead of spinning a core until its tokens come.  @return QPs that
 * rang with something to do. */
static unsigned int
run_doorbells(struct rxd_engine *e)
{
	struct rxd_qp_core *qps[RXD_RX_BURST];
	unsigned int n, i, work = 0;
	enum rxd_sq_left left;

	n = rte_ring_sc_dequeue_burst(e->doorbells, (void **)qps,
				      RXD_RX_BURST, NULL);
	for (i = 0; i < n; i++) {
		/* An exchange, not a store: it orders the clear before the
		 * SQ reads, so a post that saw the doorbell still set is
		 * fetched now (a store could pass those loads on x86). */
		__atomic_exchange_n(&qps[i]->doorbell, 0, __ATOMIC_ACQ_REL);
		left = rxd_transport_sq(qps[i]);
		if (left != RXD_SQ_DONE)
			rxd_qp_doorbell(qps[i]);
		work += left != RXD_SQ_PACED;
	}
	return work;
}

unsigned int
rxd_engine_poll(struct rxd_engine *e)
{
	unsigned int i, work = 0;
	uint64_t now;

	/* one clock reading a pass: the pacers, CQE stamps, timers, tick;
	 * the cycles since the last reading (that pass and any back-off
	 * after it) count as that pass was: busy or idle */
	now = rte_rdtsc();
	e->timers.now = now;
	if (e->last_busy)
		e->busy_cycles += now - e->last_now;
	else
		e->idle_cycles += now - e->last_now;
	e->last_now = now;
	for (i = 0; i < e->n_ports; i++)
		work += rx_port(&e->ports[i]);
	if (e->handoff.n_out_ids + e->handoff.n_in_ids != 0) {
		rxd_handoff_flush(e);
		work += rxd_handoff_receive(e);
	}
	work += run_commands(e);
	work += run_doorbells(e);
	if (e->timers.head != NULL)
		rxd_transport_timers(&e->timers, now);
	if (now >= e->next_tick) {
		e->next_tick = now + e->tick_tsc;
		tick(e, now);
	}
	/* Frames the PMD takes are work; frames it keeps refusing (the
	 * link is down, the peer is gone) are not: the engine backs off. */
	if (e->handoff.n_out_ids != 0)
		rxd_handoff_flush(e);
	for (i = 0; i < e->n_ports; i++) {
		if (e->ports[i].n_wait != 0)
			work += rxd_tx_addr_drain(&e->ports[i]);
		work += rxd_tx_lanes_flush(&e->ports[i]);
	}
	e->stats.loops++;
	if (work)
		e->stats.busy_loops++;
	e->last_busy = work != 0;
	return work;
}

/* Back off when idle: spin, pause, or sleep doubling up to the maximum. */
static void
idle(struct rxd_engine *e, unsigned int work)
{
	if (work) {
		e->idle_count = 0;
		e->sleep_us = 0;
		return;
	}
	if (e->idle == RXD_IDLE_SPIN || ++e->idle_count < e->idle_spins)
		return;
	if (e->idle == RXD_IDLE_PAUSE) {
		rte_pause();
		return;
	}
	e->sleep_us = e->sleep_us ? RTE_MIN(e->sleep_us * 2,
		e->idle_sleep_max_us) : 1;
	e->stats.sleeps++;
	usleep(e->sleep_us);
}

int
rxd_engine_main(void *arg)
{
	struct rxd_engine *e = arg;

	rte_log(RTE_LOG_INFO, rxd_logtype_engine,
		"rxd: engine %u running on lcore %u with %u port(s)\n",
		e->id, rte_lcore_id(), e->n_ports);
	e->last_now = rte_rdtsc();   /* cycles count from the launch */
	__atomic_store_n(&e->running, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&e->stop, __ATOMIC_ACQUIRE))
		idle(e, rxd_engine_poll(e));
	run_commands(e);
	rxd_engine_flush(e);     /* what the last pass queued still leaves */
	__atomic_store_n(&e->running, false, __ATOMIC_RELEASE);
	return 0;
}

void
rxd_engine_stop(struct rxd_engine *e)
{
	__atomic_store_n(&e->stop, true, __ATOMIC_RELEASE);
}

unsigned int
rxd_engine_poll_inline(struct rxd_engine *e)
{
	unsigned int work;

	if (!rte_spinlock_recursive_trylock(&e->inline_lock))
		return 0;
	work = rxd_engine_poll(e);
	rte_spinlock_recursive_unlock(&e->inline_lock);
	return work;
}

/* A command for an engine no lcore runs: run it here, between passes. */
static int
call_inline(struct rxd_engine *e, rxd_engine_fn fn, void *arg)
{
	int rc;

	rte_spinlock_recursive_lock(&e->inline_lock);
	rc = fn(e, arg);
	rte_spinlock_recursive_unlock(&e->inline_lock);
	return rc;
}

int
rxd_engine_post(struct rxd_engine *e, rxd_engine_fn fn, void *arg)
{
	struct engine_cmd *cmd;

	if (!__atomic_load_n(&e->running, __ATOMIC_ACQUIRE) ||
	    rte_lcore_id() == e->lcore)
		return rxd_engine_call(e, fn, arg);
	cmd = calloc(1, sizeof(*cmd));
	if (cmd == NULL)
		return -ENOMEM;
	cmd->fn = fn;
	cmd->arg = arg;
	cmd->posted = true;
	if (rte_ring_mp_enqueue(e->ctrl, cmd) != 0) {
		free(cmd);
		return -ENOBUFS;
	}
	return 0;
}

int
rxd_engine_call(struct rxd_engine *e, rxd_engine_fn fn, void *arg)
{
	struct engine_cmd cmd = { .fn = fn, .arg = arg };
	unsigned int spins = 0;

	if (!__atomic_load_n(&e->running, __ATOMIC_ACQUIRE))
		return call_inline(e, fn, arg);
	if (rte_lcore_id() == e->lcore)   /* from the engine's own pass */
		return fn(e, arg);
	while (rte_ring_mp_enqueue(e->ctrl, &cmd) != 0)
		sched_yield();
	while (!__atomic_load_n(&cmd.done, __ATOMIC_ACQUIRE)) {
		if (++spins < 1000)
			rte_pause();
		else
			sched_yield();
	}
	return cmd.rc;
}
