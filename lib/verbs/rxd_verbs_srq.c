/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues: create, modify (resize is refused, the limit can
 * be armed), query, destroy, post.  The engine consumes the ring and raises
 * IBV_EVENT_SRQ_LIMIT_REACHED once per arming.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "rxd_qp.h"

struct rxd_srq {
	struct ibv_srq ibsrq;
	struct rxd_srq_core core;
	pthread_spinlock_t lock;
	struct rxd_context *ctx;
	uint32_t max_wr, max_sge;
	uint32_t users;             /**< QPs using it */
};


static void
srq_event(struct rxd_srq_core *core, enum ibv_event_type ev)
{
	struct rxd_srq *srq = (struct rxd_srq *)((char *)core -
		__builtin_offsetof(struct rxd_srq, core));
	struct ibv_async_event ae;

	ae.element.srq = &srq->ibsrq;
	ae.event_type = ev;
	rxd_verbs_async_push(srq->ctx, &ae);
}

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct rxd_context *ctx = rxd_ctx(pd->context);
	struct rxd_srq *srq;

	if (attr->attr.max_wr == 0 ||
	    attr->attr.max_wr > rxd_verbs.conf.srq_depth ||
	    attr->attr.max_sge > RXD_MAX_SGE ||
	    attr->attr.srq_limit > attr->attr.max_wr) {
		errno = EINVAL;
		return NULL;
	}
	if (ctx->n_srq >= rxd_verbs.conf.max_srq ||
	    (srq = calloc(1, sizeof(*srq))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	srq->core.ring = rxd_verbs_ring_shared("srq", ctx->dev->port,
					       attr->attr.max_wr,
					       sizeof(struct rxd_recv_wqe));
	if (srq->core.ring == NULL) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	srq->core.limit = attr->attr.srq_limit;
	srq->core.event = srq_event;
	srq->ctx = ctx;
	srq->max_wr = attr->attr.max_wr;
	srq->max_sge = attr->attr.max_sge;
	srq->ibsrq.context = pd->context;
	srq->ibsrq.srq_context = attr->srq_context;
	srq->ibsrq.pd = pd;
	pthread_mutex_init(&srq->ibsrq.mutex, NULL);
	pthread_cond_init(&srq->ibsrq.cond, NULL);
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	__atomic_add_fetch(&rxd_pd(pd)->users, 1, __ATOMIC_RELEASE);
	ctx->n_srq++;
	return &srq->ibsrq;
}

int
ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr, int mask)
{
	struct rxd_srq *srq = (struct rxd_srq *)ibsrq;

	if (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return EINVAL;
	if (mask & IBV_SRQ_MAX_WR)
		return EOPNOTSUPP; /* device_cap_flags has no SRQ_RESIZE */
	if ((mask & IBV_SRQ_LIMIT) && attr->srq_limit > srq->max_wr)
		return EINVAL;
	if (mask & IBV_SRQ_LIMIT)
		__atomic_store_n(&srq->core.limit, attr->srq_limit,
				 __ATOMIC_RELEASE);
	return 0;
}

int
ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct rxd_srq *srq = (struct rxd_srq *)ibsrq;

	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = __atomic_load_n(&srq->core.limit, __ATOMIC_ACQUIRE);
	return 0;
}

int
ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct rxd_srq *srq = (struct rxd_srq *)ibsrq;

	if (__atomic_load_n(&srq->users, __ATOMIC_ACQUIRE) != 0)
		return EBUSY;
	pthread_mutex_lock(&ibsrq->mutex);
	pthread_mutex_unlock(&ibsrq->mutex);
	rxd_sync_engines();
	rxd_verbs_ring_free(srq->core.ring);
	__atomic_sub_fetch(&rxd_pd(ibsrq->pd)->users, 1, __ATOMIC_RELEASE);
	srq->ctx->n_srq--;
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

int
rxd_verbs_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct rxd_srq *srq = (struct rxd_srq *)ibsrq;
	int rc;

	pthread_spin_lock(&srq->lock);
	rc = rxd_verbs_recv_push(srq->core.ring, srq->max_sge, wr, bad_wr);
	pthread_spin_unlock(&srq->lock);
	return rc;
}

struct rxd_srq_core *
rxd_verbs_srq_attach(struct ibv_srq *ibsrq)
{
	struct rxd_srq *srq = (struct rxd_srq *)ibsrq;

	__atomic_add_fetch(&srq->users, 1, __ATOMIC_RELEASE);
	return &srq->core;
}

void
rxd_verbs_srq_detach(struct ibv_srq *ibsrq)
{
	__atomic_sub_fetch(&((struct rxd_srq *)ibsrq)->users, 1,
			   __ATOMIC_RELEASE);
}
