/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer-death: an RC peer killed with SIGKILL at random moments must leave
 * the other side with error completions, no crash, and able to accept the
 * restarted peer.  One program, two roles (each its own EAL and rxd):
 * the long-lived survivor (peer_death_survivor.c) and a victim
 * (peer_death_victim.c) that the driver, peer-death.sh, starts again
 * after each kill.
 *
 * Usage: peer-death EAL -- [rxd options] survivor SOCKET KILLS SEED PORT
 *        peer-death EAL -- [rxd options] victim SOCKET
 * The survivor exits 0 when every kill passed; a victim only exits by
 * itself after the final, clean round (0) or on a failure (1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>

#include "peer_death.h"
#include "rxd/rxd.h"
#include "rxd_test_eal.h"

static int
usage(void)
{
	fprintf(stderr, "usage: peer-death EAL -- [rxd options] survivor "
		"SOCKET KILLS SEED PORT | victim SOCKET\n");
	return 2;
}

int
main(int argc, char **argv)
{
	int rc;

	if (rxd_test_start_main("peer-death", &argc, &argv) != 0)
		return 2;
	if (argc < 3)
		return usage();
	pd_dev_open();
	if (strcmp(argv[1], "survivor") == 0 && argc == 6)
		rc = pd_survivor(argv[2], (unsigned int)atoi(argv[3]),
				 strtoull(argv[4], NULL, 0), argv[5]);
	else if (strcmp(argv[1], "victim") == 0)
		rc = pd_victim(argv[2]);
	else
		return usage();
	ibv_dereg_mr(pd_dev.mr);
	ibv_dealloc_pd(pd_dev.pd);
	ibv_close_device(pd_dev.ctx);
	free(pd_dev.buf);
	rxd_stop();
	rte_eal_cleanup();
	return rc;
}
