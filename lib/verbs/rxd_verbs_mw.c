/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory windows: ibv_alloc_mw, ibv_dealloc_mw, ibv_bind_mw (type 1) and
 * the BIND_MW and LOCAL_INV work requests of both posting APIs (type 2).
 *
 * A window is a key-table entry (lib/qp/rxd_mr.c) whose binding
 * names part of an MR with the window's own rkey and rights.  A bind or a
 * local invalidation is applied here, on the posting thread, when the
 * work request is posted; its WQE then completes in send-queue order
 * (IBV_WC_BIND_MW, IBV_WC_LOCAL_INV) without sending anything.  A bind
 * publishes a new, immutable binding in place of the old one, so an
 * engine sees one or the other; an invalidation (local, or remote by SEND
 * with Invalidate on the engine) only clears the binding's valid flag.
 * Old bindings are freed after rxd_sync_engines(): at dealloc, or when
 * RETIRED_MAX of them have piled up.  Destroying a QP invalidates the type
 * 2 windows bound through it.
 *
 * Checks follow the IBTA rules Soft-RoCE applies: the MR has
 * IBV_ACCESS_MW_BIND and lies in the window's PD, the window's range lies
 * in the MR, remote write or atomic rights need the MR's local write,
 * a type 2 window is bound only while free, through a QP of its PD, with
 * a key differing from the window's only in the key byte, and never with
 * zero length; a type 1 window is not zero-based.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "rxd_mr.h"
#include "rxd_qp.h"
#include "rxd_verbs.h"

#define RETIRED_MAX 32
#define MW_RIGHTS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
	IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC | \
	IBV_ACCESS_ZERO_BASED)

struct rxd_mw {
	struct ibv_mw ibmw;
	struct rxd_mr *binding;     /**< in the key table */
	struct rxd_mr *retired[RETIRED_MAX];
	unsigned int n_retired;
	struct rxd_mw *next;        /**< in the windows list */
};

static struct rxd_mw *windows;
static pthread_mutex_t windows_lock = PTHREAD_MUTEX_INITIALIZER;

static struct rxd_mw *
rxd_mw(struct ibv_mw *mw)
{
	return (struct rxd_mw *)mw;
}

static void
free_retired(struct rxd_mw *mw)
{
	while (mw->n_retired)
		free(mw->retired[--mw->n_retired]);
}

static struct ibv_mw *
alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct rxd_context *ctx = rxd_ctx(pd->context);
	struct rxd_mw *mw = NULL;
	int rc = type == IBV_MW_TYPE_1 || type == IBV_MW_TYPE_2 ? 0 : EINVAL;

	if (rc == 0 && ctx->n_mr >= rxd_verbs.conf.max_mr)
		rc = ENOMEM;
	if (rc == 0 && (mw = calloc(1, sizeof(*mw))) == NULL)
		rc = ENOMEM;
	if (rc == 0 && (mw->binding = calloc(1, sizeof(*mw->binding))) == NULL)
		rc = ENOMEM;
	if (rc == 0) {
		mw->binding->window = true;
		mw->binding->mw_type = (uint8_t)type;
		mw->binding->ibmr.pd = pd;
		mw->binding->ibmr.context = pd->context;
		rc = rxd_mr_publish(mw->binding);
		if (rc != 0)
			free(mw->binding);
	}
	if (rc != 0) {
		free(mw);
		errno = rc;
		return NULL;
	}
	mw->ibmw.context = pd->context;
	mw->ibmw.pd = pd;
	mw->ibmw.rkey = mw->binding->ibmr.rkey;
	mw->ibmw.type = type;
	__atomic_add_fetch(&ctx->n_mr, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&rxd_pd(pd)->users, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&windows_lock);
	mw->next = windows;
	windows = mw;
	pthread_mutex_unlock(&windows_lock);
	return &mw->ibmw;
}

static int
dealloc_mw(struct ibv_mw *ibmw)
{
	struct rxd_mw *mw = rxd_mw(ibmw), **pp;

	pthread_mutex_lock(&windows_lock);
	for (pp = &windows; *pp != mw; pp = &(*pp)->next)
		;
	*pp = mw->next;
	pthread_mutex_unlock(&windows_lock);
	rxd_mr_unpublish(mw->binding);
	rxd_sync_engines();
	free(mw->binding);
	free_retired(mw);
	__atomic_sub_fetch(&rxd_ctx(ibmw->context)->n_mr, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&rxd_pd(ibmw->pd)->users, 1, __ATOMIC_RELEASE);
	free(mw);
	return 0;
}

bool
rxd_verbs_mr_has_windows(const struct ibv_mr *mr)
{
	const struct rxd_mw *mw;
	bool bound = false;

	pthread_mutex_lock(&windows_lock);
	for (mw = windows; mw != NULL && !bound; mw = mw->next)
		bound = mw->binding->parent == (const struct rxd_mr *)mr &&
			__atomic_load_n(&mw->binding->valid, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&windows_lock);
	return bound;
}

void
rxd_verbs_mw_qp_gone(const struct rxd_qp_core *qp)
{
	struct rxd_mw *mw;

	pthread_mutex_lock(&windows_lock);
	for (mw = windows; mw != NULL; mw = mw->next)
		if (mw->binding->qp == qp)
			__atomic_store_n(&mw->binding->valid, false,
					 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&windows_lock);
}

/* The MR and range a bind may use (a zero-length bind has none). */
static int
check_range(const struct rxd_mw *mw, const struct ibv_mw_bind_info *b)
{
	const struct rxd_mr *mr = (const struct rxd_mr *)b->mr;

	if (b->length == 0)
		return mw->ibmw.type == IBV_MW_TYPE_1 ? 0 : EINVAL;
	if (mr == NULL || mr->window || mr->ibmr.pd != mw->ibmw.pd ||
	    (b->mw_access_flags & ~MW_RIGHTS) ||
	    !rxd_mr_allows(mr, b->addr, b->length, IBV_ACCESS_MW_BIND))
		return EINVAL;
	if ((b->mw_access_flags & (IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	if ((b->mw_access_flags & IBV_ACCESS_ZERO_BASED) &&
	    mw->ibmw.type == IBV_MW_TYPE_1)
		return EINVAL;
	return 0;
}

static int
check_bind(const struct rxd_qp *qp, const struct rxd_mw *mw, uint32_t rkey,
	   const struct ibv_mw_bind_info *b)
{
	if (mw->ibmw.pd != qp->qpx.qp_base.pd)
		return EINVAL;
	if (mw->ibmw.type == IBV_MW_TYPE_2 &&
	    (__atomic_load_n(&mw->binding->valid, __ATOMIC_ACQUIRE) ||
	     RXD_KEY_INDEX(rkey) != RXD_KEY_INDEX(mw->ibmw.rkey)))
		return EINVAL;
	return check_range(mw, b);
}

/* A new binding of mw, valid when it has a length. */
static struct rxd_mr *
new_binding(const struct rxd_qp *qp, const struct rxd_mw *mw, uint32_t rkey,
	    const struct ibv_mw_bind_info *b)
{
	const struct rxd_mr *mr = (const struct rxd_mr *)b->mr;
	struct rxd_mr *n = calloc(1, sizeof(*n));

	if (n == NULL)
		return NULL;
	n->window = true;
	n->mw_type = (uint8_t)mw->ibmw.type;
	n->ibmr.context = mw->ibmw.context;
	n->ibmr.pd = mw->ibmw.pd;
	n->ibmr.lkey = n->ibmr.rkey = rkey;
	if (b->length == 0)
		return n;
	n->valid = true;
	n->parent = mr;
	n->qp = mw->ibmw.type == IBV_MW_TYPE_2 ? &qp->core : NULL;
	n->ibmr.addr = rxd_mr_addr(mr, b->addr);
	n->ibmr.length = b->length;
	n->iova = (b->mw_access_flags & IBV_ACCESS_ZERO_BASED) ? 0 : b->addr;
	n->access = b->mw_access_flags & ~IBV_ACCESS_ZERO_BASED;
	return n;
}

/* Swap in a new binding; windows_lock orders binds of one window made
 * through several QPs, and against ibv_dereg_mr's check. */
static int
bind_locked(struct rxd_qp *qp, struct ibv_mw *ibmw, uint32_t rkey,
	    const struct ibv_mw_bind_info *b)
{
	struct rxd_mw *mw = rxd_mw(ibmw);
	struct rxd_mr *n;
	int rc = check_bind(qp, mw, rkey, b);

	if (rc != 0)
		return rc;
	if ((n = new_binding(qp, mw, rkey, b)) == NULL)
		return ENOMEM;
	if (mw->n_retired == RETIRED_MAX) {
		rxd_sync_engines();
		free_retired(mw);
	}
	__atomic_store_n(&mw->binding->valid, false, __ATOMIC_RELEASE);
	rxd_mr_replace(mw->binding, n);
	mw->retired[mw->n_retired++] = mw->binding;
	mw->binding = n;
	ibmw->rkey = rkey;
	return 0;
}

static int
bind(struct rxd_qp *qp, struct ibv_mw *ibmw, uint32_t rkey,
     const struct ibv_mw_bind_info *b)
{
	int rc;

	pthread_mutex_lock(&windows_lock);
	rc = bind_locked(qp, ibmw, rkey, b);
	pthread_mutex_unlock(&windows_lock);
	return rc;
}

/* Local invalidation: of a type 2 window of the QP's PD, bound. */
static int
local_invalidate(const struct rxd_qp *qp, uint32_t rkey)
{
	struct rxd_mr *w = rxd_mr_find(rkey);

	if (w == NULL || !w->window || w->mw_type != IBV_MW_TYPE_2 ||
	    w->ibmr.pd != qp->qpx.qp_base.pd ||
	    !__atomic_exchange_n(&w->valid, false, __ATOMIC_ACQ_REL))
		return EINVAL;
	return 0;
}

int
rxd_verbs_mw_apply(struct rxd_qp *qp, const struct rxd_send_wqe *w)
{
	if (w->opcode == IBV_WR_LOCAL_INV)
		return local_invalidate(qp, w->imm_or_rkey);
	if (w->opcode != IBV_WR_BIND_MW)
		return 0;
	if (w->bind.mw == NULL ||
	    w->bind.mw->context != qp->qpx.qp_base.context)
		return EINVAL;
	return bind(qp, w->bind.mw, w->rkey, &w->bind.info);
}

/* ibv_bind_mw: a type 1 bind posted on qp with the next key byte. */
static int
bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw, struct ibv_mw_bind *mb)
{
	struct rxd_qp *qp = rxd_qp(ibqp);
	struct rxd_send_wqe w = {
		.wr_id = mb->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.flags = (uint16_t)mb->send_flags,
		.rkey = ibv_inc_rkey(mw->rkey),
	};
	int rc;

	if (ibqp->qp_type != IBV_QPT_RC && ibqp->qp_type != IBV_QPT_UC)
		return EINVAL;
	if (qp->core.sq_sig_all)
		w.flags |= IBV_SEND_SIGNALED;
	w.bind.mw = mw;
	w.bind.info = mb->bind_info;
	pthread_spin_lock(&qp->sq_lock);
	rc = rxd_verbs_sq_open(qp) ? rxd_verbs_sq_post(qp, &w) : EINVAL;
	pthread_spin_unlock(&qp->sq_lock);
	rxd_qp_doorbell(&qp->core);
	return rc;
}

void
rxd_verbs_mw_set_ops(struct ibv_context_ops *o)
{
	o->alloc_mw = alloc_mw;
	o->dealloc_mw = dealloc_mw;
	o->bind_mw = bind_mw;
}
