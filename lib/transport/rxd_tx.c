/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building and sending a QP's frames: from the QP's headers, an mbuf
 * with room for the payload (copied in by the builder when it lies in one
 * place), ACK/NAK packets and CNPs.  Plain ACKs are
 * coalesced: one per QP per engine pass acknowledges everything the pass
 * received, sent in PSN order with the READ responses and atomic ACKs.
 */
#include "rxd_rc.h"

struct rte_mbuf *
rxd_tx_frame(struct rxd_tqp *t, struct rxd_pkt *pkt, uint32_t payload_len,
	     uint8_t **payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(t->x.pool);
	uint32_t hlen;

	if (m == NULL)
		return NULL;
	pkt->op = &rxd_opcode_table[pkt->opcode];
	pkt->payload_len = payload_len;
	hlen = rxd_wire_hdr_len(pkt);
	if (rte_pktmbuf_tailroom(m) < hlen + payload_len + 3 + RXD_ICRC_LEN) {
		/* path MTU above what the port carries: the frame is lost */
		t->too_big = true;
		t->cnt.too_big++;
		rte_pktmbuf_free(m);
		return NULL;
	}
	*payload = rte_pktmbuf_mtod(m, uint8_t *) + hlen;
	return m;
}

/*
 * src: the payload, copied in as the ICRC is summed; NULL if in place.
 * pkt is the QP's template (t->tmpl) with only per-frame fields set, so
 * a connected QP's frames but its CNPs are built from the headers made
 * at RTR (rc->txh), and keep the peer's MAC between them (t->hint).
 */
void
rxd_tx_send(struct rxd_tqp *t, struct rxd_pkt *pkt, struct rte_mbuf *m,
	    const void *src)
{
	const struct rxd_rc *rc = rxd_rc_of(t);   /* if connected */
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t cap = rte_pktmbuf_tailroom(m);
	uint32_t len = rxd_qp_connected(t->qp) && rc->txh.valid &&
		pkt->opcode != RXD_OP_CNP ?
		rxd_wire_build_from(&rc->txh, pkt, src, buf, cap) :
		rxd_wire_build(pkt, src, buf, cap);

	if (len == 0) {
		rte_pktmbuf_free(m);
		return;
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	t->cnt.tx_pkts++;
	if (t->paced)
		rxd_cc_sent(t, len);
	t->x.send(t->x.ctx, t->qp, pkt, t->hint, m);
}

static void
send_ack(struct rxd_rc *rc, uint32_t psn, uint8_t syndrome)
{
	struct rxd_pkt pkt = rc->t.tmpl;
	struct rte_mbuf *m;
	uint8_t *p;

	pkt.opcode = RXD_OP_RC_ACK;
	pkt.psn = psn;
	pkt.aeth_syndrome = syndrome;
	pkt.aeth_msn = rc->msn;
	m = rxd_tx_frame(&rc->t, &pkt, 0, &p);
	if (m != NULL) {
		rc->t.cnt.acks_tx++;
		rxd_tx_send(&rc->t, &pkt, m, NULL);
	}
}

static void
send_due_ack(struct rxd_rc *rc)
{
	rc->ack_due = false;
	send_ack(rc, rc->ack_psn, rxd_aeth_make(RXD_AETH_ACK,
						RXD_AETH_CREDIT_INVALID));
}

void
rxd_tx_ack_flush(struct rxd_rc *rc)
{
	/* READ responses still to send come first (lower PSNs) */
	if (rc->ack_due && rc->res_busy == rc->res_next)
		send_due_ack(rc);
}

void
rxd_tx_ack_before(struct rxd_rc *rc, uint32_t psn)
{
	if (rc->ack_due && rxd_psn_diff(psn, rc->ack_psn) > 0)
		send_due_ack(rc);
}

void
rxd_tx_ack_later(struct rxd_rc *rc, uint32_t psn)
{
	if (rc->ack_due)
		rc->t.cnt.acks_coalesced++;
	rc->ack_due = true;
	rc->ack_psn = psn;
	rxd_qp_doorbell(rc->t.qp);
}

void
rxd_tx_ack(struct rxd_rc *rc, uint32_t psn, uint8_t syndrome)
{
	rxd_tx_ack_flush(rc);
	send_ack(rc, psn, syndrome);
}

/* A CNP to the peer's QP (rxd_wire_make_cnp()). */
void
rxd_tx_cnp(struct rxd_tqp *t)
{
	struct rxd_pkt pkt = t->tmpl;
	struct rte_mbuf *m;
	uint8_t *p;

	rxd_wire_make_cnp(&pkt, t->x.cnp_dscp, t->x.ecn);
	m = rxd_tx_frame(t, &pkt, 0, &p);
	if (m != NULL) {
		t->cnt.cnp_tx++;
		rxd_tx_send(t, &pkt, m, NULL);
	}
}
