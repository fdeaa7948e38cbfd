/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN's pacer on both sides of an RC connection, in one process
 * (net_ring pair): with dcqcn.line_rate_mbps 20 on both ports, a QP's
 * frames never leave faster than 20 Mbit/s, a WRITE's requests and a
 * READ's responses (sent by the responder's QP, the one the READ's
 * requester sends its CNPs to) alike.  Only lower bounds on the time are
 * asserted: the pacer guarantees them however the machine schedules the
 * test; unpaced, either transfer takes a few milliseconds here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define RATE_MBPS 20
#define LEN (1u << 20)
#define BUCKET 16384u      /* dcqcn.burst_bytes: what may leave at once */

static struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = LEN, .wr = 16,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

static struct rc_pair p;
static char conf[] = "/tmp/rxd-paced-XXXXXX";

static void
start(void)
{
	int fd = mkstemp(conf);

	cr_assert_geq(fd, 0);
	dprintf(fd, "[port0]\ndcqcn.line_rate_mbps = %d\n"
		"[port1]\ndcqcn.line_rate_mbps = %d\n", RATE_MBPS, RATE_MBPS);
	close(fd);
	setenv("RXD_CONFIG", conf, 1);
	rc_pair_start(&p, &opts);
}

static void
stop(void)
{
	rc_pair_stop(&p);
	unlink(conf);
}

TestSuite(rc_paced, .init = start, .fini = stop, .timeout = 120);

/* Seconds one op of LEN bytes between a's and b's buffers took, from
 * post to its successful completion. */
static double
timed(enum ibv_wr_opcode op)
{
	struct timespec t0, t1;
	struct ibv_wc wc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(rc_post(&p.a, op, 1, 0, LEN, (uintptr_t)p.b.buf,
			     p.b.mr->rkey, IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 60000), 1, "no completion");
	cr_assert_eq(wc.status, IBV_WC_SUCCESS, "%s",
		     ibv_wc_status_str(wc.status));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0.tv_sec) +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* The least time LEN payload bytes take at RATE_MBPS when a full bucket
 * leaves at once (headers not counted: a lower bound). */
static double
least_s(void)
{
	return (double)(LEN - BUCKET) * 8 / (RATE_MBPS * 1e6);
}

static uint64_t
tx_pkts(unsigned int port, const struct ibv_qp *qp)
{
	struct rxd_qp_stats s;

	cr_assert_eq(rxd_qp_stats(port, qp->qp_num, &s), 0);
	return s.tx_pkts;
}

/* op moves LEN bytes from src exactly, no faster than the rate allows;
 * what names the frames that were paced. */
static void
paced(enum ibv_wr_opcode op, uint8_t *src, const char *what)
{
	double t;

	memset(src == p.a.buf ? p.b.buf : p.a.buf, 0, LEN);
	memset(src, 0x5a, LEN);
	t = timed(op);
	cr_assert_geq(t, least_s(), "1 MiB in %.3f s: %s left faster than "
		      "%d Mbit/s", t, what, RATE_MBPS);
	cr_assert_eq(memcmp(p.a.buf, p.b.buf, LEN), 0);
}

Test(rc_paced, write_requests_leave_no_faster_than_the_rate)
{
	paced(IBV_WR_RDMA_WRITE, p.a.buf, "the WRITE's requests");
}

Test(rc_paced, read_responses_leave_no_faster_than_the_rate)
{
	uint64_t before = tx_pkts(1, p.b.qp);

	paced(IBV_WR_RDMA_READ, p.b.buf, "the READ's responses");
	cr_assert_geq(tx_pkts(1, p.b.qp) - before, LEN / 1024,
		      "the responder's QP sent the responses");
}
