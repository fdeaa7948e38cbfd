/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MR key table: lkey/rkey -> region, written by application threads
 * (ibv_reg_mr / ibv_dereg_mr in lib/verbs) under a lock, read by engines
 * without one (see rxd_mr.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/random.h>

#include "rxd_mr.h"

#define MR_SLOTS (1u << 20)            /* power of two, > max_mr */
#define MR_TOMBSTONE ((struct rxd_mr *)1)

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

struct rxd_mr *
rxd_mr_find_in(uint32_t key, const struct ibv_pd *pd)
{
	struct rxd_mr *mr = rxd_mr_find(key);

	return mr != NULL && mr->ibmr.pd == pd ? mr : NULL;
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
	} while (key == 0 || rxd_mr_find(key) != NULL);
	mr->ibmr.lkey = mr->ibmr.rkey = key;
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

