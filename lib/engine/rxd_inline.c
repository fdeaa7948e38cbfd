/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inline runner's watcher (see rxd_inline.h): engines that no lcore
 * runs (EAL with one lcore) run in the program's threads, one pass at a
 * time under each engine's lock, when the program calls rxd_poll()
 * (ibv_poll_cq on an empty CQ does).  A
 * program that stops calling (a perftest server blocked in read(), a
 * thread asleep in ibv_get_cq_event) must still answer its peer, as a NIC
 * would: a watcher thread runs the engines whenever the program has not
 * done so for WATCH_QUIET_US, and sleeps while it does.  While traffic
 * flows it busy-polls like an engine lcore, pinned to the program's main
 * lcore's CPUs with an lcore id of its own; only after WATCH_BUSY_US
 * without work does it back off, by the engines' idle policy.
 */
#include <pthread.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "rxd_engine.h"
#include "rxd_inline.h"

#define WATCH_QUIET_US 100u      /* the program drives the engines */
#define WATCH_BUSY_US 2000u      /* traffic flows: no sleep after work */
#define WATCH_SLEEP_MIN_US 1u    /* idle engines: the first sleep */
#define WATCH_APP_SLEEP_MIN_US 50u /* while the program drives them */
#define WATCH_APP_SLEEP_MAX_US 1000u /* at most 1000 wake-ups a second */
#define WATCH_TIMER_SLACK_NS 1000ul /* sleeps of a few us, not of 50 */

static uint64_t app_polled;      /* TSC of the program's last rxd_poll() */
static bool watching;
static pthread_t watcher;

/* What the watcher runs and how it idles, from rxd_inline_start(). */
static rxd_inline_run_fn run_inline;
static enum rxd_idle_policy idle_policy;
static uint32_t idle_sleep_max_us;

void
rxd_inline_polled(void)
{
	__atomic_store_n(&app_polled, rte_rdtsc(), __ATOMIC_RELAXED);
}

/*
 * The program's main lcore's CPUs, where the program's thread runs (EAL
 * pinned it): the watcher runs when that thread waits, on a core whose
 * caches hold the program's buffers, and not on another engine's core.
 */
static void
pin_to_main_lcore(void)
{
	rte_cpuset_t cpus = rte_lcore_cpuset(rte_get_main_lcore());

	if (CPU_COUNT(&cpus) != 0 &&
	    pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus) != 0)
		rte_log(RTE_LOG_NOTICE, rxd_logtype_engine, "rxd: the inline "
			"watcher cannot be pinned to the main lcore's CPUs\n");
}

/*
 * An lcore id gives this thread its own mempool caches: without one
 * every mbuf the port allocates or frees goes through the pool's shared
 * ring, and memif then copies frames into cold buffers.  Without an id to
 * spare the engines still run, more slowly.
 */
static void
watcher_setup(void)
{
	pin_to_main_lcore();
	if (rte_thread_register() != 0)
		rte_log(RTE_LOG_NOTICE, rxd_logtype_engine, "rxd: the inline "
			"watcher has no lcore id (%s): no mempool cache\n",
			rte_strerror(rte_errno));
	prctl(PR_SET_TIMERSLACK, WATCH_TIMER_SLACK_NS, 0, 0, 0);
}

/* The watcher's back-off after empty passes (watch_idle()). */
struct watch_backoff {
	uint64_t busy;         /* WATCH_BUSY_US in TSC cycles */
	uint64_t last_work;    /* TSC of the last pass that found work */
	unsigned int sleep_us; /* the last sleep; 0: none since work */
	unsigned int max_us;   /* the engines' idle_sleep_max_us */
};

/*
 * After a pass: spin while traffic flows (work within WATCH_BUSY_US),
 * then do what an idle engine lcore does (rxd.conf's idle policy): spin,
 * pause, or sleep doubling from WATCH_SLEEP_MIN_US up to its maximum.
 */
static void
watch_idle(struct watch_backoff *b, unsigned int work)
{
	uint64_t now = rte_rdtsc();

	if (work != 0) {
		b->last_work = now;
		b->sleep_us = 0;
		return;
	}
	if (now - b->last_work < b->busy || idle_policy == RXD_IDLE_SPIN)
		return;
	if (idle_policy == RXD_IDLE_PAUSE) {
		rte_pause();
		return;
	}
	b->sleep_us = b->sleep_us ? RTE_MIN(b->sleep_us * 2, b->max_us) :
		WATCH_SLEEP_MIN_US;
	usleep(b->sleep_us);
}

/*
 * While the program drives the engines, look again after a sleep that
 * doubles from WATCH_APP_SLEEP_MIN_US up to WATCH_APP_SLEEP_MAX_US (each
 * wake-up takes the program's core for a moment).  Otherwise be their
 * loop (watch_idle()).
 */
static void *
watch(void *arg)
{
	uint64_t us = rte_get_tsc_hz() / 1000000;
	struct watch_backoff b = {
		.busy = us * WATCH_BUSY_US,
		.max_us = RTE_MAX(idle_sleep_max_us, 1u),
	};
	unsigned int app_sleep_us = WATCH_APP_SLEEP_MIN_US;

	(void)arg;
	watcher_setup();
	while (__atomic_load_n(&watching, __ATOMIC_ACQUIRE)) {
		if (rte_rdtsc() - __atomic_load_n(&app_polled,
				__ATOMIC_RELAXED) < us * WATCH_QUIET_US) {
			usleep(app_sleep_us);
			app_sleep_us = RTE_MIN(app_sleep_us * 2,
					       WATCH_APP_SLEEP_MAX_US);
			continue;
		}
		app_sleep_us = WATCH_APP_SLEEP_MIN_US;
		watch_idle(&b, run_inline());
	}
	rte_thread_unregister();
	return NULL;
}

int
rxd_inline_start(rxd_inline_run_fn run, enum rxd_idle_policy idle,
		 uint32_t sleep_max_us)
{
	int rc;

	if (watching)
		return 0;
	run_inline = run;
	idle_policy = idle;
	idle_sleep_max_us = sleep_max_us;
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
