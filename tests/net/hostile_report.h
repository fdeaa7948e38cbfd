/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What hostile-peer checks of its own rxd after the attack: counters
 * before and after, the accounting of every frame received, neighbours,
 * mbufs and heap.
 */
#ifndef HOSTILE_REPORT_H
#define HOSTILE_REPORT_H

#include <stddef.h>

#include "rxd/rxd.h"

/** What is taken before the attack. */
struct hostile_base {
	struct rxd_port_counters c;
	size_t heap;               /**< bytes allocated from DPDK's heap */
};

/** Take port 0's counters and the heap's size, and print the counters
 *  as "base NAME VALUE" lines. */
void hostile_base_take(struct hostile_base *b);

/**
 * Once traffic has stopped: print the counters ("end NAME VALUE") and the
 * neighbours ("neigh ADDR MAC STATE"), and check that each frame received
 * is accounted for once, and that mbufs and heap are back to their level
 * of @p b.  Prints "FAIL: ..." for each failed check.
 * @return the number of failed checks.
 */
int hostile_report(const char *role, const struct hostile_base *b);

#endif /* HOSTILE_REPORT_H */
