/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP lifetime: create (caps checked against the enforced limits, QPN
 * allocated, rings built, core attached to the port's engine), modify
 * (rxd_qp_attr_check, then applied on the engine), query, destroy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "rxd_qp.h"
#include "rxd_verbs_gsi.h"

/* QPN allocation: one bitmap per port, first free from RXD_QPN_FIRST. */
static pthread_mutex_t qpn_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *qpn_used[RXD_MAX_PORTS];

/* QPN 0 asks for the first free application QPN; the GSI QP asks for 1. */
static int
qpn_alloc(unsigned int port, uint32_t *qpn)
{
	uint32_t n = RXD_QPN_FIRST + rxd_verbs.conf.max_qp, i;
	uint32_t first = *qpn ? *qpn : RXD_QPN_FIRST;
	uint32_t end = *qpn ? *qpn + 1 : n;
	int rc = *qpn ? EBUSY : ENOMEM;

	pthread_mutex_lock(&qpn_lock);
	if (qpn_used[port] == NULL)
		qpn_used[port] = calloc((n + 63) / 64, sizeof(uint64_t));
	for (i = first; qpn_used[port] != NULL && i < end; i++) {
		if (!(qpn_used[port][i / 64] & (1ull << (i % 64)))) {
			qpn_used[port][i / 64] |= 1ull << (i % 64);
			*qpn = i;
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&qpn_lock);
	return rc;
}

static void
qpn_free(unsigned int port, uint32_t qpn)
{
	pthread_mutex_lock(&qpn_lock);
	qpn_used[port][qpn / 64] &= ~(1ull << (qpn % 64));
	pthread_mutex_unlock(&qpn_lock);
}

/* The deepest send and receive queues a QP may have: QP1 has its own. */
static void
depth_limits(uint32_t qpn, uint32_t *sq, uint32_t *rq)
{
	const struct rxd_conf *conf = &rxd_verbs.conf;

	*sq = qpn == RXD_QPN_GSI ? RXD_GSI_MAX_WR : conf->sq_depth;
	*rq = qpn == RXD_QPN_GSI ? RXD_GSI_MAX_WR : conf->rq_depth;
}

static int
check_init_attr(struct rxd_context *ctx, const struct ibv_qp_init_attr_ex *a,
		uint32_t qpn)
{
	const struct rxd_conf *conf = &rxd_verbs.conf;
	const struct ibv_qp_cap *c = &a->cap;
	uint32_t sq_max, rq_max;

	if (!(a->comp_mask & IBV_QP_INIT_ATTR_PD) || a->pd == NULL ||
	    a->send_cq == NULL || a->recv_cq == NULL)
		return EINVAL;
	if (a->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
				       IBV_QP_INIT_ATTR_CREATE_FLAGS |
				       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return EOPNOTSUPP;
	/* none asked is fine (Soft-RoCE too); the one flag offered is
	 * blocking multicast loopback, which rxd never does (a UD send to a
	 * group does not come back to its own port) */
	if ((a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    (a->create_flags & ~(uint32_t)IBV_QP_CREATE_BLOCK_SELF_MCAST_LB ||
	     (a->create_flags != 0 && a->qp_type != IBV_QPT_UD)))
		return EOPNOTSUPP;
	if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC &&
	    a->qp_type != IBV_QPT_UD)
		return EOPNOTSUPP;
	if ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (a->send_ops_flags & ~rxd_wr_send_ops()))
		return EOPNOTSUPP;
	depth_limits(qpn, &sq_max, &rq_max);
	if (c->max_send_wr > sq_max || c->max_send_sge > RXD_MAX_SGE ||
	    c->max_inline_data > RXD_MAX_INLINE ||
	    (a->srq == NULL && (c->max_recv_wr > rq_max ||
				c->max_recv_sge > RXD_MAX_SGE)))
		return EINVAL;
	if (a->pd->context != &ctx->vctx.context ||
	    a->send_cq->context != a->pd->context ||
	    a->recv_cq->context != a->pd->context)
		return EINVAL;
	if (ctx->n_qp >= conf->max_qp)
		return ENOMEM;
	return 0;
}

static void
qp_async(struct rxd_qp_core *core, enum ibv_event_type ev)
{
	struct rxd_qp *qp = (struct rxd_qp *)((char *)core -
		__builtin_offsetof(struct rxd_qp, core));
	struct ibv_async_event ae;

	ae.element.qp = &qp->qpx.qp_base;
	ae.event_type = ev;
	rxd_verbs_async_push(qp->ctx, &ae);
}

static int
build_core(struct rxd_qp *qp, const struct ibv_qp_init_attr_ex *a)
{
	struct rxd_qp_core *core = &qp->core;
	int rc;

	core->type = a->qp_type;
	core->pd = a->pd;
	core->port = qp->ctx->dev->port;
	core->scq = &rxd_cq(a->send_cq)->core;
	core->rcq = &rxd_cq(a->recv_cq)->core;
	core->sq_sig_all = a->sq_sig_all;
	core->async = qp_async;
	core->sq = rxd_verbs_ring("sq", a->cap.max_send_wr,
			   sizeof(struct rxd_send_wqe));
	if (a->srq == NULL)
		core->rq = rxd_verbs_ring("rq", a->cap.max_recv_wr,
				   sizeof(struct rxd_recv_wqe));
	else
		core->srq = rxd_verbs_srq_attach(a->srq);
	if (core->sq == NULL || (a->srq == NULL && core->rq == NULL))
		return ENOMEM;
	rc = qpn_alloc(core->port, &core->qpn);
	if (rc != 0)
		return rc;
	if (rxd_qp_attach(core, a->cap.max_send_wr) != 0) {
		qpn_free(core->port, core->qpn);
		return ENOMEM;
	}
	return 0;
}

static void
free_core(struct rxd_qp *qp)
{
	rxd_verbs_ring_free(qp->core.sq);
	rxd_verbs_ring_free(qp->core.rq);
	if (qp->core.srq != NULL)
		rxd_verbs_srq_detach(qp->qpx.qp_base.srq);
}

static void
fill_handle(struct rxd_qp *qp, struct ibv_context *context,
	    const struct ibv_qp_init_attr_ex *a)
{
	struct ibv_qp *q = &qp->qpx.qp_base;

	q->context = context;
	q->qp_context = a->qp_context;
	q->pd = a->pd;
	q->send_cq = a->send_cq;
	q->recv_cq = a->recv_cq;
	q->srq = a->srq;
	q->qp_num = qp->core.qpn;
	q->handle = qp->core.qpn;
	q->state = IBV_QPS_RESET;
	q->qp_type = a->qp_type;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
}

static void
take_users(const struct ibv_qp_init_attr_ex *a, int delta)
{
	__atomic_add_fetch(&rxd_pd(a->pd)->users, delta, __ATOMIC_RELEASE);
	__atomic_add_fetch(&rxd_cq(a->send_cq)->users, delta, __ATOMIC_RELEASE);
	__atomic_add_fetch(&rxd_cq(a->recv_cq)->users, delta, __ATOMIC_RELEASE);
}

/* Create a QP; qpn 0 for the next free application QPN. */
static struct ibv_qp *
create_qp(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr,
	  uint32_t qpn)
{
	struct rxd_context *ctx = rxd_ctx(context);
	struct rxd_qp *qp;
	int rc = check_init_attr(ctx, attr, qpn);

	if (rc != 0 || (qp = calloc(1, sizeof(*qp))) == NULL) {
		errno = rc ? rc : ENOMEM;
		return NULL;
	}
	qp->ctx = ctx;
	qp->core.qpn = qpn;
	qp->qpx.qp_base.srq = attr->srq;
	attr->cap.max_inline_data = RXD_MAX_INLINE;
	qp->cap = attr->cap;
	rc = build_core(qp, attr);
	if (rc != 0) {
		free_core(qp);
		free(qp);
		errno = rc;
		return NULL;
	}
	rxd_qp_state_init(&qp->st, attr->qp_type);
	qp->st.attr.cap = qp->cap;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	fill_handle(qp, context, attr);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qp->send_ops_flags = attr->send_ops_flags;
		if (rxd_verbs_qp_ex_init(qp) != 0) {
			rxd_qp_detach(&qp->core);
			qpn_free(qp->core.port, qp->core.qpn);
			free_core(qp);
			free(qp);
			errno = ENOMEM;
			return NULL;
		}
	}
	take_users(attr, 1);
	ctx->n_qp++;
	return &qp->qpx.qp_base;
}

struct ibv_qp *
rxd_verbs_create_qp_ex(struct ibv_context *context,
		       struct ibv_qp_init_attr_ex *attr)
{
	return create_qp(context, attr, 0);
}

/* ibv_create_qp with a chosen QPN (0: the next free one). */
static struct ibv_qp *
create_qp_basic(struct ibv_pd *pd, struct ibv_qp_init_attr *attr,
		uint32_t qpn)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	memcpy(&a, attr, sizeof(*attr));
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = pd;
	qp = create_qp(pd->context, &a, qpn);
	if (qp != NULL)
		attr->cap = a.cap;
	return qp;
}

struct ibv_qp *
rxd_verbs_create_gsi_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	if (attr->qp_type != IBV_QPT_UD) {
		errno = EINVAL;
		return NULL;
	}
	return create_qp_basic(pd, attr, RXD_QPN_GSI);
}

struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	return create_qp_basic(pd, attr, 0);
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	struct rxd_qp *qp = rxd_qp(ibqp);

	return qp->send_ops_flags ? &qp->qpx : NULL;
}

static void
limits(struct rxd_qp *qp, struct rxd_qp_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->max_mtu = IBV_MTU_4096;
	l->gid_tbl_len = RXD_GID_TBL_LEN;
	l->pkey_tbl_len = RXD_PKEY_TBL_LEN;
	l->phys_port_cnt = 1;
	l->max_rd_atomic = RXD_MAX_RD_ATOMIC;
	l->max_dest_rd_atomic = RXD_MAX_RD_ATOMIC;
	l->max_send_wr = qp->cap.max_send_wr;
	l->max_recv_wr = qp->cap.max_recv_wr;
	l->max_send_sge = qp->cap.max_send_sge;
	l->max_recv_sge = qp->cap.max_recv_sge;
	l->max_inline_data = qp->cap.max_inline_data;
}

/* A Q_Key with the high bit set is privileged (CAP_NET_RAW), as on Linux. */
static bool
qkey_allowed(uint32_t qkey)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (!(qkey & 0x80000000u))
		return true;
	if (syscall(SYS_capget, &h, d) != 0)
		return false;
	return d[CAP_NET_RAW / 32].effective & (1u << (CAP_NET_RAW % 32));
}

/* The engine moves a QP to ERR on its own (transport errors). */
static void
sync_state(struct rxd_qp *qp)
{
	if (__atomic_load_n(&qp->core.attr.qp_state, __ATOMIC_ACQUIRE) ==
	    IBV_QPS_ERR && qp->st.attr.qp_state != IBV_QPS_RESET) {
		qp->st.attr.qp_state = IBV_QPS_ERR;
		qp->qpx.qp_base.state = IBV_QPS_ERR;
	}
}

RTE_LOG_REGISTER(rxd_logtype_verbs, rxd.verbs, NOTICE);

/* Say why a modify was refused, at debug level (RXD_LOG=debug). */
static void
log_refusal(const struct rxd_qp *qp, const struct ibv_qp_attr *attr,
	    int mask, int rc)
{
	enum ibv_qp_state to = (mask & IBV_QP_STATE) ? attr->qp_state :
		qp->st.attr.qp_state;
	int req = 0, opt = 0;

	if (rxd_qp_transition_masks(qp->st.type, qp->st.attr.qp_state, to,
				    &req, &opt) != 0) {
		rte_log(RTE_LOG_DEBUG, rxd_logtype_verbs, "rxd: QP %u: no transition %d -> %d\n",
			qp->core.qpn, qp->st.attr.qp_state, to);
		return;
	}
	rte_log(RTE_LOG_DEBUG, rxd_logtype_verbs, "rxd: QP %u: modify %d -> %d refused (%s): "
		"missing %s, not allowed %s, else a value out of range\n",
		qp->core.qpn, qp->st.attr.qp_state, to, strerror(rc),
		rxd_qp_attr_name(req & ~mask),
		rxd_qp_attr_name(mask & ~(req | opt | IBV_QP_STATE)));
}

/*
 * A QP moved to RESET leaves nothing behind in its CQs: the completions
 * not yet polled (flushed WQEs of the error state, for one) are dropped,
 * as mlx5 providers drop them, so a QP brought back to RTS does not
 * deliver stale ones (rdma-core's suite relies on it).
 */
static void
take_back_completions(struct ibv_qp *ibqp)
{
	rxd_verbs_cq_clean(ibqp->send_cq, ibqp->qp_num);
	if (ibqp->recv_cq != NULL && ibqp->recv_cq != ibqp->send_cq)
		rxd_verbs_cq_clean(ibqp->recv_cq, ibqp->qp_num);
}

int
ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct rxd_qp *qp = rxd_qp(ibqp);
	struct rxd_qp_limits lim;
	int rc;

	limits(qp, &lim);
	pthread_mutex_lock(&ibqp->mutex);
	sync_state(qp);
	rc = rxd_qp_attr_check(&qp->st, attr, attr_mask, &lim);
	if (rc == 0 && (attr_mask & IBV_QP_QKEY) && qp->core.qpn != RXD_QPN_GSI &&
	    !qkey_allowed(attr->qkey))
		rc = EPERM;
	if (rc == 0) {
		rxd_qp_attr_apply(&qp->st, attr, attr_mask);
		rc = -rxd_qp_apply(&qp->core, &qp->st.attr, attr_mask);
		ibqp->state = qp->st.attr.qp_state;
		if (rc == 0 && ibqp->state == IBV_QPS_RESET)
			take_back_completions(ibqp);
	} else {
		log_refusal(qp, attr, attr_mask, rc);
	}
	pthread_mutex_unlock(&ibqp->mutex);
	return rc;
}

int
ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
	     struct ibv_qp_init_attr *init_attr)
{
	struct rxd_qp *qp = rxd_qp(ibqp);

	(void)attr_mask;  /* every attribute is returned, as rxe does */
	pthread_mutex_lock(&ibqp->mutex);
	sync_state(qp);
	*attr = qp->st.attr;
	pthread_mutex_unlock(&ibqp->mutex);
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = qp->cap;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->sq_sig_all = qp->core.sq_sig_all;
	return 0;
}

int
ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct rxd_qp *qp = rxd_qp(ibqp);
	struct ibv_qp_init_attr_ex a = {
		.pd = ibqp->pd, .send_cq = ibqp->send_cq,
		.recv_cq = ibqp->recv_cq,
	};

	if (__atomic_load_n(&qp->mcast_attached, __ATOMIC_RELAXED) != 0)
		return EBUSY;      /* as uverbs: detach from the groups first */
	rxd_verbs_async_forget_qp(qp->ctx, ibqp);
	pthread_mutex_lock(&ibqp->mutex);
	while (ibqp->events_completed !=
	       __atomic_load_n(&qp->events_delivered, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&ibqp->cond, &ibqp->mutex);
	pthread_mutex_unlock(&ibqp->mutex);
	rxd_verbs_mw_qp_gone(&qp->core);
	rxd_qp_detach(&qp->core);
	qpn_free(qp->core.port, qp->core.qpn);
	free_core(qp);
	take_users(&a, -1);
	qp->ctx->n_qp--;
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp->wr_batch);
	free(qp);
	return 0;
}

/* Completions free send slots: the CQE says how many it retires. */
void
rxd_verbs_sq_retire(struct rxd_context *ctx, const struct rxd_cqe *c)
{
	struct rxd_qp_core *core;
	struct rxd_qp *qp;

	if (c->sq_retired == 0)
		return;
	core = rxd_qp_lookup(ctx->dev->port, c->wc.qp_num);
	if (core == NULL)
		return;
	qp = (struct rxd_qp *)((char *)core -
		__builtin_offsetof(struct rxd_qp, core));
	__atomic_sub_fetch(&qp->sq_outstanding, c->sq_retired,
			   __ATOMIC_RELEASE);
}
