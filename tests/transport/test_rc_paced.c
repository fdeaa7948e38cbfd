/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pacer on both sides of an RC connection, in one process (net_ring
 * pair): with dcqcn.line_rate_mbps 20 on both ports, a QP's frames never
 * leave faster than 20 Mbit/s, a WRITE's requests and a READ's responses
 * (sent by the responder's QP, the one the READ's requester sends its
 * CNPs to) alike, under the law RXD_TEST_CC names (port key cc: dcqcn,
 * the default, ecn or delay; meson runs each).  Only lower bounds on the time are
 * asserted: the pacer guarantees them however the machine schedules the
 * test; unpaced, either transfer takes a few milliseconds here.
 * The RTT sampler (rxd_rtt.c) rides on the same pacing: a WRITE's first
 * frame is ACKed only with its 32nd (the first AckReq), which the pacer
 * lets leave no sooner than a known time after it; and with a quarter of
 * a's frames dropped, no sample counts the retransmit timeout (Karn).
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
#define RTO_US 268435      /* 4.096 us << timeout 16 */

static struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = LEN, .wr = 16,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	.timeout = 16, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

static struct rc_pair p;
static char conf[] = "/tmp/rxd-paced-XXXXXX";

static void
start(void)
{
	int fd = mkstemp(conf);
	const char *cc = getenv("RXD_TEST_CC");

	cr_assert_geq(fd, 0);
	if (cc == NULL)
		cc = "dcqcn";
	dprintf(fd, "[port0]\ncc = %s\ndcqcn.line_rate_mbps = %d\n"
		"[port1]\ncc = %s\ndcqcn.line_rate_mbps = %d\n",
		cc, RATE_MBPS, cc, RATE_MBPS);
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

/* Seconds one op of len bytes between a's and b's buffers took, from
 * post to its successful completion. */
static double
timed_len(enum ibv_wr_opcode op, uint32_t len)
{
	struct timespec t0, t1;
	struct ibv_wc wc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(rc_post(&p.a, op, 1, 0, len, (uintptr_t)p.b.buf,
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

static struct rxd_qp_stats
stats(unsigned int port, const struct ibv_qp *qp)
{
	struct rxd_qp_stats s;

	cr_assert_eq(rxd_qp_stats(port, qp->qp_num, &s), 0);
	return s;
}

/* op moves LEN bytes from src exactly, no faster than the rate allows;
 * what names the frames that were paced, by the QP of port sender. */
static void
paced(enum ibv_wr_opcode op, uint8_t *src, const char *what,
      unsigned int sender)
{
	uint64_t kbps;
	double t;

	memset(src == p.a.buf ? p.b.buf : p.a.buf, 0, LEN);
	memset(src, 0x5a, LEN);
	t = timed_len(op, LEN);
	cr_assert_geq(t, least_s(), "1 MiB in %.3f s: %s left faster than "
		      "%d Mbit/s", t, what, RATE_MBPS);
	cr_assert_eq(memcmp(p.a.buf, p.b.buf, LEN), 0);
	kbps = stats(sender, sender ? p.b.qp : p.a.qp).rate_kbps;
	cr_assert(kbps > 0 && kbps <= RATE_MBPS * 1000, "%s: paced at %lu "
		  "kbit/s", what, (unsigned long)kbps);
}

Test(rc_paced, write_requests_leave_no_faster_than_the_rate)
{
	paced(IBV_WR_RDMA_WRITE, p.a.buf, "the WRITE's requests", 0);
}

Test(rc_paced, read_responses_leave_no_faster_than_the_rate)
{
	uint64_t before = stats(1, p.b.qp).tx_pkts;

	paced(IBV_WR_RDMA_READ, p.b.buf, "the READ's responses", 1);
	cr_assert_geq(stats(1, p.b.qp).tx_pkts - before, LEN / 1024,
		      "the responder's QP sent the responses");
}

/* Frame 0 of a 64-frame WRITE (MTU 1024) is covered first by the ACK of
 * frame 31, its first AckReq: 32 frames of at least 1078 bytes (headers,
 * payload, ICRC) may leave at once only up to a bucket and one frame, the
 * rest at RATE_MBPS. */
Test(rc_paced, rtt_spans_the_frames_up_to_the_first_ackreq)
{
	uint64_t least_us = (32 * 1078 - BUCKET - 1078) * 8 / RATE_MBPS;
	struct rxd_qp_stats s;
	double t;

	t = timed_len(IBV_WR_RDMA_WRITE, 64 * 1024);
	s = stats(0, p.a.qp);
	cr_assert_geq(s.rtt_samples, 1, "no round trip sampled");
	cr_assert_geq(s.rtt_us, least_us, "RTT %lu us, below the %lu us "
		      "the pacer lets frame 31 leave after frame 0",
		      (unsigned long)s.rtt_us, (unsigned long)least_us);
	cr_assert_leq(s.rtt_us, t * 1e6 + 1, "RTT %lu us, longer than the "
		      "WRITE (%.0f us)", (unsigned long)s.rtt_us, t * 1e6);
}

/* One-frame WRITEs with a quarter of a's frames dropped: a lost frame is
 * sent again only after the retransmit timeout; a sample of it would be
 * that long.  Karn: the resent frames are not sampled, the others are. */
Test(rc_paced, rtt_ignores_frames_sent_again)
{
	struct rxd_conf_fault f = { .drop = 0.25, .drop_opcode = -1 };
	struct rxd_conf_fault none = { .drop_opcode = -1 };
	struct rxd_qp_stats s;
	uint64_t sampled = 0;
	int i;

	cr_assert_eq(rxd_fault_set(p.port_a, RXD_DIR_TX, &f, 7), 0);
	for (i = 0; i < 24; i++) {
		uint64_t before = stats(0, p.a.qp).rtt_samples;

		timed_len(IBV_WR_RDMA_WRITE, 1024);
		s = stats(0, p.a.qp);
		sampled += s.rtt_samples - before;
		cr_assert_lt(s.rtt_us, RTO_US / 2, "WRITE %d: RTT %lu us "
			     "counts a retransmit timeout", i,
			     (unsigned long)s.rtt_us);
	}
	cr_assert_eq(rxd_fault_set(p.port_a, RXD_DIR_TX, &none, 7), 0);
	cr_assert_gt(s.timeouts, 0, "no frame was lost: nothing tested");
	cr_assert_gt(sampled, 0, "no WRITE was sampled");
}
