/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection on one direction of one port: drop, duplicate, reorder
 * (hold a frame back behind N others), corrupt (flip one byte after the
 * Ethernet header), cut (drop everything) and drop-by-BTH-opcode.  Rates are
 * probabilities drawn from a seeded generator, so a run can be repeated.
 */
#ifndef RXD_FAULT_H
#define RXD_FAULT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rxd_config.h"

#define RXD_FAULT_MAX_HELD 64

/** Counters of what the injector did. */
struct rxd_fault_stats {
	uint64_t seen;
	uint64_t dropped;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t corrupted;
	uint64_t cut;
	uint64_t opcode_dropped;
};

/** State of one injector; zero-initialised means "no faults". */
struct rxd_fault {
	struct rxd_conf_fault conf;
	uint64_t rng;
	bool active;                 /**< any fault configured */
	uint16_t n_held;
	struct rte_mbuf *held[RXD_FAULT_MAX_HELD];
	uint16_t held_age[RXD_FAULT_MAX_HELD]; /**< frames passed since held */
	uint64_t held_tsc;           /**< when the oldest held frame was taken */
	struct rxd_fault_stats stats;
};

/** Set the configuration; seed picks the random sequence. */
void rxd_fault_configure(struct rxd_fault *f, const struct rxd_conf_fault *c,
			 uint64_t seed);

/**
 * Apply the faults to a burst in place: pkts[0..n) in, the surviving and
 * duplicated frames out (at most cap).  Dropped frames are freed.  dup_pool
 * provides the copies of duplicated frames.
 *
 * @return the number of frames now in pkts.
 */
uint16_t rxd_fault_apply(struct rxd_fault *f, struct rte_mbuf **pkts,
			 uint16_t n, uint16_t cap,
			 struct rte_mempool *dup_pool);

/**
 * Release frames held back for reordering longer than max_tsc cycles, so a
 * quiet link does not keep them forever.
 *
 * @return the number of frames appended to pkts (at most cap).
 */
uint16_t rxd_fault_release(struct rxd_fault *f, struct rte_mbuf **pkts,
			   uint16_t cap, uint64_t now, uint64_t max_tsc);

/** Free every held frame. */
void rxd_fault_reset(struct rxd_fault *f);

#endif /* RXD_FAULT_H */
