/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP1 before the link: a program whose first rdma_cm call starts rxd
 * lazily (RXD_EAL_ARGS, a memif port whose peer never comes) must have
 * port 0's QP1 while that call still waits RXD_LINK_WAIT_MS for the link,
 * so that a peer's REQs sent as soon as the link is up find QP1 (they
 * were dropped as roce_unknown_qp, and resent 4.6 s later, when QP1 was
 * made only after the wait).  A watcher thread looks for QP1 and ends
 * the process when it sees it: with 0 if that is within half the 30 s
 * wait (it takes about 1 s), 1 after (QP1 came after the wait).
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "rxd/rxd.h"

#define WITHIN_S 15

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
watch(void *arg)
{
	const double *start = arg;
	struct rxd_qp_stats s;
	double t;

	for (;;) {
		if (rxd_running() && rxd_qp_stats(0, 1, &s) == 0) {
			t = now_s() - *start;
			printf("%s: QP1 of port 0 after %.1f s, the link wait "
			       "being 30 s\n", t < WITHIN_S ? "PASS" : "FAIL", t);
			fflush(stdout);
			_exit(t < WITHIN_S ? 0 : 1);
		}
		usleep(2000);
	}
	return NULL;
}

int
main(void)
{
	static double start;
	pthread_t t;

	start = now_s();
	if (pthread_create(&t, NULL, watch, &start) != 0)
		return 1;
	if (rdma_create_event_channel() == NULL)
		perror("cm-qp1-early: rdma_create_event_channel");
	pause();         /* the watcher ends the process */
	return 1;
}
