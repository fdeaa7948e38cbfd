/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completer: ACKs, NAKs, READ responses (also the empty ones that answer
 * ATOMIC WRITE and FLUSH) and atomic ACKs retire send WQEs
 * in order and generate their completions; sequence NAKs, implied NAKs and
 * timeouts rewind the requester (go-back-N) and spend retry_cnt, which
 * any newly acknowledged PSN gives back (a NAK acknowledges the PSNs
 * before the one it names); RNR NAKs
 * wait the encoded RNR time and spend rnr_retry; remote errors fail the
 * WQE and move the QP to ERR.
 */
#include <string.h>

#include <rte_cycles.h>

#include "rxd_rc.h"

/* IBTA RNR timer encoding, in microseconds (0 is the largest). */
static const uint32_t rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* NAK codes to work completion statuses. */
static const enum ibv_wc_status nak_status[] = {
	[RXD_NAK_INVALID_REQ] = IBV_WC_REM_INV_REQ_ERR,
	[RXD_NAK_REMOTE_ACCESS] = IBV_WC_REM_ACCESS_ERR,
	[RXD_NAK_REMOTE_OP] = IBV_WC_REM_OP_ERR,
	[RXD_NAK_INVALID_RD] = IBV_WC_REM_INV_RD_REQ_ERR,
};

static void
complete(struct rxd_tqp *t, struct rxd_swqe *s, enum ibv_wc_status st)
{
	const struct rxd_wr_opcode *o = rxd_wr_opcode(s->w.opcode);
	struct ibv_wc wc;

	if (st == IBV_WC_SUCCESS && !(s->w.flags & IBV_SEND_SIGNALED)) {
		t->unsignaled++;
		return;
	}
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = s->w.wr_id;
	wc.status = st;
	wc.opcode = (enum ibv_wc_opcode)o->wc_opcode;
	wc.qp_num = t->qp->qpn;
	wc.byte_len = o->wc_len == RXD_WR_LEN_MSG ? s->w.length : o->wc_len;
	rxd_tqp_complete(t->qp, t->qp->scq, &wc, t->unsignaled + 1, false);
	t->unsignaled = 0;
}

/* The peer made progress: counters reset, the timer restarts. */
static void
progress(struct rxd_rc *rc)
{
	rc->rewound = false;
	rc->retry_left = rc->t.qp->attr.retry_cnt;
	rc->rnr_left = rc->t.qp->attr.rnr_retry;
	if (!rxd_rc_outstanding(rc))
		rc->t.deadline = 0;
	else if (rc->t.rto)
		rxd_timer_arm(&rc->t, rte_rdtsc() + rc->t.rto);
	/* a fence or the READ/atomic limit may have been waiting on this */
	if (rc->t.cur != rc->t.tail || rte_ring_count(rc->t.qp->sq) != 0)
		rxd_qp_doorbell(rc->t.qp);
}

void
rxd_comp_retire(struct rxd_tqp *t)
{
	while (t->head != t->cur && rxd_win(t, t->head)->done) {
		complete(t, rxd_win(t, t->head), IBV_WC_SUCCESS);
		t->head++;
	}
	rxd_tqp_check_drained(t);
}

/*
 * PSNs up to psn are acknowledged.  acked keeps the highest such PSN + 1;
 * una follows it but never passes a READ or atomic still waiting for its
 * response (a later WQE may be acknowledged first): when that response
 * comes, una catches up with acked.  Either moving is progress.
 */
static void
una_to(struct rxd_rc *rc, uint32_t psn)
{
	uint32_t next = rxd_psn_add(psn, 1), i;

	rxd_rtt_acked(rc, psn);
	if (rxd_psn_diff(next, rc->acked) > 0 &&
	    rxd_psn_diff(next, rc->t.snd_nxt) <= 0) {
		rc->acked = next;
		rc->acked_new = true;
	}
	next = rc->acked;
	for (i = rc->t.head; i != rc->t.tail; i++) {
		const struct rxd_swqe *s = rxd_win(&rc->t, i);
		uint32_t wait = rxd_psn_add(s->first_psn, s->rcvd);

		if (rxd_swqe_is(s, RXD_WRF_RESPONSE) && !s->done) {
			if (rxd_psn_diff(next, wait) > 0)
				next = wait;
			break;
		}
	}
	if (rxd_psn_diff(next, rc->una) > 0) {
		rc->una = next;
		rc->acked_new = true;
	}
}

/*
 * Everything up to psn is acknowledged.  An ACK beyond a READ or atomic
 * still waiting for its response means the response was lost: resend.
 * @return false if it triggered a rewind.
 */
static bool
ack_to(struct rxd_rc *rc, uint32_t psn)
{
	uint32_t i, head;

	for (i = rc->t.head; i != rc->t.cur; i++) {
		struct rxd_swqe *s = rxd_win(&rc->t, i);
		uint32_t last = rxd_psn_add(s->first_psn, s->npkts - 1);

		if (s->done)
			continue;
		if (rxd_swqe_is(s, RXD_WRF_RESPONSE)) {
			if (rxd_psn_diff(psn, s->first_psn) >= 0) {
				rxd_req_rewind(rc, rxd_psn_add(s->first_psn,
							       s->rcvd));
				rxd_comp_retire(&rc->t);
				return false;
			}
			break;
		}
		if (rxd_psn_diff(psn, last) < 0)
			break;
		s->done = true;
	}
	head = rc->t.head;
	rc->acked_new = false;
	una_to(rc, psn);
	rxd_comp_retire(&rc->t);
	rc->acked_new |= rc->t.head != head;
	return true;
}

/* The oldest WQE still waiting for a READ response or atomic ACK. */
static struct rxd_swqe *
responder_of(struct rxd_rc *rc, uint32_t psn)
{
	uint32_t i;

	for (i = rc->t.head; i != rc->t.cur; i++) {
		struct rxd_swqe *s = rxd_win(&rc->t, i);
		int32_t d = rxd_psn_diff(psn, s->first_psn);

		if (rxd_swqe_is(s, RXD_WRF_RESPONSE) && !s->done && d >= 0 &&
		    d < (int32_t)s->npkts)
			return s;
	}
	return NULL;
}

/* Where a READ response stands against the READ it answers. */
enum read_fit {
	READ_DUPLICATE,   /* no READ waits for it, or already received */
	READ_AHEAD,       /* beyond the next expected: one was lost */
	READ_BAD_LEN,     /* the next expected, of the wrong length */
	READ_NEXT,        /* the next expected: *s, its payload at *off */
};

static enum read_fit
read_fit(struct rxd_rc *rc, const struct rxd_pkt *p, struct rxd_swqe **s,
	 uint32_t *off)
{
	uint32_t expect;

	*s = responder_of(rc, p->psn);
	if (*s == NULL || (*s)->w.opcode != IBV_WR_RDMA_READ)
		return READ_DUPLICATE;
	expect = rxd_psn_add((*s)->first_psn, (*s)->rcvd);
	if (p->psn != expect)
		return rxd_psn_diff(p->psn, expect) < 0 ? READ_DUPLICATE :
			READ_AHEAD;
	*off = (*s)->rcvd * rc->t.mtu;
	if (p->payload_len != ((p->op->flags & RXD_OPF_LAST) ?
			       (*s)->w.length - *off : rc->t.mtu))
		return READ_BAD_LEN;
	return READ_NEXT;
}

/*
 * The empty READ RESPONSE ONLY that answers an ATOMIC WRITE or a FLUSH
 * waiting at its PSN: the WQE is done.  Any other response to one of them
 * is a protocol error.
 */
static void
placement_response(struct rxd_rc *rc, struct rxd_swqe *s,
		   const struct rxd_pkt *p)
{
	if (p->opcode != RXD_OP_RC_READ_RESP_ONLY || p->payload_len != 0) {
		rxd_comp_error(rc, IBV_WC_BAD_RESP_ERR);
		return;
	}
	ack_to(rc, rxd_psn_add(s->first_psn, RXD_PSN_MASK));
	s->done = true;
	una_to(rc, p->psn);
	rxd_comp_retire(&rc->t);
	progress(rc);
}

/*
 * A READ response.  The next one expected whose bytes go to one SGE is
 * copied there while its deferred ICRC is checked (as the responder
 * places WRITEs: the bytes lie inside the READ's own buffer, undefined
 * until it completes, and a corrupt response is requested again);
 * every other frame is checked first.  @return false if it was corrupt.
 */
static bool
read_response(struct rxd_rc *rc, struct rte_mbuf *m, const struct rxd_pkt *p)
{
	enum read_fit fit;
	struct rxd_swqe *s;
	uint8_t *dst = NULL;
	uint32_t off = 0;

	fit = read_fit(rc, p, &s, &off);
	if (s != NULL && rxd_swqe_is(s, RXD_WRF_PLACEMENT)) {
		if (!rxd_icrc_ok(m, p))
			return false;
		placement_response(rc, s, p);
		return true;
	}
	if (fit == READ_NEXT && p->icrc_deferred)
		dst = rxd_sge_span(rc->t.qp->pd, s->w.sge, s->w.num_sge, off,
				      p->payload_len, IBV_ACCESS_LOCAL_WRITE);
	if (dst == NULL && !rxd_icrc_ok(m, p))
		return false;
	switch (fit) {
	case READ_DUPLICATE:
		rc->t.cnt.duplicates++;
		return true;
	case READ_AHEAD:
		rc->t.cnt.out_of_sequence++;
		rxd_req_rewind(rc, rxd_psn_add(s->first_psn, s->rcvd));
		return true;
	case READ_BAD_LEN:
		rxd_comp_error(rc, IBV_WC_LOC_LEN_ERR);
		return true;
	case READ_NEXT:
		break;
	}
	if (p->op->flags & RXD_OPF_FIRST)
		ack_to(rc, rxd_psn_add(s->first_psn, RXD_PSN_MASK));
	if (dst != NULL) {
		if (!rxd_wire_place(rte_pktmbuf_mtod(m, const uint8_t *), p,
				    dst))
			return false;
	} else if (!rxd_sge_copy(rc->t.qp->pd, s->w.sge, s->w.num_sge, off,
				     rte_pktmbuf_mtod_offset(m, uint8_t *,
							     p->payload_off),
				     p->payload_len, true)) {
		rxd_comp_error(rc, IBV_WC_LOC_LEN_ERR);
		return true;
	}
	s->rcvd++;
	s->done = s->rcvd == s->npkts;
	una_to(rc, p->psn);
	rxd_comp_retire(&rc->t);
	progress(rc);
	return true;
}

static void
atomic_ack(struct rxd_rc *rc, const struct rxd_pkt *p)
{
	struct rxd_swqe *s = responder_of(rc, p->psn);

	if (s == NULL || !rxd_swqe_is(s, RXD_WRF_ATOMIC)) {
		rc->t.cnt.duplicates++;
		return;
	}
	ack_to(rc, rxd_psn_add(p->psn, RXD_PSN_MASK));
	/* the original value lands in host byte order, as Soft-RoCE does */
	rxd_sge_copy(rc->t.qp->pd, s->w.sge, s->w.num_sge, 0,
			 (uint8_t *)(uintptr_t)&p->atm_orig, 8, true);
	s->done = true;
	una_to(rc, p->psn);
	rxd_comp_retire(&rc->t);
	progress(rc);
}

/* The WQE holding psn fails with status (earlier ones are retired). */
static void
fail_at(struct rxd_rc *rc, uint32_t psn, enum ibv_wc_status status)
{
	rc->rewound = false;
	rxd_req_rewind(rc, psn);
	rc->t.head = rc->t.cur;
	rxd_comp_error(rc, status);
}

static void
rnr_nak(struct rxd_rc *rc, uint32_t psn, uint8_t timer)
{
	if (rc->rnr_left == 0) {
		fail_at(rc, psn, IBV_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	if (rc->rnr_left != 7)   /* 7 means retry forever */
		rc->rnr_left--;
	rc->t.cnt.rnr_waits++;
	rc->t.deadline = 0;   /* no retransmit timeout while waiting */
	rc->rewound = false;
	rxd_req_rewind(rc, psn);
	rc->t.rnr_until = rte_rdtsc() + rte_get_tsc_hz() / 1000000 *
		rnr_us[timer & 31];
	rxd_timer_arm(&rc->t, rc->t.deadline);
}

static void
spend_retry(struct rxd_rc *rc, uint32_t psn)
{
	if (rc->retry_left == 0) {
		fail_at(rc, psn, IBV_WC_RETRY_EXC_ERR);
		return;
	}
	rc->retry_left--;
	rc->rewound = false;
	rxd_req_rewind(rc, psn);
}

/*
 * A sequence NAK: the responder lost psn.  One that repeats the rewind
 * already under way with nothing acknowledged since (a duplicated NAK) is
 * the same loss and spends nothing again.
 */
static void
seq_nak(struct rxd_rc *rc, uint32_t psn)
{
	if (rc->rewound && rc->rewind_psn == psn)
		return;
	spend_retry(rc, psn);
}

static void
acknowledge(struct rxd_rc *rc, const struct rxd_pkt *p)
{
	uint8_t type = rxd_aeth_type(p->aeth_syndrome);
	uint8_t code = rxd_aeth_code(p->aeth_syndrome);
	uint32_t before = rxd_psn_add(p->psn, RXD_PSN_MASK);

	if (type == RXD_AETH_ACK) {
		if (!ack_to(rc, p->psn))
			rxd_qp_doorbell(rc->t.qp);
		else if (rc->acked_new)    /* a stale ACK is no progress */
			progress(rc);
		return;
	}
	if (!ack_to(rc, before))
		return;
	if (rc->acked_new)         /* what it acknowledges is progress */
		progress(rc);
	if (type == RXD_AETH_RNR_NAK) {
		rnr_nak(rc, p->psn, code);
		return;
	}
	rc->t.cnt.naks_rx[code < 5 ? code : 4]++;
	if (code == RXD_NAK_PSN_SEQ) {
		seq_nak(rc, p->psn);
		return;
	}
	fail_at(rc, p->psn, code < 5 ? nak_status[code] : IBV_WC_REM_OP_ERR);
}

bool
rxd_comp_rx(struct rxd_rc *rc, struct rte_mbuf *m, const struct rxd_pkt *p)
{
	if (!rxd_rc_outstanding(rc)) {
		if (!rxd_icrc_ok(m, p))
			return false;
		rc->t.cnt.duplicates++;     /* nothing outstanding */
		return true;
	}
	if (p->op->flags & RXD_OPF_READ)
		return read_response(rc, m, p);
	if (p->op->flags & RXD_OPF_ATOMIC)
		atomic_ack(rc, p);
	else
		acknowledge(rc, p);
	return true;
}

/* Where a timed-out head WQE resumes: its first PSN not yet ACKed. */
static uint32_t
resend_from(const struct rxd_rc *rc, const struct rxd_swqe *s)
{
	int32_t d = rxd_psn_diff(rc->una, s->first_psn);

	return d > 0 && d < (int32_t)s->npkts ? rc->una : s->first_psn;
}

void
rxd_comp_timeout(struct rxd_rc *rc, uint64_t now)
{
	struct rxd_swqe *s;

	(void)now;
	rc->t.deadline = 0;
	if (!rxd_rc_outstanding(rc))
		return;
	rc->t.cnt.timeouts++;
	rc->rewound = false;
	s = rxd_win(&rc->t, rc->t.head);
	spend_retry(rc, rxd_swqe_is(s, RXD_WRF_RESPONSE) ?
		    rxd_psn_add(s->first_psn, s->rcvd) : resend_from(rc, s));
	if (rc->t.qp->attr.qp_state != IBV_QPS_ERR && rc->t.rto)
		rxd_timer_arm(&rc->t, rte_rdtsc() + rc->t.rto);
}

/*
 * The WQE at window index bad failed: the ones before it that are still
 * outstanding flush, it completes with status, the rest flush, QP to ERR.
 */
void
rxd_comp_error_at(struct rxd_tqp *t, uint32_t bad, enum ibv_wc_status status)
{
	uint32_t i;

	for (i = t->head; i != t->tail; i++)
		complete(t, rxd_win(t, i), i == bad ? status :
			 IBV_WC_WR_FLUSH_ERR);
	t->head = t->cur = t->tail;
	rxd_tqp_to_error(t);
}

/* The WQE at head failed. */
void
rxd_comp_error(struct rxd_rc *rc, enum ibv_wc_status status)
{
	rxd_comp_error_at(&rc->t, rc->t.head, status);
}
