/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The life cycle of a QP's transport state, whatever its type: allocation
 * sized for the type, binding to the engine, modify (the header template
 * at RTR, PSNs and timeout at RTS; RC's and UC's connection in rxd_rc.c),
 * dispatch of received frames to UD, UC, the completer or the responder,
 * the move to ERR and its flushes, CQ delivery, counters.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "rxd_rc.h"

int
rxd_transport_init(struct rxd_qp_core *qp, uint32_t sq_size)
{
	struct rxd_tqp_sizes s;
	struct rxd_tqp *t;

	rxd_tqp_sizes(qp->type, sq_size, &s);
	t = calloc(1, s.state);
	if (t == NULL)
		return -1;
	t->win_size = s.win;
	t->win = calloc(t->win_size, sizeof(*t->win));
	if (t->win == NULL) {
		free(t);
		return -1;
	}
	if (s.res != 0) {
		struct rxd_rc *rc = rxd_rc_of(t);

		rc->n_res = s.res;
		rc->res = calloc(rc->n_res, sizeof(*rc->res));
		if (rc->res == NULL) {
			free(t->win);
			free(t);
			return -1;
		}
	}
	if (rxd_qp_connected(qp))
		t->hint = &rxd_rc_of(t)->peer;
	t->qp = qp;
	qp->transport = t;
	return 0;
}

void
rxd_transport_fini(struct rxd_qp_core *qp)
{
	struct rxd_tqp *t = rxd_tqp(qp);

	if (t == NULL)
		return;
	if (rxd_qp_connected(qp))
		free(rxd_rc_of(t)->res);
	free(t->win);
	free(t);
	qp->transport = NULL;
}

void
rxd_transport_bind(struct rxd_qp_core *qp, const struct rxd_xmit *x,
		   struct rxd_timers *timers)
{
	struct rxd_tqp *t = rxd_tqp(qp);

	t->x = *x;
	t->timers = timers;
	rxd_cc_bind(t);
	if (rxd_qp_connected(qp))
		rxd_rtt_drop(rxd_rc_of(t));   /* RC: the probe, with the law */
}

void
rxd_transport_unbind(struct rxd_qp_core *qp)
{
	struct rxd_tqp *t = rxd_tqp(qp);

	/* the peer's data was accepted (its completion may be what made
	 * the program destroy the QP): the ACK it is owed still goes */
	if (rxd_qp_connected(qp))
		rxd_tx_ack_flush(rxd_rc_of(t));
	if (t->on_timer_list)
		rxd_timer_unlink(t);
	t->timers = NULL;
}

/* Header fields common to every frame of the QP (UD: each WR adds its
 * own address, rxd_ud_fill()). */
static void
build_template(struct rxd_tqp *t)
{
	const struct ibv_qp_attr *a = &t->qp->attr;
	struct rxd_pkt *p = &t->tmpl;

	memset(p, 0, sizeof(*p));
	memcpy(p->smac, t->x.smac, RXD_ETH_ALEN);
	if (t->x.vlan) {
		p->vlan_count = 1;
		p->vlan_tci[0] = t->x.vlan;
	}
	memcpy(p->dgid, a->ah_attr.grh.dgid.raw, RXD_GID_LEN);
	if (t->x.gid(t->qp->port, a->ah_attr.grh.sgid_index, p->sgid) != 0)
		memset(p->sgid, 0, RXD_GID_LEN);
	p->ip_ver = rxd_gid_is_v4(p->dgid) ? 4 : 6;
	p->tos = t->x.ecn ? rxd_tos_with_ecn(a->ah_attr.grh.traffic_class,
					     RXD_ECN_ECT0) :
		a->ah_attr.grh.traffic_class;
	p->ttl = a->ah_attr.grh.hop_limit ? a->ah_attr.grh.hop_limit : 64;
	p->flow_label = a->ah_attr.grh.flow_label;
	p->ip_df = true;
	p->udp_sport = t->sport;
	p->pkey = RXD_DEFAULT_PKEY;
	p->dqpn = a->dest_qp_num;
	/* UD has no path MTU: a message is one packet, checked at post */
	t->mtu = t->qp->type == IBV_QPT_UD ? RXD_MAX_PMTU :
		128u << a->path_mtu;
}

static void
reset(struct rxd_tqp *t)
{
	if (rxd_qp_connected(t->qp))
		rxd_rc_reset(rxd_rc_of(t));
	t->last_wqe_sent = false;
	t->head = t->cur = t->tail = 0;
	t->unsignaled = 0;
	t->deadline = t->rnr_until = 0;
}

void
rxd_transport_modify(struct rxd_qp_core *qp, enum ibv_qp_state from)
{
	struct rxd_tqp *t = rxd_tqp(qp);
	const struct ibv_qp_attr *a = &qp->attr;

	switch (a->qp_state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
		reset(t);
		break;
	case IBV_QPS_RTR:
		/* UDP source port: ECMP entropy, chosen once per connection
		 * (a modify within RTR keeps it: the peer hears this QP only
		 * from it) as Soft-RoCE chooses it, so that a receiver knowing
		 * both QPNs can steer the connection's frames to the queue of
		 * the engine owning its QP (rxd_sport.c, rxd_steer.c) */
		if (from != IBV_QPS_RTR) {
			t->sport = qp->type == IBV_QPT_UD ?
				rxd_sport_datagram(qp->qpn) :
				rxd_sport_connected(a->ah_attr.grh.flow_label,
						    qp->qpn, a->dest_qp_num);
			rxd_cc_reset(t);
		}
		build_template(t);
		break;
	case IBV_QPS_SQD:
		t->draining = a->en_sqd_async_notify;
		rxd_tqp_check_drained(t);
		break;
	case IBV_QPS_RTS:
		t->draining = false;
		if (from == IBV_QPS_RTR) {
			t->npsn = a->sq_psn;
			t->snd_nxt = a->sq_psn;
		}
		t->rto = a->timeout ? (rte_get_tsc_hz() * 4096ull / 1000000000ull)
			<< a->timeout : 0;
		break;
	case IBV_QPS_ERR:
		rxd_tqp_to_error(t);
		break;
	default:
		break;
	}
	if (rxd_qp_connected(qp))
		rxd_rc_modify(rxd_rc_of(t), from);
	if (a->qp_state == IBV_QPS_RTS)
		rxd_qp_doorbell(qp);
}

/* SQD: once nothing is outstanding, say so (once per RTS->SQD). */
void
rxd_tqp_check_drained(struct rxd_tqp *t)
{
	if (!t->draining || t->head != t->tail)
		return;
	t->draining = false;
	t->qp->async(t->qp, IBV_EVENT_SQ_DRAINED);
}

/* The BTH service a QP of each type accepts. */
static const uint8_t service_of[] = {
	[IBV_QPT_RC] = RXD_SVC_RC,
	[IBV_QPT_UC] = RXD_SVC_UC,
	[IBV_QPT_UD] = RXD_SVC_UD,
};

bool
rxd_transport_rx(struct rxd_qp_core *qp, struct rte_mbuf *m,
		 const struct rxd_pkt *pkt)
{
	struct rxd_tqp *t = rxd_tqp(qp);
	enum ibv_qp_state st = qp->attr.qp_state;
	bool ok = true;

	/* congestion: a CNP slows the QP down; a CE mark on anything else
	 * is answered with one (never a CNP with a CNP) */
	if (qp->type != IBV_QPT_UD && st >= IBV_QPS_RTR && st != IBV_QPS_ERR) {
		if (pkt->opcode == RXD_OP_CNP) {
			rxd_cc_cnp(t);
			t->cnt.rx_pkts++;
			rte_pktmbuf_free(m);
			return true;
		}
		if ((pkt->tos & RXD_ECN_MASK) == RXD_ECN_CE)
			rxd_cc_ce(t);
	}
	if (pkt->op->service != service_of[qp->type] ||
	    (pkt->pkey & 0x7fff) != (RXD_DEFAULT_PKEY & 0x7fff)) {
		ok = rxd_icrc_ok(m, pkt);
		t->cnt.bad_addr += ok;
	} else if (qp->type == IBV_QPT_UD) {
		if (st == IBV_QPS_RTR || st == IBV_QPS_RTS || st == IBV_QPS_SQD)
			rxd_ud_rx(t, m, pkt);
	} else if (qp->type == IBV_QPT_UC) {
		if (st == IBV_QPS_RTR || st == IBV_QPS_RTS || st == IBV_QPS_SQD)
			rxd_resp_uc_rx(rxd_rc_of(t), m, pkt);
	} else if (pkt->op->flags & RXD_OPF_RESP) {
		struct rxd_rc *rc = rxd_rc_of(t);

		if (st == IBV_QPS_RTS || st == IBV_QPS_SQD)
			ok = rxd_comp_rx(rc, m, pkt);
		else
			ok = rxd_icrc_ok(m, pkt);
		if (ok && !rc->ackt.armed)
			rxd_rx_tmpl_learn(&rc->ackt, rte_pktmbuf_mtod(m,
					  const uint8_t *), pkt);
	} else {
		struct rxd_rc *rc = rxd_rc_of(t);

		ok = rxd_resp_rx(rc, m, pkt);
		if (ok && !rc->rxt.armed)
			rxd_rx_tmpl_learn(&rc->rxt, rte_pktmbuf_mtod(m,
					  const uint8_t *), pkt);
	}
	t->cnt.rx_pkts += ok;
	rte_pktmbuf_free(m);
	return ok;
}

/* Every WQE still in the window fails with a flush error. */
static void
flush_window(struct rxd_tqp *t)
{
	struct ibv_wc wc;
	uint32_t i;

	for (i = t->head; i != t->tail; i++) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = rxd_win(t, i)->w.wr_id;
		wc.status = IBV_WC_WR_FLUSH_ERR;
		wc.qp_num = t->qp->qpn;
		rxd_tqp_complete(t->qp, t->qp->scq, &wc, 1, false);
	}
	t->head = t->cur = t->tail;
}

/* A receive WQE the responder had begun fails with a flush error. */
static void
flush_begun_receive(struct rxd_rc *rc)
{
	struct rxd_qp_core *qp = rc->t.qp;
	struct ibv_wc wc;

	if (!rc->have_rwqe)
		return;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rc->rwqe.wr_id;
	wc.status = IBV_WC_WR_FLUSH_ERR;
	wc.opcode = IBV_WC_RECV;
	wc.qp_num = qp->qpn;
	rxd_tqp_complete(qp, qp->rcq, &wc, 0, false);
	rc->have_rwqe = false;
}

void
rxd_tqp_to_error(struct rxd_tqp *t)
{
	struct rxd_qp_core *qp = t->qp;

	/* an SRQ user hears that it will take no further receive */
	if (qp->srq != NULL && !t->last_wqe_sent) {
		t->last_wqe_sent = true;
		qp->async(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
	}
	__atomic_store_n(&qp->attr.qp_state, IBV_QPS_ERR, __ATOMIC_RELEASE);
	flush_window(t);
	if (rxd_qp_connected(qp))
		flush_begun_receive(rxd_rc_of(t));
	rxd_qp_flush(qp);
	t->deadline = t->rnr_until = 0;
}

void
rxd_tqp_complete(struct rxd_qp_core *qp, struct rxd_cq_core *cq,
		 const struct ibv_wc *wc, uint32_t retired, bool solicited)
{
	struct rxd_cqe c;

	c.wc = *wc;
	/* a CQ whose owner reads timestamps gets a TSC read per completion:
	 * the pass's clock can be older than the WR's post; the others get
	 * the pass's clock, which costs nothing */
	c.ts = cq->stamped ? rte_rdtsc() : rxd_tqp_clock(rxd_tqp(qp));
	c.sq_retired = retired;
	c.pad = 0;
	rxd_cq_complete(cq, &c, solicited);
}

void
rxd_transport_counters(const struct rxd_qp_core *qp,
		       struct rxd_qp_stats *c)
{
	const struct rxd_tqp *t = rxd_tqp(qp);

	*c = t->cnt;
	c->rate_kbps = (uint64_t)(rxd_cc_rate(t) * 1000);
	c->rate_cuts = rxd_cc_cuts(t);
}
