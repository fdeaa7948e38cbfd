/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC transport's QP life cycle on the engine: state set up by modify
 * (header template at RTR, PSNs and timers at RTS), dispatch of received
 * packets to the completer or the responder, timers, the move to ERR, and
 * the helpers every part uses (scatter/gather copies, completions).
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "rxd_copy.h"
#include "rxd_rc.h"

int
rxd_transport_init(struct rxd_qp_core *qp, uint32_t sq_size)
{
	struct rxd_rc *rc = calloc(1, sizeof(*rc));

	if (rc == NULL)
		return -1;
	rc->win_size = sq_size ? sq_size : 1;
	rc->win = calloc(rc->win_size, sizeof(*rc->win));
	rc->n_res = RXD_MAX_RD_ATOMIC;
	rc->res = calloc(rc->n_res, sizeof(*rc->res));
	if (rc->win == NULL || rc->res == NULL) {
		free(rc->win);
		free(rc->res);
		free(rc);
		return -1;
	}
	rc->qp = qp;
	qp->transport = rc;
	return 0;
}

void
rxd_transport_fini(struct rxd_qp_core *qp)
{
	struct rxd_rc *rc = rxd_rc(qp);

	if (rc == NULL)
		return;
	free(rc->win);
	free(rc->res);
	free(rc);
	qp->transport = NULL;
}

void
rxd_transport_bind(struct rxd_qp_core *qp, const struct rxd_xmit *x,
		   struct rxd_timers *t)
{
	rxd_rc(qp)->x = *x;
	rxd_rc(qp)->timers = t;
	rxd_cc_bind(rxd_rc(qp));
}

static void
timer_unlink(struct rxd_rc *rc)
{
	struct rxd_rc **pp;

	for (pp = &rc->timers->head; *pp != NULL; pp = &(*pp)->next_timer)
		if (*pp == rc) {
			*pp = rc->next_timer;
			break;
		}
	rc->on_timer_list = false;
}

void
rxd_transport_unbind(struct rxd_qp_core *qp)
{
	struct rxd_rc *rc = rxd_rc(qp);

	/* the peer's data was accepted (its completion may be what made
	 * the program destroy the QP): the ACK it is owed still goes */
	rxd_tx_ack_flush(rc);
	if (rc->on_timer_list)
		timer_unlink(rc);
	rc->timers = NULL;
}

void
rxd_rc_timer_arm(struct rxd_rc *rc, uint64_t deadline)
{
	rc->deadline = deadline;
	if (rc->on_timer_list || rc->timers == NULL)
		return;
	rc->next_timer = rc->timers->head;
	rc->timers->head = rc;
	rc->on_timer_list = true;
}

void
rxd_transport_timers(struct rxd_timers *t, uint64_t now)
{
	struct rxd_rc *rc = t->head, *next;

	for (; rc != NULL; rc = next) {
		next = rc->next_timer;
		if (rc->rnr_until && now >= rc->rnr_until) {
			rc->rnr_until = 0;
			if (rc->rto)
				rc->deadline = now + rc->rto;
			rxd_qp_doorbell(rc->qp);
		}
		if (rc->deadline && now >= rc->deadline)
			rxd_comp_timeout(rc, now);
		if (!rc->rnr_until && !rc->deadline)
			timer_unlink(rc);
	}
}

/* Header fields common to every frame of the connection. */
static void
build_template(struct rxd_rc *rc)
{
	const struct ibv_qp_attr *a = &rc->qp->attr;
	struct rxd_pkt *t = &rc->tmpl;

	memset(t, 0, sizeof(*t));
	memcpy(t->smac, rc->x.smac, RXD_ETH_ALEN);
	if (rc->x.vlan) {
		t->vlan_count = 1;
		t->vlan_tci[0] = rc->x.vlan;
	}
	memcpy(t->dgid, a->ah_attr.grh.dgid.raw, RXD_GID_LEN);
	if (rc->x.gid(rc->qp->port, a->ah_attr.grh.sgid_index, t->sgid) != 0)
		memset(t->sgid, 0, RXD_GID_LEN);
	t->ip_ver = rxd_gid_is_v4(t->dgid) ? 4 : 6;
	t->tos = rc->x.ecn ? rxd_tos_with_ecn(a->ah_attr.grh.traffic_class,
					      RXD_ECN_ECT0) :
		a->ah_attr.grh.traffic_class;
	t->ttl = a->ah_attr.grh.hop_limit ? a->ah_attr.grh.hop_limit : 64;
	t->flow_label = a->ah_attr.grh.flow_label;
	t->ip_df = true;
	t->udp_sport = rc->sport;
	t->pkey = RXD_DEFAULT_PKEY;
	t->dqpn = a->dest_qp_num;
	rc->txh.valid = false;   /* UD: each WR has its own address */
	if (rc->qp->type != IBV_QPT_UD)
		rxd_wire_hdr_make(&rc->txh, t);
	rc->peer.gen = 0;        /* a new peer: nothing noted about it yet */
	/* UD has no path MTU: a message is one packet, checked at post */
	rc->mtu = rc->qp->type == IBV_QPT_UD ? RXD_MAX_PMTU :
		128u << a->path_mtu;
	/* as a RoCE NIC's driver does at RTR: the peer's MAC is asked for
	 * now, not when the first burst finds it unknown (16 frames are
	 * held while resolving; the rest would wait for a timeout) */
	if (rc->qp->type != IBV_QPT_UD && rc->x.resolve != NULL)
		rc->x.resolve(rc->x.ctx, t->dgid);
}

static void
reset(struct rxd_rc *rc)
{
	rxd_tx_ack_flush(rc);      /* owed for data accepted before */
	rc->last_wqe_sent = false;
	rc->head = rc->cur = rc->tail = 0;
	rc->unsignaled = 0;
	rc->deadline = rc->rnr_until = 0;
	rc->in_msg = 0;
	rc->have_rwqe = false;
	rc->nak_sent = false;
	memset(rc->res, 0, rc->n_res * sizeof(*rc->res));
	rc->res_busy = rc->res_next;
	rc->ack_due = false;
}

void
rxd_transport_modify(struct rxd_qp_core *qp, enum ibv_qp_state from)
{
	struct rxd_rc *rc = rxd_rc(qp);
	const struct ibv_qp_attr *a = &qp->attr;

	rc->rxt.armed = false;     /* addresses or state may change */
	rc->ackt.armed = false;
	switch (a->qp_state) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
		reset(rc);
		break;
	case IBV_QPS_RTR:
		/* UDP source port: ECMP entropy, chosen once per connection
		 * (a modify within RTR keeps it: the peer hears this QP only
		 * from it) as Soft-RoCE chooses it, so that a receiver knowing
		 * both QPNs can steer the connection's frames to the queue of
		 * the engine owning its QP (rxd_sport.c, rxd_steer.c) */
		if (from != IBV_QPS_RTR) {
			rc->sport = qp->type == IBV_QPT_UD ?
				rxd_sport_datagram(qp->qpn) :
				rxd_sport_connected(a->ah_attr.grh.flow_label,
						    qp->qpn, a->dest_qp_num);
			rxd_cc_reset(rc);
			rxd_keepalive_reset(rc);
		}
		build_template(rc);
		rc->epsn = a->rq_psn;
		rc->msn = 0;
		break;
	case IBV_QPS_SQD:
		rc->draining = a->en_sqd_async_notify;
		rxd_rc_check_drained(rc);
		break;
	case IBV_QPS_RTS:
		rc->draining = false;
		if (from == IBV_QPS_RTR) {
			rc->npsn = a->sq_psn;
			rc->una = a->sq_psn;
			rc->snd_nxt = a->sq_psn;
			rc->acked = a->sq_psn;
			rc->retry_left = a->retry_cnt;
			rc->rnr_left = a->rnr_retry;
		}
		rc->rto = a->timeout ? (rte_get_tsc_hz() * 4096ull / 1000000000ull)
			<< a->timeout : 0;
		rxd_qp_doorbell(qp);
		break;
	case IBV_QPS_ERR:
		rxd_rc_to_error(rc);
		break;
	default:
		break;
	}
}

/* SQD: once nothing is outstanding, say so (once per RTS->SQD). */
void
rxd_rc_check_drained(struct rxd_rc *rc)
{
	if (!rc->draining || rc->head != rc->tail)
		return;
	rc->draining = false;
	rc->qp->async(rc->qp, IBV_EVENT_SQ_DRAINED);
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
	struct rxd_rc *rc = rxd_rc(qp);
	enum ibv_qp_state st = qp->attr.qp_state;
	bool ok = true;

	/* congestion: a CNP slows the QP down; a CE mark on anything else
	 * is answered with one (never a CNP with a CNP) */
	if (qp->type != IBV_QPT_UD && st >= IBV_QPS_RTR && st != IBV_QPS_ERR) {
		if (pkt->opcode == RXD_OP_CNP) {
			rxd_cc_cnp(rc);
			rc->cnt.rx_pkts++;
			rte_pktmbuf_free(m);
			return true;
		}
		if ((pkt->tos & RXD_ECN_MASK) == RXD_ECN_CE)
			rxd_cc_ce(rc);
	}
	if (pkt->op->service != service_of[qp->type] ||
	    (pkt->pkey & 0x7fff) != (RXD_DEFAULT_PKEY & 0x7fff)) {
		ok = rxd_rc_icrc_ok(m, pkt);
		rc->cnt.bad_addr += ok;
	} else if (qp->type == IBV_QPT_UD) {
		if (st == IBV_QPS_RTR || st == IBV_QPS_RTS || st == IBV_QPS_SQD)
			rxd_ud_rx(rc, m, pkt);
	} else if (qp->type == IBV_QPT_UC) {
		if (st == IBV_QPS_RTR || st == IBV_QPS_RTS || st == IBV_QPS_SQD)
			rxd_resp_uc_rx(rc, m, pkt);
	} else if (pkt->op->flags & RXD_OPF_RESP) {
		if (st == IBV_QPS_RTS || st == IBV_QPS_SQD)
			ok = rxd_comp_rx(rc, m, pkt);
		else
			ok = rxd_rc_icrc_ok(m, pkt);
		if (ok && !rc->ackt.armed)
			rxd_rx_tmpl_learn(&rc->ackt, rte_pktmbuf_mtod(m,
					  const uint8_t *), pkt);
	} else {
		ok = rxd_resp_rx(rc, m, pkt);
		if (ok && !rc->rxt.armed)
			rxd_rx_tmpl_learn(&rc->rxt, rte_pktmbuf_mtod(m,
					  const uint8_t *), pkt);
	}
	rc->cnt.rx_pkts += ok;
	rte_pktmbuf_free(m);
	return ok;
}

/* The requests the responder expects next: the MIDDLE or LAST of the
 * message in progress, or the ONLY of a new one. */
static uint32_t
requests_expected(const struct rxd_rc *rc)
{
	if (rc->in_msg == RXD_OPF_SEND)
		return RXD_RX_TMPL_OP(RXD_OP_RC_SEND_MIDDLE) |
			RXD_RX_TMPL_OP(RXD_OP_RC_SEND_LAST);
	if (rc->in_msg == RXD_OPF_WRITE)
		return RXD_RX_TMPL_OP(RXD_OP_RC_WRITE_MIDDLE) |
			RXD_RX_TMPL_OP(RXD_OP_RC_WRITE_LAST);
	return RXD_RX_TMPL_OP(RXD_OP_RC_SEND_ONLY) |
		RXD_RX_TMPL_OP(RXD_OP_RC_SEND_ONLY_IMM) |
		RXD_RX_TMPL_OP(RXD_OP_RC_WRITE_ONLY) |
		RXD_RX_TMPL_OP(RXD_OP_RC_WRITE_ONLY_IMM);
}

bool
rxd_transport_rx_expected(struct rxd_qp_core *qp, const struct rte_mbuf *m,
			  unsigned int flags, struct rxd_pkt *pkt)
{
	struct rxd_rc *rc = rxd_rc(qp);
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m);

	if (rxd_rx_tmpl_match(&rc->rxt, frame, len, flags,
			      requests_expected(rc), rc->epsn, 1, pkt))
		return true;
	/* a plain ACK of PSNs sent and not acknowledged yet; NAKs, READ
	 * responses and atomic ACKs take the full path */
	return rxd_rx_tmpl_match_ack(&rc->ackt, frame, len, flags, rc->acked,
				     (rc->snd_nxt - rc->acked) & RXD_PSN_MASK,
				     pkt);
}

/* Every WQE still in the window fails with a flush error. */
static void
flush_window(struct rxd_rc *rc)
{
	struct ibv_wc wc;
	uint32_t i;

	for (i = rc->head; i != rc->tail; i++) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = rxd_win(rc, i)->w.wr_id;
		wc.status = IBV_WC_WR_FLUSH_ERR;
		wc.qp_num = rc->qp->qpn;
		rxd_rc_complete(rc->qp, rc->qp->scq, &wc, 1, false);
	}
	rc->head = rc->cur = rc->tail;
}

void
rxd_rc_to_error(struct rxd_rc *rc)
{
	struct rxd_qp_core *qp = rc->qp;
	struct ibv_wc wc;

	/* an SRQ user hears that it will take no further receive */
	if (qp->srq != NULL && !rc->last_wqe_sent) {
		rc->last_wqe_sent = true;
		qp->async(qp, IBV_EVENT_QP_LAST_WQE_REACHED);
	}
	__atomic_store_n(&qp->attr.qp_state, IBV_QPS_ERR, __ATOMIC_RELEASE);
	flush_window(rc);
	if (rc->have_rwqe) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = rc->rwqe.wr_id;
		wc.status = IBV_WC_WR_FLUSH_ERR;
		wc.opcode = IBV_WC_RECV;
		wc.qp_num = qp->qpn;
		rxd_rc_complete(qp, qp->rcq, &wc, 0, false);
		rc->have_rwqe = false;
	}
	rxd_qp_flush(qp);
	rc->deadline = rc->rnr_until = 0;
}

/* Walk the SGEs from byte off and copy len bytes to or from buf; every
 * SGE used must name an MR of protection domain pd. */
bool
rxd_rc_copy_sges(const struct ibv_pd *pd, const struct ibv_sge *sge,
		 uint32_t num_sge, uint32_t off, uint8_t *buf, uint32_t len,
		 bool to_sge)
{
	unsigned int need = to_sge ? IBV_ACCESS_LOCAL_WRITE : 0;
	uint32_t i, n;

	for (i = 0; i < num_sge && len > 0; i++) {
		const struct rxd_mr *mr;
		uint8_t *p;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - off < len ? sge[i].length - off : len;
		mr = rxd_mr_find_in(sge[i].lkey, pd);
		if (mr == NULL ||
		    !rxd_mr_allows(mr, sge[i].addr + off, n, need))
			return false;
		p = rxd_mr_addr(mr, sge[i].addr + off);
		if (to_sge)
			rxd_copy(p, buf, n);
		else
			rxd_copy(buf, p, n);
		buf += n;
		len -= n;
		off = 0;
	}
	return len == 0;
}

/*
 * Where bytes off..off+len of the SGEs are, when they lie in one SGE whose
 * MR is of protection domain pd and allows need (0 for reading,
 * IBV_ACCESS_LOCAL_WRITE for writing);
 * NULL otherwise (rxd_rc_copy_sges then gathers or scatters them, or
 * finds the fault).
 */
uint8_t *
rxd_rc_sge_span(const struct ibv_pd *pd, const struct ibv_sge *sge,
		uint32_t num_sge, uint32_t off, uint32_t len, unsigned int need)
{
	const struct rxd_mr *mr;
	uint32_t i;

	for (i = 0; i < num_sge && off >= sge[i].length; i++)
		off -= sge[i].length;
	if (i == num_sge || sge[i].length - off < len)
		return NULL;
	mr = rxd_mr_find_in(sge[i].lkey, pd);
	if (mr == NULL || !rxd_mr_allows(mr, sge[i].addr + off, len, need))
		return NULL;
	return rxd_mr_addr(mr, sge[i].addr + off);
}

void
rxd_rc_complete(struct rxd_qp_core *qp, struct rxd_cq_core *cq,
		const struct ibv_wc *wc, uint32_t retired, bool solicited)
{
	const struct rxd_rc *rc = rxd_rc(qp);
	struct rxd_cqe c;

	c.wc = *wc;
	/* stamped with the engine's clock of this pass, as a NIC stamps a
	 * CQE when it writes it: no TSC read per completion */
	c.ts = rxd_rc_clock(rc);
	c.sq_retired = retired;
	c.pad = 0;
	rxd_cq_complete(cq, &c, solicited);
}

void
rxd_transport_counters(const struct rxd_qp_core *qp,
		       struct rxd_qp_stats *c)
{
	*c = rxd_rc(qp)->cnt;
	c->rate_kbps = (uint64_t)(rxd_cc_rate(rxd_rc(qp)) * 1000);
	c->rate_cuts = rxd_cc_cuts(rxd_rc(qp));
}
