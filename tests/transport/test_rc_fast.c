/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive fast path between two rxd ports in one process (net_ring
 * pair, path MTU 1024): the MIDDLE and LAST packets of in-order WRITEs
 * and SENDs are taken by it (roce_rx_fast), the bytes land exactly; with
 * duplicated and reordered frames on the receiving port, the frames that
 * are not the next one expected take the full path and are counted there
 * (duplicates, out_of_sequence) while the data still lands exactly.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define BUF 65536

static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = 2 * BUF, .wr = 64,
	.access = IBV_ACCESS_REMOTE_WRITE,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

RC_PAIR_SUITE(rc_fast, opts, 300);

static void
fill(uint8_t *b, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 29 + i * 7 + (i >> 9));
}

static uint64_t
fast_frames(unsigned int port, uint64_t *rx)
{
	struct rxd_port_counters c;

	cr_assert_eq(rxd_port_counters(port, &c), 0);
	*rx = c.roce_rx;
	return c.roce_rx_fast;
}

/* n WRITEs of 64 KiB from a to b (64 packets each), all completed. */
static void
write_all(unsigned int n)
{
	struct ibv_wc wc;
	unsigned int i;

	for (i = 0; i < n; i++) {
		memset(p.b.buf, 0, BUF);
		fill(p.a.buf, BUF, i);
		cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, i, 0, BUF,
				     (uintptr_t)p.b.buf, p.b.mr->rkey,
				     IBV_SEND_SIGNALED), 0);
		cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 60000), 1, "WRITE %u", i);
		cr_assert_eq(wc.status, IBV_WC_SUCCESS, "WRITE %u: %s", i,
			     ibv_wc_status_str(wc.status));
		cr_assert(!memcmp(p.a.buf, p.b.buf, BUF), "WRITE %u's bytes",
			  i);
	}
}

Test(rc_fast, in_order_write_and_send_take_it)
{
	uint64_t rx0, rx1, fast0 = fast_frames(1, &rx0), fast1;
	struct ibv_wc wc;

	write_all(4);
	fast1 = fast_frames(1, &rx1);
	/* 4 x (62 MIDDLE + 1 LAST); a retransmitted frame is a duplicate
	 * (full path): on a loaded machine a few may be */
	cr_assert_geq(fast1 - fast0, 4 * 63 / 2, "fast %lu of %lu frames",
		      (unsigned long)(fast1 - fast0),
		      (unsigned long)(rx1 - rx0));
	cr_assert_leq(fast1 - fast0, 4 * 63);
	fill(p.a.buf, BUF, 9);
	cr_assert_eq(rc_recv(&p.b, 1, BUF, BUF), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_SEND, 2, 0, BUF, 0, 0,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 60000), 1, "no receive");
	cr_assert_eq(wc.status, IBV_WC_SUCCESS);
	cr_assert_eq(wc.byte_len, BUF);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 60000), 1, "no send completion");
	cr_assert(!memcmp(p.a.buf, p.b.buf + BUF, BUF), "SEND's bytes");
	cr_assert_geq(fast_frames(1, &rx1) - fast1, 63 / 2, "SEND");
}

Test(rc_fast, duplicates_and_reordered_frames_take_the_full_path)
{
	struct rxd_conf_fault f = { .dup = 0.1, .reorder = 0.1,
		.reorder_depth = 3, .drop_opcode = -1 };
	struct rxd_conf_fault none = { .drop_opcode = -1 };
	struct rxd_qp_stats before, after;
	uint64_t rx0, rx1, fast0, fast1;

	cr_assert_eq(rxd_qp_stats(1, p.b.qp->qp_num, &before), 0);
	fast0 = fast_frames(1, &rx0);
	cr_assert_eq(rxd_fault_set(1, RXD_DIR_RX, &f, 31), 0);
	write_all(8);
	cr_assert_eq(rxd_fault_set(1, RXD_DIR_RX, &none, 32), 0);
	fast1 = fast_frames(1, &rx1);
	cr_assert_eq(rxd_qp_stats(1, p.b.qp->qp_num, &after), 0);
	cr_assert_gt(after.duplicates + after.out_of_sequence,
		     before.duplicates + before.out_of_sequence,
		     "no duplicate or gap counted");
	cr_assert_gt(fast1 - fast0, 0, "the in-order frames still take it");
	/* each MIDDLE/LAST PSN once at most: a duplicate or a frame ahead
	 * of a gap taken by the fast path would count again */
	cr_assert_leq(fast1 - fast0, 8 * 63, "fast %lu of %lu frames",
		      (unsigned long)(fast1 - fast0),
		      (unsigned long)(rx1 - rx0));
	cr_assert_gt(rx1 - rx0, 8 * 64, "no duplicate reached a QP");
}
