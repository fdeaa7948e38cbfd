/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Inline progress: engines that no lcore runs (EAL with one lcore) run in
 * the program's threads, one pass at a time under each engine's lock, when
 * the program calls rxd_poll() (ibv_poll_cq on an empty CQ does).  A
 * program that stops calling (a perftest server blocked in read(), a
 * thread asleep in ibv_get_cq_event) must still answer its peer, as a NIC
 * would: a watcher thread runs the engines whenever the program has not
 * done so for WATCH_QUIET_US, and sleeps while it does.
 */
#include <pthread.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "rxd_stack.h"

#define WATCH_QUIET_US 100u      /* the program drives the engines */
#define WATCH_SLEEP_MIN_US 50u
#define WATCH_SLEEP_MAX_US 1000u /* idle: at most 1000 wake-ups a second */
#define WATCH_SPINS 1000u        /* empty passes before sleeping */

static uint64_t app_polled;      /* TSC of the program's last rxd_poll() */
static bool watching;
static pthread_t watcher;

bool
rxd_inline_progress(void)
{
	unsigned int i;

	for (i = 0; i < rxd_stk.n_engines; i++)
		if (!rxd_stk.launched[i])
			return true;
	return false;
}

static unsigned int
run_inline(void)
{
	unsigned int i, work = 0;

	for (i = 0; i < rxd_stk.n_engines; i++)
		if (!rxd_stk.launched[i])
			work += rxd_engine_poll_inline(&rxd_stk.engines[i]);
	return work;
}

unsigned int
rxd_poll(void)
{
	__atomic_store_n(&app_polled, rte_rdtsc(), __ATOMIC_RELAXED);
	return run_inline();
}

/*
 * While the program drives the engines, look again after a sleep that
 * doubles up to WATCH_SLEEP_MAX_US (each wake-up takes the program's core
 * for a moment).  Otherwise be their loop: run passes, spin through
 * WATCH_SPINS empty ones (traffic comes in bursts), then sleep, doubling
 * from WATCH_SLEEP_MIN_US up to the maximum.
 */
static void *
watch(void *arg)
{
	uint64_t quiet = rte_get_tsc_hz() / 1000000 * WATCH_QUIET_US;
	unsigned int sleep_us = WATCH_SLEEP_MIN_US, empty = 0;

	(void)arg;
	/*
	 * An lcore id gives this thread its own mempool caches: without one
	 * every mbuf the port allocates or frees goes through the pool's
	 * shared ring, and memif then copies frames into cold buffers.
	 * Without an id to spare the engines still run, more slowly.
	 */
	if (rte_thread_register() != 0)
		rte_log(RTE_LOG_NOTICE, rxd_logtype_stack, "rxd: the inline "
			"watcher has no lcore id (%s): no mempool cache\n",
			rte_strerror(rte_errno));
	while (__atomic_load_n(&watching, __ATOMIC_ACQUIRE)) {
		if (rte_rdtsc() - __atomic_load_n(&app_polled,
						  __ATOMIC_RELAXED) < quiet) {
			empty = 0;
			usleep(sleep_us);
			sleep_us = RTE_MIN(sleep_us * 2, WATCH_SLEEP_MAX_US);
			continue;
		}
		if (run_inline() != 0) {
			empty = 0;
			sleep_us = WATCH_SLEEP_MIN_US;
		} else if (++empty < WATCH_SPINS) {
			rte_pause();
		} else {
			usleep(sleep_us);
			sleep_us = RTE_MIN(sleep_us * 2, WATCH_SLEEP_MAX_US);
		}
	}
	rte_thread_unregister();
	return NULL;
}

int
rxd_inline_start(void)
{
	int rc;

	if (!rxd_inline_progress() || watching)
		return 0;
	__atomic_store_n(&watching, true, __ATOMIC_RELEASE);
	rc = pthread_create(&watcher, NULL, watch, NULL);
	if (rc != 0) {
		watching = false;
		return rc;
	}
	pthread_setname_np(watcher, "rxd-inline");
	return 0;
}

void
rxd_inline_stop(void)
{
	if (!watching)
		return;
	__atomic_store_n(&watching, false, __ATOMIC_RELEASE);
	pthread_join(watcher, NULL);
}
