/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC with one inline engine (EAL -l 0): a program that posts and stops at
 * once (rdma_cm's DREQ right before exit) still gets its frame on the
 * wire.  Nobody runs a pass after the post, so rxd_stop() must; one
 * inline engine serves both ports here, so the WRITE also lands in the
 * peer's buffer.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

static const struct rc_opts opts = {
	.eal_lcores = "0", .buf_len = 4096, .wr = 16,
	.access = IBV_ACCESS_REMOTE_WRITE, .timeout = 14, .retry_cnt = 7,
	.rnr_retry = 7, .min_rnr_timer = 1, .mtu = IBV_MTU_1024,
};

RC_PAIR_SUITE(rc_inline, opts, 60);

Test(rc_inline, stop_sends_what_was_posted)
{
	struct ibv_wc wc;

	memset(p.a.buf, 0x11, 64);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 64,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 5000), 1, "a first WRITE");
	cr_assert_arr_eq(p.b.buf, p.a.buf, 64);
	memset(p.a.buf, 0x22, 64);
	rxd_poll();          /* the program drives: the watcher stays asleep */
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 2, 0, 64,
			     (uintptr_t)p.b.buf, p.b.mr->rkey, 0), 0);
	rxd_stop();
	cr_assert_arr_eq(p.b.buf, p.a.buf, 64, "the last WRITE never left");
}
