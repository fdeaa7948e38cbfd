/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection domains and memory registration (the key table the engines
 * read is lib/qp/rxd_mr.c; re-registration is
 * rxd_verbs_rereg.c).  Access rules follow the IBTA: remote write or
 * remote atomic access needs local write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxd/rxd_flush.h"
#include "rxd_mr.h"
#include "rxd_qp.h"
#include "rxd_verbs.h"

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct rxd_context *ctx = rxd_ctx(context);
	struct rxd_pd *pd;

	if (ctx->n_pd >= RXD_MAX_PD || (pd = calloc(1, sizeof(*pd))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibpd.context = context;
	pd->ibpd.handle = ctx->n_pd++;
	return &pd->ibpd;
}

int
ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct rxd_pd *pd = rxd_pd(ibpd);

	if (__atomic_load_n(&pd->users, __ATOMIC_ACQUIRE) != 0)
		return EBUSY;
	rxd_ctx(ibpd->context)->n_pd--;
	free(pd);
	return 0;
}

int
rxd_verbs_mr_access_error(unsigned int access)
{
	if (access & ~(RXD_MR_ACCESS_KNOWN | IBV_ACCESS_OPTIONAL_RANGE))
		return EINVAL;
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	return 0;
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *ibpd, void *addr, size_t length,
		 uint64_t iova, unsigned int access)
{
	struct rxd_context *ctx = rxd_ctx(ibpd->context);
	struct rxd_mr *mr;
	int rc = rxd_verbs_mr_access_error(access);

	if (rc == 0 && (length == 0 || (uintptr_t)addr + length < length ||
			iova + length < iova))
		rc = EINVAL;
	if (rc == 0 && ctx->n_mr >= rxd_verbs.conf.max_mr)
		rc = ENOMEM;
	if (rc != 0 || (mr = calloc(1, sizeof(*mr))) == NULL) {
		errno = rc ? rc : ENOMEM;
		return NULL;
	}
	mr->ibmr.context = ibpd->context;
	mr->ibmr.pd = ibpd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = length;
	mr->iova = iova;
	mr->access = access & RXD_MR_ACCESS_KNOWN;
	mr->current = mr;
	rc = rxd_mr_publish(mr);
	if (rc == 0)
		__atomic_add_fetch(&ctx->n_mr, 1, __ATOMIC_RELAXED);
	if (rc != 0) {
		free(mr);
		errno = rc;
		return NULL;
	}
	__atomic_add_fetch(&rxd_pd(ibpd)->users, 1, __ATOMIC_RELEASE);
	return &mr->ibmr;
}

#undef ibv_reg_mr
#undef ibv_reg_mr_iova
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access);

struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr,
				(unsigned int)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access);

struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

int
ibv_dereg_mr(struct ibv_mr *ibmr)
{
	struct rxd_mr *mr = (struct rxd_mr *)ibmr;

	if (rxd_verbs_mr_has_windows(ibmr))
		return EBUSY;
	rxd_mr_unpublish(mr->current);
	__atomic_sub_fetch(&rxd_ctx(ibmr->context)->n_mr, 1, __ATOMIC_RELAXED);
	rxd_sync_engines();
	__atomic_sub_fetch(&rxd_pd(ibmr->pd)->users, 1, __ATOMIC_RELEASE);
	if (mr->current != mr)
		free(mr->current);
	free(mr);
	return 0;
}
