/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What any layer may do to a QP core without calling its engine: ring the
 * doorbell (a push onto the doorbell ring the owning engine gave the QP at
 * attach) and flush the queued work requests with IBV_WC_WR_FLUSH_ERR (a
 * QP entering ERR: signaled or not, as the verbs ask).
 */
#include <string.h>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "rxd_qp_core.h"

static void
flush_sq(struct rxd_qp_core *qp)
{
	struct rxd_send_wqe w;
	struct rxd_cqe c;

	while (rte_ring_sc_dequeue_elem(qp->sq, &w, sizeof(w)) == 0) {
		memset(&c, 0, sizeof(c));
		c.wc.wr_id = w.wr_id;
		c.wc.status = IBV_WC_WR_FLUSH_ERR;
		c.wc.qp_num = qp->qpn;
		c.sq_retired = 1;
		rxd_cq_complete(qp->scq, &c, false);
	}
}

static void
flush_rq(struct rxd_qp_core *qp)
{
	struct rxd_recv_wqe w;
	struct rxd_cqe c;

	if (qp->rq == NULL)
		return;
	while (rte_ring_sc_dequeue_elem(qp->rq, &w, sizeof(w)) == 0) {
		memset(&c, 0, sizeof(c));
		c.wc.wr_id = w.wr_id;
		c.wc.status = IBV_WC_WR_FLUSH_ERR;
		c.wc.opcode = IBV_WC_RECV;
		c.wc.qp_num = qp->qpn;
		rxd_cq_complete(qp->rcq, &c, false);
	}
}

void
rxd_qp_flush(struct rxd_qp_core *qp)
{
	flush_sq(qp);
	flush_rq(qp);
}

void
rxd_qp_doorbell(struct rxd_qp_core *qp)
{
	if (__atomic_exchange_n(&qp->doorbell, 1, __ATOMIC_ACQ_REL) == 0 &&
	    rte_ring_mp_enqueue(qp->doorbell_ring, qp) != 0)
		__atomic_store_n(&qp->doorbell, 0, __ATOMIC_RELEASE);
}
