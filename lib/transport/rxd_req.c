/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester: takes send WQEs from the SQ ring into the send window, gives
 * them PSNs, segments them per path MTU and sends their packets; honours
 * fences, the max_rd_atomic limit and RNR back-off; rewinds (go-back-N)
 * when the completer asks.  Window binds and local invalidations send
 * nothing: they complete in their turn.
 */
#include <stddef.h>
#include <string.h>

#include "rxd_rc.h"

#include <rte_ring_peek_zc.h>   /* after rte_ring.h, which it needs */

/* Where each transport's packet opcodes start against RC's, which the
 * work-request opcode table names. */
static const uint8_t op_base[] = {
	[IBV_QPT_RC] = 0,
	[IBV_QPT_UC] = RXD_OP_UC_SEND_FIRST - RXD_OP_RC_SEND_FIRST,
	[IBV_QPT_UD] = RXD_OP_UD_SEND_ONLY - RXD_OP_RC_SEND_ONLY,
};

/* Packets the requester sends for a WQE (a READ asks once). */
static uint32_t
to_send(const struct rxd_swqe *s)
{
	return rxd_swqe_is(s, RXD_WRF_RESPONSE) ? 1 : s->npkts;
}

/* Local SGEs must name memory registered in the QP's PD with the right
 * to be used.  A WQE of one SGE holds the entry it found (s->src). */
static bool
local_ok(const struct rxd_tqp *t, struct rxd_swqe *s)
{
	const struct rxd_send_wqe *w = &s->w;
	unsigned int need = rxd_swqe_is(s, RXD_WRF_FILLS_SGE) ?
		IBV_ACCESS_LOCAL_WRITE : 0;
	uint8_t i;

	s->src.serial = 0;
	for (i = 0; i < w->num_sge; i++) {
		const struct rxd_mr *mr = rxd_mr_find_in(w->sge[i].lkey,
							 t->qp->pd);

		if (w->sge[i].length == 0)
			continue;
		if (mr == NULL || !rxd_mr_allows(mr, w->sge[i].addr,
				w->sge[i].length, need))
			return false;
		if (w->num_sge == 1 && !(w->flags & IBV_SEND_INLINE)) {
			s->src.serial = mr->serial;
			s->src.delta = rxd_mr_delta(mr);
		}
	}
	return true;
}

/*
 * Copy a WQE out of the SQ ring: its fields and only the SGEs or inline
 * bytes it has (one SGE: 128 of the entry's 368 bytes).  A window bind's
 * part of the union was applied at post time and is not read here.
 */
static void
copy_wqe(struct rxd_send_wqe *dst, const struct rxd_send_wqe *src)
{
	size_t used = (src->flags & IBV_SEND_INLINE) ? src->length :
		src->num_sge * sizeof(src->sge[0]);

	memcpy(dst, src, offsetof(struct rxd_send_wqe, sge) +
	       RTE_MIN(used, sizeof(src->inline_data)));
}

/* Pull one WQE from the SQ ring into the window, read in place. */
static bool
fetch(struct rxd_tqp *t)
{
	struct rte_ring_zc_data zcd;
	struct rxd_swqe *s;
	uint32_t len;

	if (t->tail - t->head >= t->win_size ||
	    rte_ring_dequeue_zc_burst_elem_start(t->qp->sq, sizeof(s->w), 1,
						 &zcd, NULL) == 0)
		return false;
	s = rxd_win(t, t->tail);
	copy_wqe(&s->w, zcd.ptr1);
	rte_ring_dequeue_zc_elem_finish(t->qp->sq, 1);
	t->tail++;
	len = s->w.length;
	s->npkts = rxd_swqe_is(s, RXD_WRF_LOCAL) ? 0 :
		rxd_swqe_is(s, RXD_WRF_ATOMIC | RXD_WRF_PLACEMENT) ? 1 :
		len ? (len + t->mtu - 1) / t->mtu : 1;
	s->first_psn = t->npsn;
	t->npsn = rxd_psn_add(t->npsn, s->npkts);
	s->sent = 0;
	s->rcvd = 0;
	s->done = false;
	if (!local_ok(t, s)) {
		rxd_comp_error_at(t, t->tail - 1, IBV_WC_LOC_PROT_ERR);
		return false;
	}
	return true;
}

/*
 * A WQE may not start while the fence or the READ/atomic limit holds.  A
 * plain WRITE or SEND without a fence waits for nothing, so the window
 * (up to the send queue's depth of WQEs) is walked only for a WQE that
 * can be held, and only until the limit is reached.
 */
static bool
blocked(struct rxd_tqp *t, const struct rxd_swqe *s)
{
	uint32_t i, busy = 0, limit, max = t->qp->attr.max_rd_atomic;

	if (s->sent != 0)
		return false;
	if (s->w.flags & IBV_SEND_FENCE)
		limit = 1;
	else if (rxd_swqe_is(s, RXD_WRF_RESPONSE))
		limit = max ? max : 1;
	else
		return false;
	for (i = t->head; i != t->cur && busy < limit; i++)
		busy += rxd_swqe_is(rxd_win(t, i), RXD_WRF_RESPONSE) &&
			!rxd_win(t, i)->done;
	return busy >= limit;
}

/* RC keeps at most RXD_MAX_INFLIGHT PSNs beyond the last ACKed one. */
static bool
window_open(struct rxd_tqp *t, const struct rxd_swqe *s)
{
	uint32_t psn = rxd_psn_add(s->first_psn,
		rxd_swqe_is(s, RXD_WRF_RESPONSE) ? s->rcvd : s->sent);

	return t->qp->type != IBV_QPT_RC ||
		rxd_psn_diff(psn, rxd_rc_of(t)->una) < RXD_MAX_INFLIGHT;
}

static void
fill_request(struct rxd_tqp *t, const struct rxd_swqe *s, struct rxd_pkt *p)
{
	const struct rxd_send_wqe *w = &s->w;
	uint64_t off = (uint64_t)s->rcvd * t->mtu;

	if (w->opcode == IBV_WR_RDMA_READ) {
		/* a repeated READ asks only for what has not arrived */
		p->psn = rxd_psn_add(s->first_psn, s->rcvd);
		p->reth_va = w->remote_addr + off;
		p->reth_rkey = w->rkey;
		p->reth_len = (uint32_t)(w->length - off);
		return;
	}
	if (rxd_swqe_is(s, RXD_WRF_PLACEMENT)) {
		/* ATOMIC WRITE: 8 bytes at remote_addr; FLUSH: the range */
		p->reth_va = w->remote_addr;
		p->reth_rkey = w->rkey;
		p->reth_len = w->length;
		p->feth_sel = w->flush_level;
		p->feth_plt = w->flush_type;
		return;
	}
	p->atm_va = w->remote_addr;
	p->atm_rkey = w->rkey;
	p->atm_swap_add = w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? w->swap :
		w->compare_add;
	p->atm_cmp = w->compare_add;
}

/* The packet opcode of packet idx of a WQE, in its QP's transport (a UD
 * message is one packet: rxd_verbs_send_wqe()). */
static uint8_t
position_opcode(const struct rxd_tqp *t, const struct rxd_swqe *s,
		uint32_t idx)
{
	const struct rxd_wr_opcode *o = rxd_wr_opcode(s->w.opcode);
	bool first = idx == 0, last = idx + 1 == s->npkts;
	uint8_t op;

	if (first)
		op = last ? o->only : o->first;
	else
		op = last ? o->last : o->middle;
	return (uint8_t)(op + op_base[t->qp->type]);
}

/*
 * Where bytes off..off+len of a one-SGE WQE's payload are, by the entry
 * local_ok() checked the whole SGE against: while its key still names
 * that entry (an entry never changes once published, rxd_mr.h), the bytes
 * are where they were.  NULL: nothing held, or the key names another
 * entry now (deregistered, re-registered): the caller checks from
 * scratch.
 */
static const void *
held_source(const struct rxd_tqp *t, const struct rxd_swqe *s, uint32_t off,
	    uint32_t len)
{
	const struct rxd_mr *mr;

	if (s->src.serial == 0 || off > s->w.sge[0].length ||
	    s->w.sge[0].length - off < len)
		return NULL;
	mr = rxd_mr_find_in(s->w.sge[0].lkey, t->qp->pd);
	if (mr == NULL || mr->serial != s->src.serial)
		return NULL;
	return (const void *)(uintptr_t)(s->w.sge[0].addr + off +
					 s->src.delta);
}

/*
 * Bytes off..off+len of a WQE's payload: *src when they lie in one place
 * (the builder copies them), else gathered into dst here.
 */
static bool
payload_of(const struct rxd_tqp *t, const struct rxd_swqe *s, uint32_t off,
	   uint8_t *dst, uint32_t len, const void **src)
{
	const struct rxd_send_wqe *w = &s->w;

	if (w->flags & IBV_SEND_INLINE) {
		*src = w->inline_data + off;
		return true;
	}
	*src = held_source(t, s, off, len);
	if (*src != NULL)
		return true;
	*src = rxd_sge_span(t->qp->pd, w->sge, w->num_sge, off, len, 0);
	return *src != NULL || rxd_sge_copy(t->qp->pd, w->sge, w->num_sge,
						off, dst, len, false);
}

/* The PSN after packet p: a READ request takes its responses' PSNs. */
static uint32_t
next_psn(const struct rxd_swqe *s, const struct rxd_pkt *p)
{
	return rxd_psn_add(p->psn, rxd_swqe_is(s, RXD_WRF_RESPONSE) ?
			   s->npkts - s->rcvd : 1);
}

/* snd_nxt moves to next if that is beyond it. */
static void
sent_to(struct rxd_tqp *t, uint32_t next)
{
	if (rxd_psn_diff(next, t->snd_nxt) > 0)
		t->snd_nxt = next;
}

/*
 * Build and send packet idx of the WQE at t->cur (s).  @return false when
 * nothing was sent: no mbuf (try again later), or the payload's SGEs no
 * longer name memory of the QP's PD (the MR was deregistered or
 * re-registered since the WQE was fetched): the WQE then completes
 * IBV_WC_LOC_PROT_ERR and the QP goes to ERR.
 */
static bool
send_packet(struct rxd_tqp *t, struct rxd_swqe *s, uint32_t idx)
{
	const struct rxd_send_wqe *w = &s->w;
	struct rxd_pkt p = t->tmpl;
	uint32_t off = idx * t->mtu, len = 0;
	const void *src = NULL;
	struct rte_mbuf *m;
	uint8_t *payload;
	bool last;

	p.opcode = position_opcode(t, s, idx);
	p.psn = rxd_psn_add(s->first_psn, idx);
	last = idx + 1 == s->npkts;
	if (rxd_swqe_is(s, RXD_WRF_RESPONSE)) {
		fill_request(t, s, &p);
		last = true;
		if (w->opcode == IBV_WR_ATOMIC_WRITE)
			len = RXD_ATOMIC_WRITE_LEN;   /* inline, see rxd_verbs */
	} else {
		len = w->length - off < t->mtu ? w->length - off : t->mtu;
		p.reth_va = w->remote_addr;
		p.reth_rkey = w->rkey;
		p.reth_len = w->length;
		p.imm = w->imm_or_rkey;
		p.ieth_rkey = w->imm_or_rkey;
		p.se = last && (w->flags & IBV_SEND_SOLICITED);
	}
	if (t->qp->type == IBV_QPT_RC)
		p.ackreq = last || (idx + 1) % RXD_ACKREQ_EVERY == 0;
	else if (t->qp->type == IBV_QPT_UD)
		rxd_ud_fill(t, w, &p);
	m = rxd_tx_frame(t, &p, len, &payload);
	if (m == NULL && t->too_big) {
		/* lost like on a wire: the retransmit timer deals with it */
		sent_to(t, next_psn(s, &p));
		if (t->deadline == 0 && t->rto)
			rxd_timer_arm(t, rte_rdtsc() + t->rto);
		return true;
	}
	if (m == NULL)
		return false;        /* no mbuf: try again on the next pass */
	if (len && !payload_of(t, s, off, payload, len, &src)) {
		rte_pktmbuf_free(m);
		rxd_comp_error_at(t, t->cur, IBV_WC_LOC_PROT_ERR);
		return false;
	}
	rxd_tx_send(t, &p, m, src);
	if (w->opcode == IBV_WR_RDMA_READ)
		rxd_cc_read_asked(t, p.reth_len);
	if (t->qp->type == IBV_QPT_RC)    /* UC, UD: no ACK to time */
		rxd_rtt_sent(rxd_rc_of(t), p.psn);
	sent_to(t, next_psn(s, &p));
	if (t->deadline == 0 && t->rto)
		rxd_timer_arm(t, rte_rdtsc() + t->rto);
	return true;
}

/* Send new and rewound packets of the window. @return work left. */
static bool
request(struct rxd_tqp *t)
{
	struct rxd_qp_core *qp = t->qp;
	unsigned int budget = RXD_REQ_BUDGET;
	struct rxd_swqe *s;

	if (qp->attr.qp_state == IBV_QPS_ERR) {
		rxd_tqp_to_error(t);
		return false;
	}
	if (t->rnr_until ||
	    (qp->attr.qp_state != IBV_QPS_RTS &&
	     qp->attr.qp_state != IBV_QPS_SQD))
		return false;
	while (budget > 0) {
		/* SQD finishes what it started and takes nothing new */
		if (t->cur == t->tail &&
		    (qp->attr.qp_state == IBV_QPS_SQD || !fetch(t)))
			return false;
		if (qp->attr.qp_state == IBV_QPS_ERR)
			return false;
		s = rxd_win(t, t->cur);
		if (s->done) {          /* answered before a rewind */
			t->cur++;
			continue;
		}
		if (rxd_swqe_is(s, RXD_WRF_LOCAL)) {   /* nothing to send */
			s->done = true;
			t->cur++;
			rxd_comp_retire(t);
			continue;
		}
		if (blocked(t, s))
			return false;
		while (s->sent < to_send(s) && budget > 0) {
			if (!window_open(t, s))
				return false; /* an ACK rings the doorbell */
			if (rxd_tx_backed_up(t))
				return true;  /* the next pass, or later */
			if (rxd_cc_held(t))
				return true;  /* paced: the bucket is empty */
			if (!send_packet(t, s, s->sent))
				return true; /* no mbuf, or the QP failed */
			s->sent++;
			budget--;
		}
		if (s->sent < to_send(s))
			continue;
		t->cur++;
		if (qp->type != IBV_QPT_RC) {  /* unacknowledged: done once sent */
			s->done = true;
			rxd_comp_retire(t);
		}
	}
	return true;
}

/* What one side (responses or requests) left, from its result and
 * whether the pacer stopped it (read after the side ran). */
static enum rxd_sq_left
left_of(bool left, const struct rxd_tqp *t)
{
	return !left ? RXD_SQ_DONE :
		t->pacer_held ? RXD_SQ_PACED : RXD_SQ_MORE;
}

enum rxd_sq_left
rxd_transport_sq(struct rxd_qp_core *qp)
{
	struct rxd_tqp *t = rxd_tqp(qp);
	enum rxd_sq_left resp = RXD_SQ_DONE, req;
	bool left;

	if (rxd_qp_connected(qp)) {     /* READ responses, ACKs go first */
		t->pacer_held = false;
		left = rxd_resp_continue(rxd_rc_of(t));
		resp = left_of(left, t);
		rxd_tx_ack_flush(rxd_rc_of(t));
	}
	t->pacer_held = false;
	left = request(t);
	req = left_of(left, t);
	if (resp == RXD_SQ_MORE || req == RXD_SQ_MORE)
		return RXD_SQ_MORE;
	return resp == RXD_SQ_PACED || req == RXD_SQ_PACED ? RXD_SQ_PACED :
		RXD_SQ_DONE;
}

void
rxd_req_rewind(struct rxd_rc *rc, uint32_t psn)
{
	struct rxd_tqp *t = &rc->t;
	uint32_t i;

	/* one rewind per lost packet: later signs of the same loss wait */
	if (rc->rewound && rc->rewind_psn == psn)
		return;
	rc->rewound = true;
	rc->rewind_psn = psn;
	rxd_rtt_drop(rc);
	rxd_qp_doorbell(t->qp);
	for (i = t->head; i != t->tail; i++) {
		struct rxd_swqe *s = rxd_win(t, i);
		int32_t d = rxd_psn_diff(psn, s->first_psn);

		if (d < 0 || d >= (int32_t)s->npkts)
			continue;
		s->sent = rxd_swqe_is(s, RXD_WRF_RESPONSE) ? 0 : (uint32_t)d;
		t->cur = i;
		for (i++; i != t->tail; i++)
			rxd_win(t, i)->sent = 0;
		t->cnt.retransmits++;
		return;
	}
}
