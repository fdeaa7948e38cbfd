/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MR key table: lkey/rkey -> region or window binding, written by
 * application threads (ibv_reg_mr, ibv_dereg_mr, window binds in lib/verbs)
 * under a lock, read by engines without one (see rxd_mr.h).  Slots are
 * chosen by a key's index; the key byte must match too.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/random.h>

#include "rxd_mr.h"

#define MR_SLOTS (1u << 20)            /* power of two, > max_mr */
#define MR_TOMBSTONE ((struct rxd_mr *)1)

static struct rxd_mr **mr_table;
static uint64_t mr_serial;             /* under mr_lock */
static pthread_mutex_t mr_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t
slot_of(uint32_t key)
{
	return (RXD_KEY_INDEX(key) * 2654435761u) & (MR_SLOTS - 1);
}

/* The entry whose key has the index of key (any key byte), or NULL. */
static struct rxd_mr *
find_index(uint32_t key)
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
		if (mr != MR_TOMBSTONE &&
		    RXD_KEY_INDEX(mr->ibmr.lkey) == RXD_KEY_INDEX(key))
			return mr;
	}
	return NULL;
}

struct rxd_mr *
rxd_mr_find(uint32_t key)
{
	struct rxd_mr *mr = find_index(key);

	return mr != NULL && mr->ibmr.lkey == key ? mr : NULL;
}

struct rxd_mr *
rxd_mr_find_in(uint32_t key, const struct ibv_pd *pd)
{
	struct rxd_mr *mr = rxd_mr_find(key);

	return mr != NULL && !mr->window && mr->ibmr.pd == pd ? mr : NULL;
}

struct rxd_mr *
rxd_mr_find_remote(uint32_t key, const struct rxd_qp_core *qp,
		   const struct ibv_pd *pd)
{
	struct rxd_mr *mr = rxd_mr_find(key);

	if (mr == NULL || mr->ibmr.pd != pd)
		return NULL;
	if (!mr->window)
		return mr;
	if (!__atomic_load_n(&mr->valid, __ATOMIC_ACQUIRE) ||
	    (mr->mw_type == IBV_MW_TYPE_2 && mr->qp != qp))
		return NULL;
	return mr;
}

struct rxd_mr *
rxd_mr_follow(struct rxd_mr_hold *hold, uint64_t va, uint64_t len,
	      unsigned int need, const struct rxd_qp_core *qp,
	      const struct ibv_pd *pd)
{
	struct rxd_mr *mr = rxd_mr_find_remote(hold->key, qp, pd);

	if (mr == NULL)
		return NULL;
	if (mr->serial == hold->serial)
		return mr;
	if (rxd_mr_delta(mr) != hold->delta ||
	    !rxd_mr_allows(mr, va, len, need))
		return NULL;
	hold->serial = mr->serial;
	return mr;
}

bool
rxd_mw_invalidate_remote(uint32_t key, const struct rxd_qp_core *qp,
			 const struct ibv_pd *pd)
{
	struct rxd_mr *mr = rxd_mr_find_remote(key, qp, pd);

	if (mr == NULL || !mr->window || mr->mw_type != IBV_MW_TYPE_2)
		return false;
	__atomic_store_n(&mr->valid, false, __ATOMIC_RELEASE);
	return true;
}

void
rxd_mr_replace(struct rxd_mr *prev, struct rxd_mr *next)
{
	uint32_t i, s = slot_of(prev->ibmr.lkey);

	pthread_mutex_lock(&mr_lock);
	for (i = 0; i < MR_SLOTS; i++) {
		struct rxd_mr **slot = &mr_table[(s + i) & (MR_SLOTS - 1)];

		if (*slot == prev) {
			next->serial = ++mr_serial;
			__atomic_store_n(slot, next, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&mr_lock);
}

int
rxd_mr_publish(struct rxd_mr *mr)
{
	uint32_t key, i, s;
	int rc = ENOMEM;

	pthread_mutex_lock(&mr_lock);

	if (mr_table == NULL &&
	    (mr_table = calloc(MR_SLOTS, sizeof(*mr_table))) == NULL)
		goto out;
	do {
		if (getrandom(&key, sizeof(key), 0) != sizeof(key)) {
			rc = EAGAIN;
			goto out;
		}
	} while (RXD_KEY_INDEX(key) == 0 || find_index(key) != NULL);
	mr->ibmr.lkey = mr->ibmr.rkey = key;
	mr->serial = ++mr_serial;
	s = slot_of(key);
	for (i = 0; i < MR_SLOTS; i++) {
		struct rxd_mr **slot = &mr_table[(s + i) & (MR_SLOTS - 1)];

		if (*slot == NULL || *slot == MR_TOMBSTONE) {
			__atomic_store_n(slot, mr, __ATOMIC_RELEASE);
			rc = 0;
			break;
		}
	}
out:
	pthread_mutex_unlock(&mr_lock);
	return rc;
}

void
rxd_mr_unpublish(struct rxd_mr *mr)
{
	uint32_t i, s = slot_of(mr->ibmr.lkey);

	pthread_mutex_lock(&mr_lock);
	for (i = 0; i < MR_SLOTS; i++) {
		struct rxd_mr **slot = &mr_table[(s + i) & (MR_SLOTS - 1)];

		if (*slot == mr) {
			__atomic_store_n(slot, MR_TOMBSTONE, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&mr_lock);
}

