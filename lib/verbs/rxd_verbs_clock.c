/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion clocks.  The engine stamps each completion with the TSC:
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP reads it raw, at hca_core_clock kHz.
 * This file owns the rest: the wall-clock reading of a stamp
 * (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK), which is the
 * CLOCK_REALTIME read once per process advanced by the TSC, and the raw
 * clock of ibv_query_rt_values_ex.
 */
#include <pthread.h>
#include <time.h>

#include <rte_cycles.h>

#include "rxd_verbs.h"


static pthread_once_t anchor_once = PTHREAD_ONCE_INIT;
static uint64_t anchor_ns, anchor_tsc, tsc_hz;

static void
take_anchor(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	anchor_tsc = rte_rdtsc();
	anchor_ns = (uint64_t)t.tv_sec * NS_PER_S + (uint64_t)t.tv_nsec;
	tsc_hz = rte_get_tsc_hz();
}

void
rxd_verbs_clock_init(void)
{
	pthread_once(&anchor_once, take_anchor);
}

/* Cycles to nanoseconds without overflowing 64 bits. */
static uint64_t
cycles_ns(uint64_t cycles)
{
	return cycles / tsc_hz * NS_PER_S + cycles % tsc_hz * NS_PER_S / tsc_hz;
}

uint64_t
rxd_verbs_wallclock_ns(uint64_t tsc)
{
	rxd_verbs_clock_init();
	return tsc >= anchor_tsc ? anchor_ns + cycles_ns(tsc - anchor_tsc) :
		anchor_ns - cycles_ns(anchor_tsc - tsc);
}

int
rxd_verbs_query_rt_values(struct ibv_context *context,
			  struct ibv_values_ex *values)
{
	uint32_t asked = values->comp_mask;

	(void)context;
	values->comp_mask = 0;
	if (asked & IBV_VALUES_MASK_RAW_CLOCK) {
		/* as other providers: cycles in tv_nsec, tv_sec 0 */
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = (long)rte_rdtsc();
		values->comp_mask |= IBV_VALUES_MASK_RAW_CLOCK;
	}
	return 0;
}
