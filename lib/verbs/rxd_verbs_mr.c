/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection domains and memory registration (see rxd_mr.h for the key
 * table).  Access rules follow the IBTA: remote write or remote atomic
 * access needs local write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rxd_mr.h"
#include "rxd_verbs.h"

#define MR_SLOTS (1u << 20)            /* power of two, > max_mr */
#define MR_TOMBSTONE ((struct rxd_mr *)1)
#define MR_ACCESS_KNOWN (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
	IBV_ACCESS_MW_BIND | IBV_ACCESS_RELAXED_ORDERING)

static struct rxd_mr **mr_table;
static pthread_mutex_t mr_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t
slot_of(uint32_t key)
{
	return (key * 2654435761u) & (MR_SLOTS - 1);
}

struct rxd_mr *
rxd_mr_find(uint32_t key)
{
	struct rxd_mr *mr;
	uint32_t i, s = slot_of(key);

	if (mr_table == NULL)
		return NULL;
	for (i = 0; i < MR_SLOTS; i++) {
		mr = __atomic_load_n(&mr_table[(s + i) & (MR_SLOTS - 1)],
				     __ATOMIC_ACQUIRE);
		if (mr == NULL)
			return NULL;
		if (mr != MR_TOMBSTONE && mr->ibmr.lkey == key)
			return mr;
	}
	return NULL;
}

/* Give mr a fresh random key and publish it; called with mr_lock held. */
static int
publish(struct rxd_mr *mr)
{
	uint32_t key, i, s;

	if (mr_table == NULL &&
	    (mr_table = calloc(MR_SLOTS, sizeof(*mr_table))) == NULL)
		return ENOMEM;
	do {
		if (getrandom(&key, sizeof(key), 0) != sizeof(key))
			return EAGAIN;
	} while (key == 0 || rxd_mr_find(key) != NULL);
	mr->ibmr.lkey = mr->ibmr.rkey = key;
	s = slot_of(key);
	for (i = 0; i < MR_SLOTS; i++) {
		struct rxd_mr **slot = &mr_table[(s + i) & (MR_SLOTS - 1)];

		if (*slot == NULL || *slot == MR_TOMBSTONE) {
			__atomic_store_n(slot, mr, __ATOMIC_RELEASE);
			return 0;
		}
	}
	return ENOMEM;
}

static void
unpublish(struct rxd_mr *mr)
{
	uint32_t i, s = slot_of(mr->ibmr.lkey);

	for (i = 0; i < MR_SLOTS; i++) {
		struct rxd_mr **slot = &mr_table[(s + i) & (MR_SLOTS - 1)];

		if (*slot == mr) {
			__atomic_store_n(slot, MR_TOMBSTONE, __ATOMIC_RELEASE);
			return;
		}
	}
}

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

static int
check_access(unsigned int access)
{
	if (access & ~(MR_ACCESS_KNOWN | IBV_ACCESS_OPTIONAL_RANGE))
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
	int rc = check_access(access);

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
	mr->access = access & MR_ACCESS_KNOWN;
	pthread_mutex_lock(&mr_lock);
	rc = publish(mr);
	if (rc == 0)
		ctx->n_mr++;
	pthread_mutex_unlock(&mr_lock);
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

	pthread_mutex_lock(&mr_lock);
	unpublish(mr);
	rxd_ctx(ibmr->context)->n_mr--;
	pthread_mutex_unlock(&mr_lock);
	rxd_sync_engines();
	__atomic_sub_fetch(&rxd_pd(ibmr->pd)->users, 1, __ATOMIC_RELEASE);
	free(mr);
	return 0;
}

int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
	     size_t length, int access)
{
	(void)mr;
	(void)flags;
	(void)pd;
	(void)addr;
	(void)length;
	(void)access;
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT; /* not supported: deregister, register */
}
