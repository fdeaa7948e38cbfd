/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions and the key table the engines look keys up in.  Keys are
 * random 32-bit values (not guessable, unique); the table is written by
 * application threads under a lock and read by engines without one:
 * entries are published with release stores and an MR is freed only after
 * rxd_sync_engines() has seen every engine pass.
 */
#ifndef RXD_MR_H
#define RXD_MR_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/** A registered memory region. */
struct rxd_mr {
	struct ibv_mr ibmr;        /**< lkey == rkey */
	uint64_t iova;             /**< first address in the peer's view */
	unsigned int access;       /**< enum ibv_access_flags */
};

/**
 * Give mr a fresh random key (lkey == rkey) and publish it.
 * @return 0, ENOMEM (table full) or EAGAIN (no randomness).
 */
int rxd_mr_publish(struct rxd_mr *mr);

/**
 * Take mr out of the table.  Engines may still hold it until
 * rxd_sync_engines() returns; free it only after that.
 */
void rxd_mr_unpublish(struct rxd_mr *mr);

/** The MR with this lkey/rkey, or NULL (engine side, lock-free). */
struct rxd_mr *rxd_mr_find(uint32_t key);

/**
 * The MR with this key if it belongs to protection domain @p pd (a QP
 * uses only the memory of its own PD, IBTA 10.6); NULL otherwise.
 */
struct rxd_mr *rxd_mr_find_in(uint32_t key, const struct ibv_pd *pd);

/**
 * True if [iova, iova + len) lies in the MR and the MR grants every right
 * in need (IBV_ACCESS_* bits); local access needs no remote right.
 */
static inline bool
rxd_mr_allows(const struct rxd_mr *mr, uint64_t iova, uint64_t len,
	      unsigned int need)
{
	if ((mr->access & need) != need)
		return false;
	return iova >= mr->iova && len <= mr->ibmr.length &&
		iova - mr->iova <= mr->ibmr.length - len;
}

/** Host address of iova inside the MR (after rxd_mr_allows()). */
static inline uint8_t *
rxd_mr_addr(const struct rxd_mr *mr, uint64_t iova)
{
	return (uint8_t *)mr->ibmr.addr + (iova - mr->iova);
}

#endif /* RXD_MR_H */
