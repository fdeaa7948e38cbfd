/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-memif-raw: the raw frame rate and round trip of a memif link between
 * two DPDK processes, with no RDMA stack — the baseline rxd's benchmarks
 * are compared to (doc/performance.md, "Raw memif baseline").
 *
 *   rxd-memif-raw EAL... -- rx|fwd [options]    (one side)
 *   rxd-memif-raw EAL... -- tx|ping [options]   (the other)
 */
#include <stdio.h>

#include <rte_eal.h>

#include "memif_raw.h"

static int
run(const struct raw_port *p, const struct raw_opts *o)
{
	if (raw_port_wait_link(p, o->link_wait, true) < 0) {
		fprintf(stderr, "rxd-memif-raw: link still down after %.1f s "
			"(is the peer running?)\n", o->link_wait);
		return 2;
	}
	switch (o->mode) {
	case RAW_TX:
		return raw_run_tx(p, o);
	case RAW_PING:
		return raw_run_ping(p, o);
	default:
		return raw_run_rx(p, o);
	}
}

int
main(int argc, char **argv)
{
	struct raw_port port = { 0 };
	struct raw_opts o;
	int n = rte_eal_init(argc, argv), rc = 2;

	if (n < 0) {
		fprintf(stderr, "rxd-memif-raw: EAL initialisation failed\n");
		return 2;
	}
	argv[n] = argv[0];      /* the options' argv[0], for getopt */
	if (raw_opts_parse(argc - n, argv + n, &o) < 0)
		raw_opts_usage(argv[0]);
	else if (raw_port_open(&port, &o) == 0)
		rc = run(&port, &o);
	raw_port_close(&port);
	rte_eal_cleanup();
	return rc;
}
