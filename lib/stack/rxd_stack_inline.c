/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_poll() and rxd_inline_progress() of include/rxd/rxd.h over the
 * engine's inline runner (rxd_inline.h): which of the stack's engines no
 * lcore runs, and one pass of each of them.
 */
#include "rxd_stack.h"

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
	rxd_inline_polled();
	return run_inline();
}

int
rxd_stack_inline_start(void)
{
	if (!rxd_inline_progress())
		return 0;
	return rxd_inline_start(run_inline, rxd_stk.conf.idle,
				rxd_stk.conf.idle_sleep_max_us);
}
