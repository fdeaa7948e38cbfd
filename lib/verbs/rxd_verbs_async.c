/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asynchronous events: a FIFO per context behind context->async_fd (an
 * eventfd, so poll() works), filled by the engines (QP, CQ, SRQ events) and
 * by port state changes, emptied by ibv_get_async_event().
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "rxd_qp.h"

void
rxd_verbs_async_push(struct rxd_context *ctx, const struct ibv_async_event *ev)
{
	struct rxd_async_event *e = malloc(sizeof(*e));
	uint64_t one = 1;

	if (e == NULL)
		return;
	e->ev = *ev;
	e->next = NULL;
	pthread_mutex_lock(&ctx->async_lock);
	if (ctx->async_tail != NULL)
		ctx->async_tail->next = e;
	else
		ctx->async_head = e;
	ctx->async_tail = e;
	pthread_mutex_unlock(&ctx->async_lock);
	if (write(ctx->vctx.context.async_fd, &one, sizeof(one)) < 0)
		return; /* the counter saturated: the events stay queued */
}

static bool
qp_event(enum ibv_event_type t)
{
	return t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR ||
		t == IBV_EVENT_QP_ACCESS_ERR || t == IBV_EVENT_COMM_EST ||
		t == IBV_EVENT_SQ_DRAINED || t == IBV_EVENT_PATH_MIG ||
		t == IBV_EVENT_PATH_MIG_ERR || t == IBV_EVENT_QP_LAST_WQE_REACHED;
}

static bool
cq_event(enum ibv_event_type t)
{
	return t == IBV_EVENT_CQ_ERR;
}

static bool
srq_event(enum ibv_event_type t)
{
	return t == IBV_EVENT_SRQ_ERR || t == IBV_EVENT_SRQ_LIMIT_REACHED;
}

/* Count an event as delivered, under async_lock, so that a destroy that
 * takes the lock next waits for its ack. */
static void
count_delivered(const struct ibv_async_event *event)
{
	if (qp_event(event->event_type))
		__atomic_add_fetch(&rxd_qp(event->element.qp)->events_delivered,
				   1, __ATOMIC_RELEASE);
	else if (cq_event(event->event_type))
		__atomic_add_fetch(&rxd_cq(event->element.cq)->events_delivered,
				   1, __ATOMIC_RELEASE);
}

int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct rxd_context *ctx = rxd_ctx(context);
	struct rxd_async_event *e = NULL;
	uint64_t n;

	/* one eventfd count per queued event (EFD_SEMAPHORE); a
	 * non-blocking fd returns EAGAIN to the caller, as documented; the
	 * count of an event its QP's destroy took back finds none: wait on */
	while (e == NULL) {
		if (read(context->async_fd, &n, sizeof(n)) != sizeof(n))
			return -1;
		pthread_mutex_lock(&ctx->async_lock);
		e = ctx->async_head;
		if (e != NULL) {
			ctx->async_head = e->next;
			if (ctx->async_head == NULL)
				ctx->async_tail = NULL;
			count_delivered(&e->ev);
		}
		pthread_mutex_unlock(&ctx->async_lock);
	}
	*event = e->ev;
	free(e);
	return 0;
}

/* Take back the queued events of a QP being destroyed (as uverbs drops
 * the events of a destroyed object): nobody may be handed it after. */
void
rxd_verbs_async_forget_qp(struct rxd_context *ctx, struct ibv_qp *qp)
{
	struct rxd_async_event **pp, *e;

	pthread_mutex_lock(&ctx->async_lock);
	ctx->async_tail = NULL;
	for (pp = &ctx->async_head; (e = *pp) != NULL;) {
		if (qp_event(e->ev.event_type) && e->ev.element.qp == qp) {
			*pp = e->next;
			free(e);
		} else {
			ctx->async_tail = e;
			pp = &e->next;
		}
	}
	pthread_mutex_unlock(&ctx->async_lock);
}

static void
ack(pthread_mutex_t *m, pthread_cond_t *c, uint32_t *completed)
{
	pthread_mutex_lock(m);
	(*completed)++;
	pthread_cond_broadcast(c);
	pthread_mutex_unlock(m);
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
	if (qp_event(event->event_type)) {
		struct ibv_qp *qp = event->element.qp;

		ack(&qp->mutex, &qp->cond, &qp->events_completed);
	} else if (cq_event(event->event_type)) {
		struct ibv_cq *cq = event->element.cq;

		ack(&cq->mutex, &cq->cond, &cq->async_events_completed);
	} else if (srq_event(event->event_type)) {
		struct ibv_srq *srq = event->element.srq;

		ack(&srq->mutex, &srq->cond, &srq->events_completed);
	}
}
