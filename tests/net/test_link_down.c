/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port whose link stays down: a memif server nobody connects to.  The
 * frames rxd queues for it (its announcements) are never taken by the
 * PMD; the engine must still back off rather than spin, and a lazily
 * started verbs program must wait RXD_LINK_WAIT_MS for the link, by the
 * clock, however busy its inline engine is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <infiniband/verbs.h>
#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_stack.h"
#include "rxd_test_eal.h"

static char sock[64];
static char eal_line[512];

/* The EAL command line of a memif server on lcores, socket per test. */
static const char *
eal_args(const char *lcores)
{
	snprintf(sock, sizeof(sock), "/tmp/rxd-link-down-%d.sock", getpid());
	unlink(sock);
	snprintf(eal_line, sizeof(eal_line),
		 "-l %s --no-pci --no-huge -m 256 --no-shconf "
		 "--log-level=lib.eal:error --log-level=pmd.net.memif:error "
		 "--vdev=net_memif0,role=server,id=0,socket=%s,"
		 "socket-abstract=no", lcores, sock);
	return eal_line;
}

static double
ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 +
		(double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

Test(link_down, engine_backs_off, .timeout = 60)
{
	struct rxd_engine_stats st;
	struct rxd_port_info info;

	cr_assert_geq(rxd_test_eal("%s", eal_args("0-1")), 0, "EAL init");
	cr_assert_eq(rxd_test_rxd("--ip 10.0.0.1/24"), 0, "%s",
		     rxd_last_error());
	usleep(500 * 1000);
	cr_assert_eq(rxd_port_info(0, &info), 0);
	cr_assert(!info.link_up, "nobody connected, yet the link is up");
	memcpy(&st, &rxd_stk.engines[0].stats, sizeof(st));
	cr_assert_gt(st.loops, 0, "the engine never ran");
	cr_assert_lt(st.busy_loops * 2, st.loops,
		     "%lu of %lu passes busy with nothing to send to",
		     (unsigned long)st.busy_loops, (unsigned long)st.loops);
	rxd_stop();
	rte_eal_cleanup();
	unlink(sock);
}

Test(link_down, lazy_start_waits_for_the_link, .timeout = 60)
{
	struct ibv_device **list;
	struct timespec t0;
	double ms;
	int n = 0;

	setenv("RXD_EAL_ARGS", eal_args("0"), 1);   /* inline engine */
	setenv("RXD_ADDR", "10.0.0.1/24", 1);
	setenv("RXD_LINK_WAIT_MS", "700", 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	list = ibv_get_device_list(&n);
	ms = ms_since(&t0);
	cr_assert_not_null(list, "lazy start failed");
	cr_assert_eq(n, 1);
	cr_assert_geq(ms, 700.0, "waited %.1f ms of RXD_LINK_WAIT_MS=700", ms);
	ibv_free_device_list(list);
	unlink(sock);
}

/* A wait that is not a number of milliseconds stops the start, saying so. */
Test(link_down, bad_link_wait_is_refused, .timeout = 60)
{
	struct ibv_device **list;
	int n = 0;

	setenv("RXD_EAL_ARGS", eal_args("0"), 1);
	setenv("RXD_ADDR", "10.0.0.1/24", 1);
	setenv("RXD_LINK_WAIT_MS", "5s", 1);
	list = ibv_get_device_list(&n);
	cr_assert_null(list, "started with RXD_LINK_WAIT_MS=5s");
	cr_assert_eq(errno, EINVAL, "%s", strerror(errno));
	cr_assert(!rxd_running(), "rxd started anyway");
}
