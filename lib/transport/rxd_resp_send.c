/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder output: READ responses and atomic ACKs, sent from the
 * responder resources in the order the requests came (PSN order).  A big
 * READ is spread out: at most RXD_REQ_BUDGET packets per engine pass,
 * none while the port is backed up, none while the QP's DCQCN pacer is
 * empty (the READ's requester receives the CE-marked responses, so its
 * CNPs slow this QP); the rest goes out on later passes (the QP rings its
 * doorbell).  A coalesced ACK waiting for a lower PSN goes first.
 */
#include <string.h>

#include "rxd_rc.h"

struct rxd_res *
rxd_resp_res_new(struct rxd_rc *rc)
{
	struct rxd_res *r = &rc->res[rc->res_next % rc->n_res];

	memset(r, 0, sizeof(*r));
	r->used = true;
	r->seq = rc->res_next++;
	return r;
}

static uint8_t
read_opcode(const struct rxd_res *r, uint32_t i)
{
	bool first = i == r->from, last = i + 1 == r->npkts;

	return first && last ? RXD_OP_RC_READ_RESP_ONLY :
		first ? RXD_OP_RC_READ_RESP_FIRST :
		last ? RXD_OP_RC_READ_RESP_LAST : RXD_OP_RC_READ_RESP_MIDDLE;
}

/*
 * Send response packet r->next.  @return false when no mbuf was free (try
 * again later); a READ whose registration went away meanwhile, or was
 * replaced by one with other bytes or without the right (dereg, rereg,
 * window rebind), is abandoned (the requester times out): its responses
 * never mix two translations.
 */
static bool
respond_one(struct rxd_rc *rc, struct rxd_res *r)
{
	struct rxd_pkt p = rc->t.tmpl;
	uint32_t off = r->next * rc->t.mtu, len = 0;
	struct rxd_mr *mr = NULL;
	const void *src = NULL;
	struct rte_mbuf *m;
	uint8_t *payload;

	p.psn = rxd_psn_add(r->psn, r->next);
	p.aeth_syndrome = rxd_aeth_make(RXD_AETH_ACK, RXD_AETH_CREDIT_INVALID);
	p.aeth_msn = r->msn;
	if (r->atomic) {
		p.opcode = RXD_OP_RC_ATOMIC_ACK;
		p.atm_orig = r->orig;
	} else {
		p.opcode = read_opcode(r, r->next);
		len = r->len - off < rc->t.mtu ? r->len - off : rc->t.mtu;
	}
	if (r->next == r->from)
		rxd_tx_ack_before(rc, p.psn);
	m = rxd_tx_frame(&rc->t, &p, len, &payload);
	if (m == NULL)
		return false;
	if (len) {
		mr = rxd_mr_follow(&r->hold, r->va + off, len,
				   IBV_ACCESS_REMOTE_READ, rc->t.qp, rc->t.qp->pd);
		if (mr == NULL || !rxd_mr_allows(mr, r->va + off, len, 0)) {
			rte_pktmbuf_free(m);
			r->next = r->npkts;
			return true;
		}
		src = rxd_mr_addr(mr, r->va + off);
	}
	rxd_tx_send(&rc->t, &p, m, src);
	r->next++;
	return true;
}

bool
rxd_resp_continue(struct rxd_rc *rc)
{
	unsigned int budget = RXD_REQ_BUDGET;

	while (rc->res_busy != rc->res_next) {
		struct rxd_res *r = &rc->res[rc->res_busy % rc->n_res];

		/* done, or overwritten by a newer one */
		if (r->seq != rc->res_busy || r->next >= r->npkts) {
			rc->res_busy++;
			continue;
		}
		if (budget == 0 || rxd_tx_backed_up(&rc->t) || rxd_cc_held(&rc->t) ||
		    !respond_one(rc, r))
			return true;
		budget--;
	}
	return false;
}

void
rxd_resp_respond(struct rxd_rc *rc, struct rxd_res *r, uint32_t from)
{
	r->from = from;
	r->next = from;
	if ((int32_t)(r->seq - rc->res_busy) < 0)
		rc->res_busy = r->seq;        /* a duplicate: answer it again */
	if (rxd_resp_continue(rc))
		rxd_qp_doorbell(rc->t.qp);
}
