/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder: checks each request's PSN against the expected one, executes
 * in-order requests (SEND into receive WQEs, WRITE, READ, atomics, ATOMIC
 * WRITE, FLUSH) once, answers duplicates without executing them again
 * (READ, atomics, ATOMIC WRITE and FLUSH from the responder resources),
 * NAKs a gap once, sends RNR NAK when no receive is posted, and NAKs
 * invalid or forbidden requests, moving the QP to ERR.
 *
 * A receive WQE's SGEs must name MRs of the QP's protection domain (also
 * when it comes from an SRQ, as Soft-RoCE checks them), with local write,
 * covering the bytes: otherwise the WQE is malformed, the receive
 * completes IBV_WC_LOC_QP_OP_ERR and the sender gets a remote operational
 * error NAK, as Soft-RoCE answers (IBTA class A).
 */
#include <string.h>

#include "rxd_copy.h"
#include "rxd_rc.h"

enum resp_err {
	RESP_OK = 0,
	RESP_RNR,          /* no receive WQE: RNR NAK, nothing consumed */
	RESP_INV_REQ,      /* NAK invalid request */
	RESP_ACCESS,       /* NAK remote access error */
	RESP_LEN,          /* receive buffer too small: invalid request */
	RESP_WQE,          /* receive SGE outside its MR or PD: remote op */
	RESP_CORRUPT,      /* ICRC wrong (checked while placing): drop */
};

static void
nak(struct rxd_rc *rc, uint8_t code)
{
	rc->t.cnt.naks_tx[code]++;
	rxd_tx_ack(rc, rc->epsn, rxd_aeth_make(RXD_AETH_NAK, code));
}

static void
recv_complete(struct rxd_rc *rc, const struct rxd_pkt *p,
	      enum ibv_wc_status st, enum ibv_wc_opcode op)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rc->rwqe.wr_id;
	wc.status = st;
	wc.opcode = op;
	wc.byte_len = rc->rcv_off;
	wc.qp_num = rc->t.qp->qpn;
	wc.src_qp = rc->t.qp->attr.dest_qp_num;
	if (p->op->flags & RXD_OPF_IMM) {
		wc.imm_data = p->imm;
		wc.wc_flags |= IBV_WC_WITH_IMM;
	} else if (p->op->flags & RXD_OPF_INV) {
		wc.invalidated_rkey = p->ieth_rkey;
		wc.wc_flags |= IBV_WC_WITH_INV;
	}
	rxd_tqp_complete(rc->t.qp, rc->t.qp->rcq, &wc, 0, p->se);
	rc->have_rwqe = false;
}

/* Take a receive WQE (from the QP's ring or its SRQ). */
static bool
take_rwqe(struct rxd_rc *rc)
{
	struct rxd_qp_core *qp = rc->t.qp;
	struct rte_ring *r = qp->srq ? qp->srq->ring : qp->rq;
	uint32_t limit;

	if (rc->have_rwqe)
		return true;
	if (rte_ring_dequeue_elem(r, &rc->rwqe, sizeof(rc->rwqe)) != 0)
		return false;
	rc->have_rwqe = true;
	rc->rcv_off = 0;
	if (qp->srq != NULL) {
		limit = __atomic_load_n(&qp->srq->limit, __ATOMIC_ACQUIRE);
		if (limit && rte_ring_count(r) < limit &&
		    __atomic_exchange_n(&qp->srq->limit, 0, __ATOMIC_ACQ_REL))
			qp->srq->event(qp->srq, IBV_EVENT_SRQ_LIMIT_REACHED);
	}
	return true;
}

/* dst: where placed_at() puts the payload while checking its ICRC. */
static enum resp_err
do_send(struct rxd_rc *rc, struct rte_mbuf *m, const struct rxd_pkt *p,
	uint8_t *dst)
{
	if (!take_rwqe(rc))
		return RESP_RNR;
	if (dst != NULL) {
		if (!rxd_wire_place(rte_pktmbuf_mtod(m, const uint8_t *), p,
				    dst))
			return RESP_CORRUPT;
	} else if (rc->rcv_off + p->payload_len > rc->rwqe.length) {
		return RESP_LEN;
	} else if (!rxd_sge_copy(rc->t.qp->pd, rc->rwqe.sge,
				     rc->rwqe.num_sge, rc->rcv_off,
				     rte_pktmbuf_mtod_offset(m, uint8_t *,
							     p->payload_off),
				     p->payload_len, true)) {
		return RESP_WQE;
	}
	rc->rcv_off += p->payload_len;
	/* SEND with Invalidate: a type 2 window of this QP named by the
	 * IETH is unbound before the receive completes; another rkey is
	 * reported as sent, nothing invalidated */
	if ((p->op->flags & (RXD_OPF_LAST | RXD_OPF_INV)) ==
	    (RXD_OPF_LAST | RXD_OPF_INV))
		rxd_mw_invalidate_remote(p->ieth_rkey, rc->t.qp, rc->t.qp->pd);
	if (p->op->flags & RXD_OPF_LAST)
		recv_complete(rc, p, IBV_WC_SUCCESS, IBV_WC_RECV);
	return RESP_OK;
}

/* rkey (an MR of the QP's PD or a valid window bound for this QP), range
 * and right of a remote access; zero length needs none. */
static struct rxd_mr *
remote_mr(const struct rxd_rc *rc, uint32_t rkey, uint64_t va, uint64_t len,
	  unsigned int right, enum resp_err *err)
{
	struct rxd_mr *mr;

	*err = RESP_OK;
	if (len == 0)
		return NULL;
	mr = rxd_mr_find_remote(rkey, rc->t.qp, rc->t.qp->pd);
	if (mr == NULL || !rxd_mr_allows(mr, va, len, right))
		*err = RESP_ACCESS;
	return mr;
}

/* The payload fits what is left of the WRITE, and a LAST ends it. */
static bool
write_fits(const struct rxd_rc *rc, const struct rxd_pkt *p)
{
	return p->payload_len <= rc->wleft &&
		(!(p->op->flags & RXD_OPF_LAST) || p->payload_len == rc->wleft);
}

/* The WRITE in progress may go on placing len bytes: its rkey still names
 * the registration of its first packet, or one that replaced it with the
 * same bytes and the right (rc->wmr follows); not after a dereg, a
 * translation change or a window's invalidation. */
static bool
write_mr_still(struct rxd_rc *rc, uint32_t len)
{
	if (rc->wmr == NULL)
		return false;
	rc->wmr = rxd_mr_follow(&rc->whold, rc->wva, len,
				IBV_ACCESS_REMOTE_WRITE, rc->t.qp, rc->t.qp->pd);
	return rc->wmr != NULL;
}

static enum resp_err
do_write(struct rxd_rc *rc, struct rte_mbuf *m, const struct rxd_pkt *p,
	 uint8_t *dst)
{
	enum resp_err err;

	if (!(rc->t.qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE))
		return RESP_INV_REQ;
	if (p->op->flags & RXD_OPF_FIRST) {
		rc->wmr = remote_mr(rc, p->reth_rkey, p->reth_va, p->reth_len,
				    IBV_ACCESS_REMOTE_WRITE, &err);
		if (err != RESP_OK)
			return err;
		if (rc->wmr != NULL) {
			rc->whold.key = p->reth_rkey;
			rc->whold.serial = rc->wmr->serial;
			rc->whold.delta = rxd_mr_delta(rc->wmr);
		}
		rc->wva = p->reth_va;
		rc->wleft = p->reth_len;
	}
	if (!write_fits(rc, p))
		return RESP_INV_REQ;
	/* dst: placed_at() followed the registration for these bytes */
	if (p->payload_len && dst == NULL &&
	    !write_mr_still(rc, p->payload_len))
		return RESP_ACCESS;
	if (p->op->flags & RXD_OPF_IMM && !take_rwqe(rc))
		return RESP_RNR;
	if (dst != NULL) {
		if (!rxd_wire_place(rte_pktmbuf_mtod(m, const uint8_t *), p,
				    dst))
			return RESP_CORRUPT;
	} else if (p->payload_len) {
		rxd_copy(rxd_mr_addr(rc->wmr, rc->wva),
		       rte_pktmbuf_mtod_offset(m, uint8_t *, p->payload_off),
		       p->payload_len);
	}
	rc->wva += p->payload_len;
	rc->wleft -= p->payload_len;
	if (p->op->flags & RXD_OPF_IMM) {
		rc->rcv_off = 0;
		recv_complete(rc, p, IBV_WC_SUCCESS,
			      IBV_WC_RECV_RDMA_WITH_IMM);
	}
	return RESP_OK;
}

static enum resp_err
do_read(struct rxd_rc *rc, const struct rxd_pkt *p)
{
	enum resp_err err;
	struct rxd_res *r;
	struct rxd_mr *mr;

	if (!(rc->t.qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_READ))
		return RESP_INV_REQ;
	mr = remote_mr(rc, p->reth_rkey, p->reth_va, p->reth_len,
		       IBV_ACCESS_REMOTE_READ, &err);
	if (err != RESP_OK)
		return err;
	r = rxd_resp_res_new(rc);
	if (mr != NULL) {
		r->hold.key = p->reth_rkey;
		r->hold.serial = mr->serial;
		r->hold.delta = rxd_mr_delta(mr);
	}
	r->psn = p->psn;
	r->npkts = p->reth_len ? (p->reth_len + rc->t.mtu - 1) / rc->t.mtu : 1;
	r->va = p->reth_va;
	r->rkey = p->reth_rkey;
	r->len = p->reth_len;
	r->msn = ++rc->msn;
	rxd_resp_respond(rc, r, 0);
	rc->epsn = rxd_psn_add(rc->epsn, r->npkts);
	return RESP_OK;
}

static enum resp_err
do_atomic(struct rxd_rc *rc, const struct rxd_pkt *p)
{
	enum resp_err err;
	struct rxd_mr *mr;
	struct rxd_res *r;
	uint64_t *target;

	if (!(rc->t.qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC) ||
	    (p->atm_va & 7))
		return RESP_INV_REQ;
	mr = remote_mr(rc, p->atm_rkey, p->atm_va, 8, IBV_ACCESS_REMOTE_ATOMIC,
		       &err);
	if (err != RESP_OK)
		return err;
	target = (uint64_t *)(uintptr_t)rxd_mr_addr(mr, p->atm_va);
	r = rxd_resp_res_new(rc);
	r->atomic = true;
	r->psn = p->psn;
	r->npkts = 1;
	if (p->opcode == RXD_OP_RC_CMP_SWAP) {
		r->orig = p->atm_cmp;
		__atomic_compare_exchange_n(target, &r->orig, p->atm_swap_add,
			false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		r->orig = __atomic_fetch_add(target, p->atm_swap_add,
					     __ATOMIC_SEQ_CST);
	}
	r->msn = ++rc->msn;
	rxd_resp_respond(rc, r, 0);
	rc->epsn = rxd_psn_add(rc->epsn, 1);
	return RESP_OK;
}

/*
 * A responder resource answered by an empty READ RESPONSE ONLY (ATOMIC
 * WRITE, FLUSH): a duplicate of the request gets the same answer and is
 * not executed again.
 */
static void
placement_done(struct rxd_rc *rc, const struct rxd_pkt *p)
{
	struct rxd_res *r = rxd_resp_res_new(rc);

	r->psn = p->psn;
	r->npkts = 1;
	r->msn = ++rc->msn;
	rxd_resp_respond(rc, r, 0);
	rc->epsn = rxd_psn_add(rc->epsn, 1);
}

/*
 * ATOMIC WRITE (IBTA 1.5): the 8 bytes of the payload are stored at the
 * target in one aligned 64-bit store, after everything the QP wrote
 * before (release order).  Rights as for an RDMA WRITE; a target that is
 * not 8-byte aligned in memory is an invalid request, as for atomics.
 */
static enum resp_err
do_atomic_write(struct rxd_rc *rc, struct rte_mbuf *m, const struct rxd_pkt *p)
{
	enum resp_err err;
	struct rxd_mr *mr;
	uint64_t *target, value;

	if (!(rc->t.qp->attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE) ||
	    p->reth_len != RXD_ATOMIC_WRITE_LEN)
		return RESP_INV_REQ;
	mr = remote_mr(rc, p->reth_rkey, p->reth_va, RXD_ATOMIC_WRITE_LEN,
		       IBV_ACCESS_REMOTE_WRITE, &err);
	if (err != RESP_OK)
		return err;
	target = (uint64_t *)(uintptr_t)rxd_mr_addr(mr, p->reth_va);
	if ((uintptr_t)target & 7)
		return RESP_INV_REQ;
	memcpy(&value, rte_pktmbuf_mtod_offset(m, uint8_t *, p->payload_off),
	       sizeof(value));
	__atomic_store_n(target, value, __ATOMIC_RELEASE);
	placement_done(rc, p);
	return RESP_OK;
}

/* The MR rights each FLUSH placement type needs (RXD_FLUSH_PLT_*). */
static unsigned int
flush_rights(uint8_t plt)
{
	return ((plt & RXD_FLUSH_PLT_GLOBAL) ? RXD_ACCESS_FLUSH_GLOBAL : 0) |
		((plt & RXD_FLUSH_PLT_PERSISTENT) ?
		 RXD_ACCESS_FLUSH_PERSISTENT : 0);
}

/*
 * FLUSH (IBTA 1.5): what the QP placed before is visible to every reader
 * of the range (or of the whole MR, selectivity level MR) when the answer
 * leaves.  The responder places in PSN order on one thread, so a store
 * fence is all a FLUSH for global visibility needs.  Persistence needs
 * the MR's FLUSH_PERSISTENT right, which rxd's reg_mr never grants (no
 * persistent memory): such a FLUSH fails with a remote access error.
 */
static enum resp_err
do_flush(struct rxd_rc *rc, const struct rxd_pkt *p)
{
	unsigned int rights = flush_rights(p->feth_plt);
	struct rxd_mr *mr;

	if (p->feth_plt == 0 || (p->feth_plt & ~(RXD_FLUSH_PLT_GLOBAL |
						 RXD_FLUSH_PLT_PERSISTENT)) ||
	    p->feth_sel > RXD_FLUSH_SEL_MR ||
	    (rc->t.qp->attr.qp_access_flags & rights) != rights)
		return RESP_INV_REQ;
	mr = rxd_mr_find_remote(p->reth_rkey, rc->t.qp, rc->t.qp->pd);
	if (mr == NULL || (mr->access & rights) != rights ||
	    (p->feth_sel == RXD_FLUSH_SEL_RANGE &&
	     !rxd_mr_allows(mr, p->reth_va, p->reth_len, rights)))
		return RESP_ACCESS;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	placement_done(rc, p);
	return RESP_OK;
}

/* A FIRST/ONLY may not start inside a message, nor MIDDLE/LAST outside. */
static bool
sequence_ok(const struct rxd_rc *rc, const struct rxd_pkt *p)
{
	uint16_t kind = p->op->flags & (RXD_OPF_SEND | RXD_OPF_WRITE);

	if (!kind)
		return rc->in_msg == 0;
	if (p->op->flags & RXD_OPF_FIRST)
		return rc->in_msg == 0;
	return rc->in_msg == kind;
}

static enum resp_err
execute(struct rxd_rc *rc, struct rte_mbuf *m, const struct rxd_pkt *p,
	uint8_t *dst)
{
	uint32_t f = p->op->flags;
	enum resp_err err;

	if (!sequence_ok(rc, p))
		return RESP_INV_REQ;
	if (f & RXD_OPF_READ)
		return do_read(rc, p);
	if (f & RXD_OPF_ATOMIC)
		return do_atomic(rc, p);
	if (f & RXD_OPF_ATOMIC_WRITE)
		return do_atomic_write(rc, m, p);
	if (f & RXD_OPF_FLUSH)
		return do_flush(rc, p);
	err = (f & RXD_OPF_SEND) ? do_send(rc, m, p, dst) :
		do_write(rc, m, p, dst);
	if (err != RESP_OK)
		return err;
	rc->in_msg = (f & RXD_OPF_LAST) ? 0 :
		(uint8_t)(f & (RXD_OPF_SEND | RXD_OPF_WRITE));
	rc->epsn = rxd_psn_add(rc->epsn, 1);
	if (f & RXD_OPF_LAST)
		rc->msn++;
	if (p->ackreq)
		rxd_tx_ack_later(rc, p->psn);
	return RESP_OK;
}

/*
 * A duplicate: READ, atomics, ATOMIC WRITE and FLUSH are answered again
 * from their responder resource (never executed again), the rest ACKed.
 */
static void
duplicate(struct rxd_rc *rc, const struct rxd_pkt *p)
{
	uint32_t i;

	rc->t.cnt.duplicates++;
	if (p->op->flags & (RXD_OPF_READ | RXD_OPF_ATOMIC |
			    RXD_OPF_ATOMIC_WRITE | RXD_OPF_FLUSH)) {
		for (i = 0; i < rc->n_res; i++) {
			struct rxd_res *r = &rc->res[i];
			int32_t d = rxd_psn_diff(p->psn, r->psn);

			if (!r->used || d < 0 || d >= (int32_t)r->npkts)
				continue;
			rxd_resp_respond(rc, r, (uint32_t)d);
			return;
		}
		return; /* resource gone: drop, the requester times out */
	}
	rxd_tx_ack_later(rc, rxd_psn_add(rc->epsn, RXD_PSN_MASK));
}

static void
fail(struct rxd_rc *rc, enum resp_err err, const struct rxd_pkt *p)
{
	if (err == RESP_RNR) {
		/* the packets behind it are dropped without a sequence NAK:
		 * the requester resends them all after its RNR wait */
		rc->nak_sent = true;
		rc->t.cnt.rnr_naks_tx++;
		rxd_tx_ack(rc, rc->epsn, rxd_aeth_make(RXD_AETH_RNR_NAK,
			   rc->t.qp->attr.min_rnr_timer));
		return;
	}
	nak(rc, err == RESP_ACCESS ? RXD_NAK_REMOTE_ACCESS :
	    err == RESP_WQE ? RXD_NAK_REMOTE_OP : RXD_NAK_INVALID_REQ);
	if (err == RESP_LEN && rc->have_rwqe)
		recv_complete(rc, p, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV);
	if (err == RESP_WQE)
		recv_complete(rc, p, IBV_WC_LOC_QP_OP_ERR, IBV_WC_RECV);
	rc->t.qp->async(rc->t.qp, err == RESP_ACCESS ? IBV_EVENT_QP_ACCESS_ERR :
		      err == RESP_WQE ? IBV_EVENT_QP_FATAL :
		      IBV_EVENT_QP_REQ_ERR);
	rxd_tqp_to_error(&rc->t);
}

/*
 * Where execute() puts the payload of a WRITE or SEND MIDDLE/LAST at once,
 * or NULL: at the expected PSN, continuing this QP's message, every check
 * of do_write()/do_send() passed and nothing changed before the copy, so
 * a deferred ICRC check can be made while copying (rxd_wire_place()).
 * The bytes land inside the WRITE in progress, or at the receive WQE's
 * running offset (a MIDDLE of one path MTU, a LAST of at most one), whose
 * content is undefined until the message completes; when the frame is
 * corrupt, the resend of the same PSN writes them again.
 */
static uint8_t *
placed_at(struct rxd_rc *rc, const struct rxd_pkt *p)
{
	bool last = p->op->flags & RXD_OPF_LAST;

	if (rxd_psn_diff(p->psn, rc->epsn) != 0 || !sequence_ok(rc, p))
		return NULL;
	if (p->op->flags & RXD_OPF_WRITE)
		return (rc->t.qp->attr.qp_access_flags &
			IBV_ACCESS_REMOTE_WRITE) && write_fits(rc, p) &&
			p->payload_len && write_mr_still(rc, p->payload_len) ?
			rxd_mr_addr(rc->wmr, rc->wva) : NULL;
	if (!rc->have_rwqe || (last ? p->payload_len > rc->t.mtu :
			       p->payload_len != rc->t.mtu) ||
	    rc->rcv_off + p->payload_len > rc->rwqe.length)
		return NULL;
	return rxd_sge_span(rc->t.qp->pd, rc->rwqe.sge, rc->rwqe.num_sge,
			       rc->rcv_off, p->payload_len,
			       IBV_ACCESS_LOCAL_WRITE);
}

bool
rxd_resp_rx(struct rxd_rc *rc, struct rte_mbuf *m, const struct rxd_pkt *p)
{
	enum ibv_qp_state st = rc->t.qp->attr.qp_state;
	bool live = st == IBV_QPS_RTR || st == IBV_QPS_RTS || st == IBV_QPS_SQD;
	int32_t d = rxd_psn_diff(p->psn, rc->epsn);
	uint8_t *dst = NULL;
	enum resp_err err;

	if (p->icrc_deferred && live)
		dst = placed_at(rc, p);
	if (p->icrc_deferred && dst == NULL && !rxd_icrc_ok(m, p))
		return false;
	if (!live)
		return true;
	if (d < 0) {
		duplicate(rc, p);
		return true;
	}
	if (d > 0) {
		rc->t.cnt.out_of_sequence++;
		if (!rc->nak_sent) {
			rc->nak_sent = true;
			nak(rc, RXD_NAK_PSN_SEQ);
		}
		return true;
	}
	err = execute(rc, m, p, dst);
	if (err == RESP_CORRUPT)
		return false;
	rc->nak_sent = false;
	if (err != RESP_OK)
		fail(rc, err, p);
	return true;
}

/*
 * UC: no ACK, no NAK, no retransmission.  A gap or an error drops the rest
 * of the message silently (a receive WQE it had started is kept for the
 * next message); the next FIRST/ONLY starts cleanly at its own PSN.
 */
void
rxd_resp_uc_rx(struct rxd_rc *rc, struct rte_mbuf *m, const struct rxd_pkt *p)
{
	bool first = p->op->flags & RXD_OPF_FIRST;

	if (first && (rc->in_msg || rc->uc_dropping || p->psn != rc->epsn)) {
		rc->epsn = p->psn;       /* resynchronise on a new message */
		rc->in_msg = 0;
		rc->rcv_off = 0;
		rc->uc_dropping = false;
	}
	if (rc->uc_dropping || p->psn != rc->epsn) {
		if (!rc->uc_dropping)
			rc->t.cnt.dropped++;
		rc->t.cnt.out_of_sequence++;
		rc->uc_dropping = true;
		rc->in_msg = 0;
		rc->rcv_off = 0;
		return;
	}
	if (execute(rc, m, p, NULL) != RESP_OK) {
		rc->t.cnt.dropped++;
		rc->uc_dropping = !(p->op->flags & RXD_OPF_LAST);
		rc->in_msg = 0;
		rc->rcv_off = 0;
		rc->epsn = rxd_psn_add(p->psn, 1);
	}
}
