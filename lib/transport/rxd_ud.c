/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD: each SEND is one packet to the address handle's GID and the WR's
 * remote QPN, with a DETH (Q_Key, source QPN).  On receive the Q_Key is
 * checked and the message lands after the 40-byte GRH area, which holds
 * the received IPv4 header (after 20 zero bytes) or the IPv6 header, and
 * the completion's SL field says which (below).
 */
#include <string.h>

#include "rxd_tqp.h"

#define GRH_LEN 40

/*
 * RoCE frames carry no SL.  A UD receive completion reports in wc.sl the
 * RoCE packet type, as mlx5 devices do: bit 3 set for RoCEv2 (UDP), bits
 * 2:0 the L3 header (1 IPv6, 2 IPv4).  UCX's ud_verbs reads it to find the
 * destination address in the GRH area and drops every packet whose
 * address it does not find there.
 */
#define WC_SL_ROCE_V2 0x8
static const uint8_t wc_sl_l3[] = { [4] = 0x2, [6] = 0x1 };

void
rxd_ud_fill(struct rxd_tqp *t, const struct rxd_send_wqe *w,
	    struct rxd_pkt *p)
{
	struct rxd_qp_core *qp = t->qp;

	memcpy(p->dgid, w->ud.dgid, RXD_GID_LEN);
	if (t->x.gid(qp->port, w->ud.sgid_index, p->sgid) != 0)
		memset(p->sgid, 0, RXD_GID_LEN);
	p->ip_ver = rxd_gid_is_v4(p->dgid) ? 4 : 6;
	p->ttl = w->ud.hop_limit ? w->ud.hop_limit : 64;
	p->tos = t->x.ecn ? rxd_tos_with_ecn(w->ud.traffic_class,
					      RXD_ECN_ECT0) :
		w->ud.traffic_class;
	p->flow_label = w->ud.flow_label;
	p->dqpn = w->ud.remote_qpn;
	/* a Q_Key with the high bit set means: use the QP's own */
	p->deth_qkey = (w->ud.remote_qkey & 0x80000000u) ? qp->attr.qkey :
		w->ud.remote_qkey;
	p->deth_sqpn = qp->qpn;
}

/* The GRH area as hardware fills it for RoCEv2. */
static void
grh_area(const struct rte_mbuf *m, const struct rxd_pkt *p, uint8_t *grh)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    p->l3_off);

	if (p->ip_ver == 4) {
		memset(grh, 0, 20);
		memcpy(grh + 20, ip, 20);
	} else {
		memcpy(grh, ip, GRH_LEN);
	}
}

void
rxd_ud_rx(struct rxd_tqp *t, struct rte_mbuf *m, const struct rxd_pkt *p)
{
	struct rxd_qp_core *qp = t->qp;
	struct rte_ring *r = qp->srq ? qp->srq->ring : qp->rq;
	struct rxd_recv_wqe w;
	uint8_t grh[GRH_LEN];
	struct ibv_wc wc;
	bool fits, placed;

	if (p->deth_qkey != qp->attr.qkey) {
		if (t->x.qkey_viol != NULL)
			(*t->x.qkey_viol)++;
		t->cnt.dropped++;
		return;
	}
	if (rte_ring_dequeue_elem(r, &w, sizeof(w)) != 0) {
		t->cnt.dropped++;      /* UD has no RNR: the message is lost */
		return;
	}
	grh_area(m, p, grh);
	/* an SGE outside the QP's PD (or its MR's range) is a malformed WQE:
	 * local QP operation error, as Soft-RoCE completes it */
	fits = w.length >= GRH_LEN + p->payload_len;
	placed = fits &&
		rxd_sge_copy(qp->pd, w.sge, w.num_sge, 0, grh, GRH_LEN,
				 true) &&
		rxd_sge_copy(qp->pd, w.sge, w.num_sge, GRH_LEN,
			rte_pktmbuf_mtod_offset(m, uint8_t *, p->payload_off),
			p->payload_len, true);
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w.wr_id;
	wc.status = !fits ? IBV_WC_LOC_LEN_ERR :
		placed ? IBV_WC_SUCCESS : IBV_WC_LOC_QP_OP_ERR;
	wc.opcode = IBV_WC_RECV;
	wc.byte_len = GRH_LEN + p->payload_len;
	wc.qp_num = qp->qpn;
	wc.src_qp = p->deth_sqpn;
	wc.wc_flags = IBV_WC_GRH;
	wc.sl = WC_SL_ROCE_V2 | wc_sl_l3[p->ip_ver];
	if (p->op->flags & RXD_OPF_IMM) {
		wc.imm_data = p->imm;
		wc.wc_flags |= IBV_WC_WITH_IMM;
	}
	rxd_tqp_complete(qp, qp->rcq, &wc, 0, p->se);
}
