/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Posting work: ibv_post_send and ibv_post_recv check each work request,
 * copy it into the QP's ring and ring the engine's doorbell.  The first
 * refused request is returned in bad_wr with the errno value; nothing after
 * it is posted.  A send slot stays busy until the completion that covers it
 * has been polled.
 */
#include <errno.h>
#include <string.h>

#include "rxd_qp.h"

#define SEND_FLAGS_KNOWN (IBV_SEND_FENCE | IBV_SEND_SIGNALED | \
	IBV_SEND_SOLICITED | IBV_SEND_INLINE)

static int
copy_payload(struct rxd_qp *qp, const struct ibv_send_wr *wr,
	     struct rxd_send_wqe *w)
{
	uint64_t len = 0;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > RXD_MAX_MSG_SZ)
		return EINVAL;
	w->length = (uint32_t)len;
	if (!(wr->send_flags & IBV_SEND_INLINE)) {
		w->num_sge = (uint8_t)wr->num_sge;
		if (w->num_sge)     /* sg_list may be NULL with no SGE */
			memcpy(w->sge, wr->sg_list,
			       sizeof(w->sge[0]) * w->num_sge);
		return 0;
	}
	if (len > qp->cap.max_inline_data ||
	    rxd_wr_is(wr->opcode, RXD_WRF_FILLS_SGE))
		return EINVAL;
	w->num_sge = 0;
	for (len = 0, i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length == 0)
			continue;   /* its addr may be NULL (UCX posts such) */
		memcpy(w->inline_data + len,
		       (const void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		len += wr->sg_list[i].length;
	}
	return 0;
}

static int
fill_ud(const struct ibv_send_wr *wr, struct rxd_send_wqe *w)
{
	const struct rxd_ah *ah = (const struct rxd_ah *)wr->wr.ud.ah;

	if (ah == NULL)
		return EINVAL;
	memcpy(w->ud.dgid, ah->attr.grh.dgid.raw, sizeof(w->ud.dgid));
	w->ud.sgid_index = ah->attr.grh.sgid_index;
	w->ud.hop_limit = ah->attr.grh.hop_limit;
	w->ud.traffic_class = ah->attr.grh.traffic_class;
	w->ud.flow_label = ah->attr.grh.flow_label;
	w->ud.remote_qpn = wr->wr.ud.remote_qpn;
	w->ud.remote_qkey = wr->wr.ud.remote_qkey;
	return 0;
}

int
rxd_verbs_send_wqe(struct rxd_qp *qp, const struct ibv_send_wr *wr,
		   struct rxd_send_wqe *w)
{
	enum ibv_qp_type type = qp->qpx.qp_base.qp_type;
	int rc;

	if (!rxd_wr_allowed(type, wr->opcode) ||
	    rxd_wr_is(wr->opcode, RXD_WRF_WR_EX_ONLY) ||
	    (wr->send_flags & ~SEND_FLAGS_KNOWN))
		return EINVAL;
	w->wr_id = wr->wr_id;
	w->opcode = (uint8_t)wr->opcode;
	w->flags = (uint16_t)wr->send_flags;
	if (qp->core.sq_sig_all)
		w->flags |= IBV_SEND_SIGNALED;
	if (rxd_wr_is(wr->opcode, RXD_WRF_LOCAL)) {
		/* no payload: rxd_verbs_sq_post() applies them */
		w->num_sge = 0;
		w->length = 0;
		w->rkey = wr->bind_mw.rkey;
		w->imm_or_rkey = wr->invalidate_rkey;
		w->bind.mw = wr->bind_mw.mw;
		w->bind.info = wr->bind_mw.bind_info;
		return 0;
	}
	rc = copy_payload(qp, wr, w);
	if (rc != 0)
		return rc;
	if (rxd_wr_is(wr->opcode, RXD_WRF_ATOMIC)) {
		if (w->length != 8 || w->num_sge != 1)
			return EINVAL;
		w->remote_addr = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		w->compare_add = wr->wr.atomic.compare_add;
		w->swap = wr->wr.atomic.swap;
	} else if (wr->opcode == IBV_WR_ATOMIC_WRITE && w->length != 8) {
		return EINVAL; /* 8 bytes, at wr.rdma.remote_addr */
	} else if (type != IBV_QPT_UD) {
		w->remote_addr = wr->wr.rdma.remote_addr;
		w->rkey = wr->wr.rdma.rkey;
	} else if ((rc = fill_ud(wr, w)) != 0) {
		return rc;
	} else if (w->length > qp->ctx->ib_mtu) {
		return EINVAL; /* a UD message is one packet */
	}
	w->imm_or_rkey = wr->opcode == IBV_WR_SEND_WITH_INV ?
		wr->invalidate_rkey : wr->imm_data;
	return 0;
}

int
rxd_verbs_sq_push(struct rxd_qp *qp, const struct rxd_send_wqe *w)
{
	if (__atomic_load_n(&qp->sq_outstanding, __ATOMIC_ACQUIRE) >=
	    qp->cap.max_send_wr ||
	    rte_ring_sp_enqueue_elem(qp->core.sq, (void *)(uintptr_t)w,
				     sizeof(*w)) != 0)
		return ENOMEM;
	__atomic_add_fetch(&qp->sq_outstanding, 1, __ATOMIC_RELEASE);
	return 0;
}

int
rxd_verbs_sq_post(struct rxd_qp *qp, const struct rxd_send_wqe *w)
{
	int rc = 0;

	if (__atomic_load_n(&qp->sq_outstanding, __ATOMIC_ACQUIRE) >=
	    qp->cap.max_send_wr)
		rc = ENOMEM;
	if (rc == 0)
		rc = rxd_verbs_mw_apply(qp, w);
	return rc == 0 ? rxd_verbs_sq_push(qp, w) : rc;
}

bool
rxd_verbs_sq_open(const struct rxd_qp *qp)
{
	enum ibv_qp_state s = qp->qpx.qp_base.state;

	return s == IBV_QPS_RTS || s == IBV_QPS_SQD || s == IBV_QPS_SQE ||
		s == IBV_QPS_ERR;
}

int
rxd_verbs_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct rxd_qp *qp = rxd_qp(ibqp);
	struct rxd_send_wqe w;
	int rc = 0;

	pthread_spin_lock(&qp->sq_lock);
	for (; wr != NULL; wr = wr->next) {
		rc = rxd_verbs_sq_open(qp) ? 0 : EINVAL;
		if (rc == 0)
			rc = rxd_verbs_send_wqe(qp, wr, &w);
		if (rc == 0)
			rc = rxd_verbs_sq_post(qp, &w);
		if (rc != 0) {
			*bad_wr = wr;
			break;
		}
	}
	pthread_spin_unlock(&qp->sq_lock);
	rxd_qp_doorbell(&qp->core);
	return rc;
}

int
rxd_verbs_recv_push(struct rte_ring *ring, uint32_t max_sge,
		    struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	struct rxd_recv_wqe w;
	int i;

	for (; wr != NULL; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge) {
			*bad_wr = wr;
			return EINVAL;
		}
		w.wr_id = wr->wr_id;
		w.num_sge = (uint32_t)wr->num_sge;
		w.length = 0;
		for (i = 0; i < wr->num_sge; i++)
			w.length += wr->sg_list[i].length;
		if (w.num_sge)      /* sg_list may be NULL with no SGE */
			memcpy(w.sge, wr->sg_list,
			       sizeof(w.sge[0]) * w.num_sge);
		if (rte_ring_sp_enqueue_elem(ring, &w, sizeof(w)) != 0) {
			*bad_wr = wr;
			return ENOMEM;
		}
	}
	return 0;
}

int
rxd_verbs_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct rxd_qp *qp = rxd_qp(ibqp);
	int rc;

	if (ibqp->srq != NULL || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq_lock);
	rc = rxd_verbs_recv_push(qp->core.rq, qp->cap.max_recv_sge, wr,
				 bad_wr);
	pthread_spin_unlock(&qp->rq_lock);
	return rc;
}
