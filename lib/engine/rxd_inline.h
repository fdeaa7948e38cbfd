/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inline runner: with no engine lcore, engines run in the program's
 * threads (rxd_engine_poll_inline()), and a watcher thread, "rxd-inline",
 * runs them whenever the program has not lately.  What it runs is given
 * as a function when it starts: the stack knows which engines no lcore
 * runs.
 */
#ifndef RXD_INLINE_H
#define RXD_INLINE_H

#include <stdint.h>

#include "rxd_config.h"

/** One pass of every engine no lcore runs; returns the work done. */
typedef unsigned int (*rxd_inline_run_fn)(void);

/**
 * Start the watcher: it calls run while the program does not run the
 * engines itself, and backs off by the engines' idle policy (idle, and
 * sleeps of at most sleep_max_us).  Nothing to do when it runs already.
 * @return 0 or pthread_create()'s error number.
 */
int rxd_inline_start(rxd_inline_run_fn run, enum rxd_idle_policy idle,
		     uint32_t sleep_max_us);

/** Stop and join it (before the engines go away). */
void rxd_inline_stop(void);

/** The program runs the engines itself now (rxd_poll()): the watcher
 *  stays out of its way for a while. */
void rxd_inline_polled(void);

#endif /* RXD_INLINE_H */
