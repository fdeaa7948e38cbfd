/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engines as observers see them (rxd_engine_info(), rxd_engine_qps()):
 * which QPs each owns, its busy and idle cycles, the RoCE frames its QPs
 * took and its hand-offs.  The counters are read as they stand (they only
 * grow); the QP tables are read as the engines read them.
 */
#include <errno.h>
#include <string.h>

#include "rxd_stack.h"

unsigned int
rxd_engine_count(void)
{
	return rxd_stk.running ? rxd_stk.n_engines : 0;
}

int
rxd_engine_info(unsigned int engine, struct rxd_engine_info *info)
{
	const struct rxd_engine *e = &rxd_stk.engines[engine];
	unsigned int i;

	if (engine >= rxd_engine_count()) {
		errno = ENODEV;
		return -1;
	}
	memset(info, 0, sizeof(*info));
	info->lcore = e->lcore;
	info->inline_mode = !rxd_stk.launched[engine];
	info->n_ports = e->n_ports;
	info->qps = __atomic_load_n(&e->n_qps, __ATOMIC_RELAXED);
	info->busy_cycles = e->busy_cycles;
	info->idle_cycles = e->idle_cycles;
	info->handoff_sent = e->handoff.stats.sent;
	info->handoff_received = e->handoff.stats.received;
	info->handoff_dropped = e->handoff.stats.dropped;
	info->loops = e->stats.loops;
	info->busy_loops = e->stats.busy_loops;
	for (i = 0; i < e->n_ports; i++)
		info->roce_rx += e->ports[i].roce.rx;
	return 0;
}

int
rxd_engine_qps(unsigned int engine, unsigned int port, uint32_t *qpns,
	       unsigned int max)
{
	const struct rxd_engine *e = &rxd_stk.engines[engine];
	unsigned int n = 0;
	uint32_t qpn;

	if (engine >= rxd_engine_count() || port >= rxd_stk.n_ports) {
		errno = ENODEV;
		return -1;
	}
	for (qpn = 0; qpn < rxd_stk.qp_table_len; qpn++) {
		const struct rxd_qp_core *qp = rxd_qp_lookup(port, qpn);

		if (qp == NULL || qp->engine != e)
			continue;
		if (n < max)
			qpns[n] = qpn;
		n++;
	}
	return (int)n;
}
