/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory regions, memory-window bindings and the key table the engines
 * look keys up in.  Keys are random 32-bit values (not guessable); their
 * upper 24 bits (the index) are unique, their low 8 bits are the key byte a
 * memory window's owner changes on each bind (ibv_inc_rkey).  The table is
 * written by
 * application threads under a lock and read by engines without one:
 * entries are published with release stores and an MR is freed only after
 * rxd_sync_engines() has seen every engine pass.
 *
 * An entry never changes once published (but a window's valid flag): a
 * rereg publishes a new entry, with the same key and a new serial number,
 * in the place of the old one.  An engine that keeps an entry across
 * packets (a multi-packet WRITE, a READ's responses) looks its key up
 * again before each use (rxd_mr_follow()): it goes on with the entry it
 * had, or with a replacement that maps the rest of the message to the
 * same bytes and still grants the right; otherwise the rest of the
 * message is refused.  A message never mixes two translations.
 */
#ifndef RXD_MR_H
#define RXD_MR_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct rxd_qp_core;

/**
 * A registered memory region, or one binding of a memory window (a view
 * of part of an MR with its own rkey and rights).  A binding never changes
 * once published, except @p valid, which an invalidation clears; a rebind
 * publishes a new binding in its place.
 */
struct rxd_mr {
	struct ibv_mr ibmr;        /**< lkey == rkey */
	uint64_t iova;             /**< first address in the peer's view */
	unsigned int access;       /**< enum ibv_access_flags */
	bool window;               /**< a memory window's binding */
	bool valid;                /**< window: bound, not invalidated */
	uint8_t mw_type;           /**< window: IBV_MW_TYPE_1 or _2 */
	const struct rxd_qp_core *qp; /**< type 2: the QP it is bound to */
	const struct rxd_mr *parent;  /**< window: the MR it is bound to */
	uint64_t serial;           /**< unique per published entry */
	/** The MR the application holds: the entry its keys name now
	 *  (itself until a rereg publishes another). */
	struct rxd_mr *current;
};

/** The index part of a key (unique in the table). */
#define RXD_KEY_INDEX(key) ((key) >> 8)

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

/**
 * Put @p next (a window binding carrying a key of the same index, or a
 * rereg's new entry with the same key) in the place of @p prev, with a
 * new serial number.  Engines see one or the other, never a mix.
 */
void rxd_mr_replace(struct rxd_mr *prev, struct rxd_mr *next);

/** What a message found at its first packet and keeps to its end. */
struct rxd_mr_hold {
	uint32_t key;
	uint64_t serial;
	uint64_t delta;            /**< rxd_mr_delta() of the entry */
};

/**
 * The entry to use for bytes [va, va + len) of a message that started on
 * the entry described by @p hold (maybe replaced or freed since), through
 * QP @p qp: the same entry, or one that replaced it (rereg, window
 * rebind) with the same delta and the right @p need over the range, which
 * @p hold then describes.  NULL otherwise.  Valid until the end of this
 * engine pass.
 */
struct rxd_mr *rxd_mr_follow(struct rxd_mr_hold *hold, uint64_t va,
			     uint64_t len, unsigned int need,
			     const struct rxd_qp_core *qp,
			     const struct ibv_pd *pd);

/** The MR or window binding with this key, or NULL (lock-free). */
struct rxd_mr *rxd_mr_find(uint32_t key);

/**
 * The MR (never a window) with this key if it belongs to protection
 * domain @p pd (a QP uses only the memory of its own PD, IBTA 10.6); NULL
 * otherwise.  What local SGEs name.
 */
struct rxd_mr *rxd_mr_find_in(uint32_t key, const struct ibv_pd *pd);

/**
 * What a remote access with rkey @p key through QP @p qp may use: an MR of
 * the QP's PD, or a valid window binding of that PD (a type 2 window only
 * through the QP it is bound to); NULL otherwise.
 */
struct rxd_mr *rxd_mr_find_remote(uint32_t key, const struct rxd_qp_core *qp,
				  const struct ibv_pd *pd);

/**
 * SEND with Invalidate: invalidate the type 2 window with rkey @p key
 * bound to @p qp.  @return false if no such valid window exists.
 */
bool rxd_mw_invalidate_remote(uint32_t key, const struct rxd_qp_core *qp,
			      const struct ibv_pd *pd);

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

/** Where a message through mr lands: host address minus iova. */
static inline uint64_t
rxd_mr_delta(const struct rxd_mr *mr)
{
	return (uintptr_t)mr->ibmr.addr - mr->iova;
}

/** Host address of iova inside the MR (after rxd_mr_allows()). */
static inline uint8_t *
rxd_mr_addr(const struct rxd_mr *mr, uint64_t iova)
{
	return (uint8_t *)mr->ibmr.addr + (iova - mr->iova);
}

#endif /* RXD_MR_H */
