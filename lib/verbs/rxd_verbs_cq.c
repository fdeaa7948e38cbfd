/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion channels and CQs: create, resize, destroy, poll (classic and
 * extended), arming, and the completion events delivered through the
 * channel's eventfd (so poll()/epoll on channel->fd work); QP1's CQ, which
 * has its own size limit.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include "rxd_cq.h"
#include "rxd_qp_engine.h"
#include "rxd_verbs_gsi.h"

#define CQ_POLL_BURST 32
#define CQ_YIELD_EVERY 64


struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	struct rxd_channel *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->ch.context = context;
	c->ch.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (c->ch.fd < 0) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	return &c->ch;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct rxd_channel *c = (struct rxd_channel *)channel;

	if (__atomic_load_n(&channel->refcnt, __ATOMIC_ACQUIRE) != 0)
		return EBUSY;
	close(channel->fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return 0;
}

/* Engine side: an armed CQ completed, or its ring overflowed. */
static void
cq_event(struct rxd_cq_core *core, enum rxd_cq_event ev)
{
	struct rxd_cq *cq = (struct rxd_cq *)((char *)core -
		__builtin_offsetof(struct rxd_cq, core));
	struct rxd_channel *c = (struct rxd_channel *)cq->cqx.channel;
	struct ibv_async_event ae;
	uint64_t one = 1;

	if (ev == RXD_CQ_EV_OVERRUN) {
		ae.element.cq = ibv_cq_ex_to_cq(&cq->cqx);
		ae.event_type = IBV_EVENT_CQ_ERR;
		rxd_verbs_async_push(cq->ctx, &ae);
		return;
	}
	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	if (cq->fired++ == 0) {
		cq->next_fired = NULL;
		if (c->tail != NULL)
			c->tail->next_fired = cq;
		else
			c->head = cq;
		c->tail = cq;
	}
	pthread_mutex_unlock(&c->lock);
	if (write(c->ch.fd, &one, sizeof(one)) != sizeof(one))
		rte_panic("rxd: completion channel eventfd write failed\n");
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq_out,
		 void **cq_context)
{
	struct rxd_channel *c = (struct rxd_channel *)channel;
	struct rxd_cq *cq;
	uint64_t v;

	if (read(channel->fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	pthread_mutex_lock(&c->lock);
	cq = c->head;
	if (cq != NULL && --cq->fired == 0) {
		c->head = cq->next_fired;
		if (c->head == NULL)
			c->tail = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	if (cq == NULL) {
		errno = EAGAIN;
		return -1;
	}
	__atomic_add_fetch(&cq->events_delivered, 1, __ATOMIC_RELEASE);
	*cq_out = ibv_cq_ex_to_cq(&cq->cqx);
	*cq_context = cq->cqx.cq_context;
	return 0;
}

void
ibv_ack_cq_events(struct ibv_cq *ibcq, unsigned int nevents)
{
	pthread_mutex_lock(&ibcq->mutex);
	ibcq->comp_events_completed += nevents;
	pthread_cond_broadcast(&ibcq->cond);
	pthread_mutex_unlock(&ibcq->mutex);
}

static const uint64_t cq_wc_flags_known = IBV_WC_EX_WITH_BYTE_LEN |
	IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
	IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
	IBV_WC_EX_WITH_DLID_PATH_BITS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
	IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;

static void set_ex_poll_ops(struct rxd_cq *cq);

static int
check_cq_attr(struct rxd_context *ctx, const struct ibv_cq_init_attr_ex *a,
	      uint32_t max_cqe)
{
	if (a->cqe == 0 || a->cqe > max_cqe)
		return EINVAL;
	if ((int)a->comp_vector >= ctx->vctx.context.num_comp_vectors)
		return EINVAL;
	if (a->wc_flags & ~cq_wc_flags_known)
		return EOPNOTSUPP;
	if (a->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
				       IBV_CQ_INIT_ATTR_MASK_PD))
		return EINVAL;
	if ((a->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (a->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return EOPNOTSUPP;
	if (ctx->n_cq >= rxd_verbs.conf.max_cq)
		return ENOMEM;
	return 0;
}

/* A CQ of at most max_cqe entries. */
static struct ibv_cq_ex *
create_cq(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr,
	  uint32_t max_cqe)
{
	struct rxd_context *ctx = rxd_ctx(context);
	struct rxd_cq *cq;
	int rc = check_cq_attr(ctx, attr, max_cqe);

	if (rc != 0 || (cq = calloc(1, sizeof(*cq))) == NULL) {
		errno = rc ? rc : ENOMEM;
		return NULL;
	}
	cq->core.ring = rxd_verbs_ring_shared("cq", ctx->dev->port, attr->cqe,
					      sizeof(struct rxd_cqe));
	if (cq->core.ring == NULL) {
		free(cq);
		errno = rte_errno == ENOSPC ? ENOMEM : rte_errno;
		return NULL;
	}
	cq->core.event = cq_event;
	cq->core.stamped = (attr->wc_flags &
		(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
		 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)) != 0;
	cq->ctx = ctx;
	cq->wc_flags = attr->wc_flags;
	cq->cqx.context = context;
	cq->cqx.channel = attr->channel;
	cq->cqx.cq_context = attr->cq_context;
	cq->cqx.cqe = (int)attr->cqe;
	pthread_mutex_init(&cq->cqx.mutex, NULL);
	pthread_cond_init(&cq->cqx.cond, NULL);
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	set_ex_poll_ops(cq);
	if (attr->channel != NULL)
		__atomic_add_fetch(&attr->channel->refcnt, 1, __ATOMIC_RELEASE);
	ctx->n_cq++;
	return &cq->cqx;
}

struct ibv_cq_ex *
rxd_verbs_create_cq_ex(struct ibv_context *context,
		       struct ibv_cq_init_attr_ex *attr)
{
	return create_cq(context, attr, rxd_verbs.conf.cq_depth);
}

/* ibv_create_cq's arguments, at most max_cqe entries. */
static struct ibv_cq *
create_cq_basic(struct ibv_context *context, int cqe, void *cq_context,
		struct ibv_comp_channel *channel, int comp_vector,
		uint32_t max_cqe)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = cqe < 0 ? 0 : (uint32_t)cqe,
		.cq_context = cq_context,
		.channel = channel,
		.comp_vector = comp_vector < 0 ? UINT32_MAX :
			(uint32_t)comp_vector,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *cqx = create_cq(context, &a, max_cqe);

	return cqx == NULL ? NULL : ibv_cq_ex_to_cq(cqx);
}

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	      struct ibv_comp_channel *channel, int comp_vector)
{
	return create_cq_basic(context, cqe, cq_context, channel, comp_vector,
			       rxd_verbs.conf.cq_depth);
}

struct ibv_cq *
rxd_verbs_create_gsi_cq(struct ibv_context *context, int cqe,
			struct ibv_comp_channel *channel)
{
	return create_cq_basic(context, cqe, NULL, channel, 0,
			       RXD_GSI_MAX_CQE);
}

struct resize_arg {
	struct rxd_cq *cq;
	struct rte_ring *ring;
};

/* On the engine: move the entries to the new ring and switch. */
static int
resize_cmd(struct rxd_engine *e, void *arg)
{
	struct resize_arg *r = arg;
	struct rxd_cqe c;
	struct rte_ring *old = r->cq->core.ring;

	(void)e;
	if (rte_ring_count(old) > rte_ring_get_capacity(r->ring))
		return -EINVAL;
	while (rte_ring_sc_dequeue_elem(old, &c, sizeof(c)) == 0)
		rte_ring_sp_enqueue_elem(r->ring, &c, sizeof(c));
	r->cq->core.ring = r->ring;
	r->ring = old;
	return 0;
}

static int
nothing_cmd(struct rxd_engine *e, void *arg)
{
	(void)e;
	(void)arg;
	return 0;
}

/*
 * Let the engine act on the work posted before this call, so that its
 * completions are in the CQ when resize counts them (what a kernel
 * provider gives: its post runs the send path before returning).  An
 * engine pass runs commands, then the send queues that rang: once an
 * empty command has run on an engine lcore, the doorbells rung before it
 * are served in the same pass, before any later command.  An engine
 * without an lcore runs the command in place, between passes, so it only
 * waits for a pass begun before the posts; then one pass begun after them
 * runs here, or is running in rxd's watcher, and the resize command
 * waits for it in turn.
 */
static void
settle_engine(unsigned int port)
{
	rxd_port_call(port, nothing_cmd, NULL);
	if (rxd_inline_progress())
		rxd_poll();
}

int
ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct rxd_cq *cq = rxd_cq(ibcq);
	struct resize_arg r = { .cq = cq };
	int rc;

	if (cqe <= 0 || (uint32_t)cqe > rxd_verbs.conf.cq_depth)
		return EINVAL;
	r.ring = rxd_verbs_ring_shared("cq", cq->ctx->dev->port, (uint32_t)cqe,
				       sizeof(struct rxd_cqe));
	if (r.ring == NULL)
		return ENOMEM;
	settle_engine(cq->ctx->dev->port);
	pthread_spin_lock(&cq->lock);
	rc = rxd_port_call(cq->ctx->dev->port, resize_cmd, &r);
	pthread_spin_unlock(&cq->lock);
	rxd_verbs_ring_free(r.ring);
	if (rc != 0)
		return -rc;
	ibcq->cqe = cqe;
	return 0;
}

struct clean_arg {
	struct rxd_cq *cq;
	uint32_t qpn;
};

/* On the engine (the producer), with the poll lock held (no consumer):
 * take every entry out once and put back those of other QPs, in order. */
static int
clean_cmd(struct rxd_engine *e, void *arg)
{
	struct clean_arg *a = arg;
	struct rte_ring *ring = a->cq->core.ring;
	unsigned int n = rte_ring_count(ring);
	struct rxd_cqe c;

	(void)e;
	while (n-- > 0 && rte_ring_sc_dequeue_elem(ring, &c, sizeof(c)) == 0) {
		if (c.wc.qp_num == a->qpn)
			rxd_verbs_sq_retire(a->cq->ctx, &c);
		else
			rte_ring_sp_enqueue_elem(ring, &c, sizeof(c));
	}
	return 0;
}

void
rxd_verbs_cq_clean(struct ibv_cq *ibcq, uint32_t qpn)
{
	struct rxd_cq *cq = rxd_cq(ibcq);
	struct clean_arg a = { .cq = cq, .qpn = qpn };

	pthread_spin_lock(&cq->lock);
	rxd_port_call(cq->ctx->dev->port, clean_cmd, &a);
	pthread_spin_unlock(&cq->lock);
}

int
ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct rxd_cq *cq = rxd_cq(ibcq);

	if (__atomic_load_n(&cq->users, __ATOMIC_ACQUIRE) != 0)
		return EBUSY;
	pthread_mutex_lock(&ibcq->mutex);
	while (ibcq->comp_events_completed !=
	       __atomic_load_n(&cq->events_delivered, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
	pthread_mutex_unlock(&ibcq->mutex);
	if (ibcq->channel != NULL)
		__atomic_sub_fetch(&ibcq->channel->refcnt, 1, __ATOMIC_RELEASE);
	rxd_verbs_ring_free(cq->core.ring);
	pthread_spin_destroy(&cq->lock);
	cq->ctx->n_cq--;
	free(cq);
	return 0;
}

/*
 * Nothing to poll: drive inline engines, or, when engines have lcores of
 * their own, give the CPU away now and then.  A program spinning on an
 * empty CQ must not starve the engine that will fill it (2-core machines
 * run more busy threads than cores; see doc/performance.md).
 */
static void
idle_poll(struct rxd_cq *cq)
{
	if (rxd_inline_progress()) {
		rxd_poll();
		return;
	}
	if (++cq->empty_polls % CQ_YIELD_EVERY == 0)
		sched_yield();
}

int
rxd_verbs_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct rxd_cq *cq = rxd_cq(ibcq);
	struct rxd_cqe c[CQ_POLL_BURST];
	unsigned int got, i;
	int done = 0;

	if (n < 0)
		return -1;
	pthread_spin_lock(&cq->lock);
	while (done < n) {
		unsigned int want = (unsigned int)(n - done);

		got = rte_ring_sc_dequeue_burst_elem(cq->core.ring, c,
			sizeof(c[0]), want < CQ_POLL_BURST ? want : CQ_POLL_BURST,
			NULL);
		for (i = 0; i < got; i++) {
			wc[done++] = c[i].wc;
			rxd_verbs_sq_retire(cq->ctx, &c[i]);
		}
		if (got < CQ_POLL_BURST)
			break;
	}
	pthread_spin_unlock(&cq->lock);
	if (done == 0)
		idle_poll(cq);
	else
		cq->empty_polls = 0;
	return done;
}

int
rxd_verbs_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct rxd_cq *cq = rxd_cq(ibcq);

	rxd_cq_arm(&cq->core, solicited_only != 0);
	return 0;
}

/* Extended poll: ibv_start_poll / ibv_next_poll / ibv_end_poll. */
static int
ex_load(struct rxd_cq *cq)
{
	if (rte_ring_sc_dequeue_elem(cq->core.ring, &cq->cur,
				     sizeof(cq->cur)) != 0)
		return ENOENT;
	rxd_verbs_sq_retire(cq->ctx, &cq->cur);
	cq->empty_polls = 0;
	cq->cqx.wr_id = cq->cur.wc.wr_id;
	cq->cqx.status = cq->cur.wc.status;
	return 0;
}

static int
ex_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct rxd_cq *cq = (struct rxd_cq *)cqx;
	int rc;

	if (attr->comp_mask != 0)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	rc = ex_load(cq);
	if (rc != 0) {
		pthread_spin_unlock(&cq->lock);
		idle_poll(cq);
	}
	return rc;
}

static int
ex_next_poll(struct ibv_cq_ex *cqx)
{
	return ex_load((struct rxd_cq *)cqx);
}

static void
ex_end_poll(struct ibv_cq_ex *cqx)
{
	pthread_spin_unlock(&((struct rxd_cq *)cqx)->lock);
}

#define CUR(cqx) (((struct rxd_cq *)(cqx))->cur)

static enum ibv_wc_opcode ex_opcode(struct ibv_cq_ex *x) { return CUR(x).wc.opcode; }
static uint32_t ex_vendor_err(struct ibv_cq_ex *x) { return CUR(x).wc.vendor_err; }
static uint32_t ex_byte_len(struct ibv_cq_ex *x) { return CUR(x).wc.byte_len; }
static __be32 ex_imm(struct ibv_cq_ex *x) { return CUR(x).wc.imm_data; }
static uint32_t ex_qp_num(struct ibv_cq_ex *x) { return CUR(x).wc.qp_num; }
static uint32_t ex_src_qp(struct ibv_cq_ex *x) { return CUR(x).wc.src_qp; }
static unsigned int ex_wc_flags(struct ibv_cq_ex *x) { return CUR(x).wc.wc_flags; }
static uint32_t ex_slid(struct ibv_cq_ex *x) { return CUR(x).wc.slid; }
static uint8_t ex_sl(struct ibv_cq_ex *x) { return CUR(x).wc.sl; }
static uint8_t ex_dlid_bits(struct ibv_cq_ex *x) { return CUR(x).wc.dlid_path_bits; }
static uint64_t ex_ts(struct ibv_cq_ex *x) { return CUR(x).ts; }
static uint64_t ex_wall_ns(struct ibv_cq_ex *x)
{
	return rxd_verbs_wallclock_ns(CUR(x).ts);
}

static void
set_ex_poll_ops(struct rxd_cq *cq)
{
	struct ibv_cq_ex *x = &cq->cqx;

	x->start_poll = ex_start_poll;
	x->next_poll = ex_next_poll;
	x->end_poll = ex_end_poll;
	x->read_opcode = ex_opcode;
	x->read_vendor_err = ex_vendor_err;
	x->read_byte_len = ex_byte_len;
	x->read_imm_data = ex_imm;
	x->read_qp_num = ex_qp_num;
	x->read_src_qp = ex_src_qp;
	x->read_wc_flags = ex_wc_flags;
	x->read_slid = ex_slid;
	x->read_sl = ex_sl;
	x->read_dlid_path_bits = ex_dlid_bits;
	if (cq->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		x->read_completion_ts = ex_ts;
	if (cq->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) {
		rxd_verbs_clock_init(); /* before any stamp it converts */
		x->read_completion_wallclock_ns = ex_wall_ns;
	}
}
