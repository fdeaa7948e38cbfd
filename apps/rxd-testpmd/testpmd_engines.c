/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "show engines": each engine's lcore, the QPs it owns on every port, its
 * busy and idle cycles and its hand-offs to and from the engines it
 * shares ports with (engines_per_port).
 */
#include <inttypes.h>
#include <stdio.h>

#include "testpmd.h"

#define QPNS_SHOWN 64

static void
print_qps(unsigned int e, unsigned int port)
{
	uint32_t qpns[QPNS_SHOWN];
	int n = rxd_engine_qps(e, port, qpns, QPNS_SHOWN);
	int i;

	if (n <= 0)
		return;
	printf("  port %u qps %d:", port, n);
	for (i = 0; i < n && i < QPNS_SHOWN; i++)
		printf(" 0x%x", qpns[i]);
	printf("%s\n", n > QPNS_SHOWN ? " ..." : "");
}

int
tp_show_engines(const struct tp_args *a)
{
	struct rxd_engine_info info;
	unsigned int e, p;

	(void)a;
	for (e = 0; e < rxd_engine_count(); e++) {
		if (rxd_engine_info(e, &info) != 0)
			return -1;
		printf("engine %u: lcore %u%s, %u port share(s), %u QP(s)\n",
		       e, info.lcore, info.inline_mode ? " (inline)" : "",
		       info.n_ports, info.qps);
		printf("  cycles busy %" PRIu64 " idle %" PRIu64
		       ", loops %" PRIu64 " (busy %" PRIu64 ")\n",
		       info.busy_cycles, info.idle_cycles, info.loops,
		       info.busy_loops);
		printf("  hand-offs sent %" PRIu64 " received %" PRIu64
		       " dropped %" PRIu64 "\n", info.handoff_sent,
		       info.handoff_received, info.handoff_dropped);
		for (p = 0; p < rxd_port_count(); p++)
			print_qps(e, p);
	}
	for (p = 0; p < rxd_port_count(); p++) {
		struct rxd_port_info pi;

		if (rxd_port_info(p, &pi) == 0)
			printf("port %u: steering %s, steered %" PRIu64
			       ", collisions %" PRIu64 ", refused %" PRIu64
			       "\n", p, pi.steering, pi.steered,
			       pi.steer_collisions, pi.steer_failed);
	}
	return 0;
}
