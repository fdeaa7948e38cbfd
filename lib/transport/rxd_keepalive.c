/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC keepalive.  A connected QP that has heard its peer, has nothing
 * outstanding and has received nothing for the port's keepalive interval
 * (since RTR) sends a probe: a duplicate of its last request (a 0-byte RDMA WRITE ONLY
 * at the PSN before the next one, AckReq set), which an IBTA responder
 * answers with an ACK and never executes.  A probe unanswered for the
 * QP's ACK timeout is sent again, retry_cnt times; then the peer is dead
 * (a killed process sends nothing): IBV_EVENT_QP_FATAL, and the QP moves
 * to ERR, its posted receives flushed.  A program that only receives thus
 * learns of a dead peer, as one that sends does from its retries.
 */
#include "rxd_rc.h"

static void
send_probe(struct rxd_rc *rc)
{
	struct rxd_pkt p = rc->t.tmpl;
	struct rte_mbuf *m;
	uint8_t *payload;

	p.opcode = RXD_OP_RC_WRITE_ONLY;
	p.psn = rxd_psn_add(rc->t.npsn, RXD_PSN_MASK);
	p.ackreq = true;
	m = rxd_tx_frame(&rc->t, &p, 0, &payload);
	if (m == NULL)
		return;              /* no mbuf: the next look sends it */
	rxd_tx_send(&rc->t, &p, m, NULL);
	rc->t.cnt.keepalives++;
}

/* Whether the QP is one that probes: RC in RTS with a timeout. */
static bool
probes(const struct rxd_rc *rc)
{
	return rc->t.qp->type == IBV_QPT_RC && rc->t.x.keepalive != 0 &&
		rc->t.rto != 0 && rc->t.qp->attr.qp_state == IBV_QPS_RTS;
}

void
rxd_keepalive_reset(struct rxd_rc *rc)
{
	rc->ka_heard = rc->t.cnt.rx_pkts;
	rc->ka_armed = false;
	rc->ka_probes = 0;
}

void
rxd_transport_keepalive(struct rxd_qp_core *qp, uint64_t now)
{
	struct rxd_rc *rc = rxd_rc(qp);

	if (rc == NULL || !probes(rc))
		return;
	if (rc->t.cnt.rx_pkts != rc->ka_heard || rxd_rc_outstanding(rc) ||
	    rc->t.rnr_until != 0) {
		/* the peer spoke, or the retransmit timer watches it */
		rc->ka_armed |= rc->t.cnt.rx_pkts != rc->ka_heard;
		rc->ka_heard = rc->t.cnt.rx_pkts;
		rc->ka_since = now;
		rc->ka_probes = 0;
		return;
	}
	if (!rc->ka_armed)         /* never heard this peer: nothing to lose */
		return;
	if (now - rc->ka_since < (rc->ka_probes ? rc->t.rto : rc->t.x.keepalive))
		return;
	if (rc->ka_probes > qp->attr.retry_cnt) {
		qp->async(qp, IBV_EVENT_QP_FATAL);
		rxd_tqp_to_error(&rc->t);
		return;
	}
	send_probe(rc);
	rc->ka_probes++;
	rc->ka_since = now;
}
