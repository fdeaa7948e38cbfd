/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection of an RC or UC QP across modify: at RTR the headers built
 * once into bytes, the peer's MAC asked for, the responder's PSN; at RTS
 * the requester's acknowledgement state and retry budgets; at RESET the
 * responder's message state and resources cleared.  And RC's receive fast
 * path: the frames the connection expects next.
 */
#include <string.h>

#include "rxd_rc.h"

void
rxd_rc_reset(struct rxd_rc *rc)
{
	rxd_tx_ack_flush(rc);      /* owed for data accepted before */
	rc->in_msg = 0;
	rc->have_rwqe = false;
	rc->nak_sent = false;
	if (rc->n_res != 0)        /* UC has no responder resources */
		memset(rc->res, 0, rc->n_res * sizeof(*rc->res));
	rc->res_busy = rc->res_next;
	rc->ack_due = false;
}

/* RTR: the template's bytes, and the peer's MAC asked for. */
static void
connect_peer(struct rxd_rc *rc)
{
	struct rxd_tqp *t = &rc->t;

	rxd_wire_hdr_make(&rc->txh, &t->tmpl);
	rc->peer.gen = 0;        /* a new peer: nothing noted about it yet */
	/* as a RoCE NIC's driver does at RTR: the peer's MAC is asked for
	 * now, not when the first burst finds it unknown (16 frames are
	 * held while resolving; the rest would wait for a timeout) */
	if (t->x.resolve != NULL)
		t->x.resolve(t->x.ctx, t->tmpl.dgid);
}

void
rxd_rc_modify(struct rxd_rc *rc, enum ibv_qp_state from)
{
	const struct ibv_qp_attr *a = &rc->t.qp->attr;

	rc->rxt.armed = false;     /* addresses or state may change */
	rc->ackt.armed = false;
	switch (a->qp_state) {
	case IBV_QPS_RTR:
		if (from != IBV_QPS_RTR) {
			rxd_rtt_drop(rc);  /* no round trip known yet */
			rxd_keepalive_reset(rc);
		}
		connect_peer(rc);
		rc->epsn = a->rq_psn;
		rc->msn = 0;
		break;
	case IBV_QPS_RTS:
		if (from == IBV_QPS_RTR) {
			rc->una = a->sq_psn;
			rc->acked = a->sq_psn;
			rc->retry_left = a->retry_cnt;
			rc->rnr_left = a->rnr_retry;
		}
		break;
	default:
		break;
	}
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

/* Only an RC QP is the engine's fast_qp: the templates are RC's. */
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
				     (rc->t.snd_nxt - rc->acked) & RXD_PSN_MASK,
				     pkt);
}
