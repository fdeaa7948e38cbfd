/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP of an id: rdma_create_qp (CQs with completion channels when the
 * application gives none, PD defaulting to the device's, then INIT — and
 * for UD straight on to RTS with RDMA_UDP_QKEY), rdma_destroy_qp, the
 * attributes of each transition (rdma_init_qp_attr, which the CM itself
 * applies when a connection is accepted or answered) and the move to ERR.
 * As Linux does, the Starting PSN a side puts in its REQ or REP is the PSN
 * it expects to receive; the peer sends from it.
 */
#include <errno.h>
#include <string.h>

#include <rdma/rdma_verbs.h>

#include "rxd/rxd.h"
#include "rxd_cm_priv.h"

#define QP_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static void
init_attr(struct rxd_cm_id *c, struct ibv_qp_attr *a, int *mask)
{
	a->qp_state = IBV_QPS_INIT;
	a->pkey_index = 0;
	a->port_num = 1;
	*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (c->id.qp_type == IBV_QPT_UD) {
		a->qkey = RDMA_UDP_QKEY;
		*mask |= IBV_QP_QKEY;
	} else {
		a->qp_access_flags = QP_ACCESS;
		*mask |= IBV_QP_ACCESS_FLAGS;
	}
}

static void
rtr_attr(struct rxd_cm_id *c, struct ibv_qp_attr *a, int *mask)
{
	a->qp_state = IBV_QPS_RTR;
	*mask = IBV_QP_STATE;
	if (c->id.qp_type == IBV_QPT_UD)
		return;
	a->path_mtu = c->mtu;
	a->dest_qp_num = c->remote_qpn;
	a->rq_psn = c->local_psn;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	memcpy(a->ah_attr.grh.dgid.raw, c->dgid, 16);
	a->ah_attr.grh.sgid_index = c->sgid_index;
	a->ah_attr.grh.hop_limit = 64;
	a->ah_attr.grh.traffic_class = c->tos;
	a->ah_attr.grh.flow_label = c->flow_label;
	*mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	if (c->id.qp_type == IBV_QPT_RC) {
		a->max_dest_rd_atomic = c->resp_res;
		a->min_rnr_timer = RXD_CM_MIN_RNR_TIMER;
		*mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
}

static void
rts_attr(struct rxd_cm_id *c, struct ibv_qp_attr *a, int *mask)
{
	a->qp_state = IBV_QPS_RTS;
	a->sq_psn = c->remote_psn;
	*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (c->id.qp_type != IBV_QPT_RC)
		return;
	a->timeout = c->ack_timeout;
	a->retry_cnt = c->retry_cnt;
	a->rnr_retry = c->rnr_retry;
	a->max_rd_atomic = c->init_depth;
	*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		IBV_QP_MAX_QP_RD_ATOMIC;
}

int
rxd_cm_qp_attr(struct rxd_cm_id *c, enum ibv_qp_state state,
	       struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	switch (state) {
	case IBV_QPS_INIT:
		init_attr(c, a, mask);
		return 0;
	case IBV_QPS_RTR:
		rtr_attr(c, a, mask);
		return 0;
	case IBV_QPS_RTS:
		rts_attr(c, a, mask);
		return 0;
	default:
		return EINVAL;
	}
}

static int
move(struct rxd_cm_id *c, enum ibv_qp_state state)
{
	struct ibv_qp_attr a;
	int mask, rc;

	rc = rxd_cm_qp_attr(c, state, &a, &mask);
	if (rc == 0)
		rc = ibv_modify_qp(c->id.qp, &a, mask);
	return rc;
}

int
rxd_cm_qp_ready(struct rxd_cm_id *c)
{
	int rc;

	if (c->id.qp == NULL || c->id.qp_type == IBV_QPT_UD)
		return 0;
	rc = move(c, IBV_QPS_RTR);
	return rc != 0 ? rc : move(c, IBV_QPS_RTS);
}

void
rxd_cm_qp_error(struct rxd_cm_id *c)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	if (c->id.qp != NULL)
		ibv_modify_qp(c->id.qp, &a, IBV_QP_STATE);
}

uint64_t
rxd_cm_qp_rx(struct rxd_cm_id *c)
{
	struct rxd_qp_stats s;

	if (c->id.qp == NULL ||
	    rxd_qp_stats(c->dev->port, c->id.qp->qp_num, &s) != 0)
		return 0;
	return s.rx_pkts;
}

static int
own_cqs(struct rxd_cm_id *c, struct ibv_qp_init_attr *a)
{
	struct ibv_context *v = c->id.verbs;

	c->id.send_cq_channel = ibv_create_comp_channel(v);
	c->id.recv_cq_channel = ibv_create_comp_channel(v);
	if (c->id.send_cq_channel == NULL || c->id.recv_cq_channel == NULL)
		return ENOMEM;
	c->id.send_cq = ibv_create_cq(v, (int)a->cap.max_send_wr + 1, c,
				      c->id.send_cq_channel, 0);
	c->id.recv_cq = ibv_create_cq(v, (int)a->cap.max_recv_wr + 1, c,
				      c->id.recv_cq_channel, 0);
	if (c->id.send_cq == NULL || c->id.recv_cq == NULL)
		return ENOMEM;
	c->own_cqs = true;
	a->send_cq = c->id.send_cq;
	a->recv_cq = c->id.recv_cq;
	return 0;
}

static void
free_cqs(struct rxd_cm_id *c)
{
	if (!c->own_cqs)
		return;
	if (c->id.send_cq != NULL)
		ibv_destroy_cq(c->id.send_cq);
	if (c->id.recv_cq != NULL)
		ibv_destroy_cq(c->id.recv_cq);
	if (c->id.send_cq_channel != NULL)
		ibv_destroy_comp_channel(c->id.send_cq_channel);
	if (c->id.recv_cq_channel != NULL)
		ibv_destroy_comp_channel(c->id.recv_cq_channel);
	c->id.send_cq = c->id.recv_cq = NULL;
	c->id.send_cq_channel = c->id.recv_cq_channel = NULL;
	c->own_cqs = false;
}

/*
 * The CM thread moves an id's QP (to RTR/RTS on a REP or RTU, to ERR on a
 * DREQ) under rxd_cm.lock, so the program publishes and withdraws id->qp
 * under that lock: once detached, no CM handler can reach a QP being
 * destroyed.
 */
static void
attach(struct rxd_cm_id *c, struct ibv_qp *qp)
{
	pthread_mutex_lock(&rxd_cm.lock);
	c->id.qp = qp;
	pthread_mutex_unlock(&rxd_cm.lock);
}

static void
detach_and_destroy(struct rxd_cm_id *c)
{
	struct ibv_qp *qp;

	pthread_mutex_lock(&rxd_cm.lock);
	qp = c->id.qp;
	c->id.qp = NULL;
	pthread_mutex_unlock(&rxd_cm.lock);
	if (qp != NULL)
		ibv_destroy_qp(qp);
}

/* A UD QP is usable at once: RTR and RTS need nothing from the peer. */
static int
bring_up(struct rxd_cm_id *c)
{
	int rc = move(c, IBV_QPS_INIT);

	if (rc == 0 && c->id.qp_type == IBV_QPT_UD) {
		rc = move(c, IBV_QPS_RTR);
		if (rc == 0)
			rc = move(c, IBV_QPS_RTS);
	}
	return rc;
}

/* The QP of rdma_create_qp and rdma_create_qp_ex: a's PD is set. */
static int
create_qp(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *a)
{
	struct rxd_cm_id *c = rxd_cm_id(id);
	struct ibv_qp_init_attr cqs = { .send_cq = a->send_cq,
		.recv_cq = a->recv_cq, .cap = a->cap };
	struct ibv_qp *qp;
	int rc = 0;

	if (id->verbs == NULL || a->pd->context != id->verbs) {
		errno = EINVAL;
		return -1;
	}
	if (a->send_cq == NULL && a->recv_cq == NULL) {
		rc = own_cqs(c, &cqs);
		a->send_cq = cqs.send_cq;
		a->recv_cq = cqs.recv_cq;
	}
	if (rc == 0) {
		id->qp_type = a->qp_type;
		qp = ibv_create_qp_ex(id->verbs, a);
		rc = qp == NULL ? errno : 0;
	}
	if (rc == 0) {
		attach(c, qp);
		rc = bring_up(c);
	}
	if (rc != 0) {
		detach_and_destroy(c);
		free_cqs(c);
		errno = rc;
		return -1;
	}
	c->qp_made = true;
	return 0;
}

int
rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
	       struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex a;

	if (qp_init_attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_context = qp_init_attr->qp_context;
	a.send_cq = qp_init_attr->send_cq;
	a.recv_cq = qp_init_attr->recv_cq;
	a.srq = qp_init_attr->srq;
	a.cap = qp_init_attr->cap;
	a.qp_type = qp_init_attr->qp_type;
	a.sq_sig_all = qp_init_attr->sq_sig_all;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = pd != NULL ? pd : id->pd;
	if (a.pd == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (create_qp(id, &a) != 0)
		return -1;
	qp_init_attr->cap = a.cap;
	return 0;
}

/* The attributes rdma_create_qp_ex takes: a PD and creation flags (rxd
 * offers IBV_QP_CREATE_BLOCK_SELF_MCAST_LB on UD QPs: mckey -l). */
int
rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_init_attr_ex a;
	uint32_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;

	if (attr == NULL || (attr->comp_mask & ~known)) {
		errno = attr == NULL ? EINVAL : EOPNOTSUPP;
		return -1;
	}
	a = *attr;
	if (!(a.comp_mask & IBV_QP_INIT_ATTR_PD))
		a.pd = id->pd;
	a.comp_mask |= IBV_QP_INIT_ATTR_PD;
	if (a.pd == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (create_qp(id, &a) != 0)
		return -1;
	attr->cap = a.cap;
	return 0;
}

void
rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct rxd_cm_id *c = rxd_cm_id(id);

	detach_and_destroy(c);
	c->qp_made = false;
	free_cqs(c);
}

int
rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
		  int *qp_attr_mask)
{
	struct rxd_cm_id *c = rxd_cm_id(id);
	int rc;

	if (qp_attr == NULL || qp_attr_mask == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&rxd_cm.lock);
	rc = rxd_cm_qp_attr(c, qp_attr->qp_state, qp_attr, qp_attr_mask);
	pthread_mutex_unlock(&rxd_cm.lock);
	return rxd_cm_result(rc);
}

int
rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		struct ibv_srq_init_attr *attr)
{
	if (id == NULL || attr == NULL || id->verbs == NULL) {
		errno = EINVAL;
		return -1;
	}
	id->srq = ibv_create_srq(pd != NULL ? pd : id->pd, attr);
	return id->srq != NULL ? 0 : -1;
}

int
rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr a;

	if (attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	return rdma_create_srq(id, attr->comp_mask & IBV_SRQ_INIT_ATTR_PD ?
			       attr->pd : NULL, &a);
}

void
rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (id->srq != NULL)
		ibv_destroy_srq(id->srq);
	id->srq = NULL;
}
