/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive fast path between two rxd ports in one process (net_ring
 * pair, path MTU 1024): the MIDDLE and LAST packets of in-order WRITEs
 * and SENDs, the ONLY packets of small WRITEs (with and without
 * immediate data) and SENDs, and the plain ACKs that answer them are
 * taken by it (roce_rx_fast), the bytes land exactly and each WR
 * completes once; a WRITE ONLY with a wrong rkey taken by it still fails
 * the responder's MR check; with duplicated, reordered and corrupted
 * frames on either port, the frames that are not the next one expected
 * take the full path and are counted there (duplicates, out_of_sequence,
 * wire errors) while the data still lands exactly.
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

#define SMALL 64          /* bytes of a small message */
#define N_SMALL 256       /* small messages a run */
#define WINDOW 32         /* WRs posted before their completions */

/* The frames port took that the fast path took, and that any took, and
 * its wire errors. */
struct port_seen {
	uint64_t fast, rx, wire_err;
};

static struct port_seen
seen(unsigned int port)
{
	struct rxd_port_counters c;
	struct port_seen s = { 0, 0, 0 };
	unsigned int i;

	cr_assert_eq(rxd_port_counters(port, &c), 0);
	s.fast = c.roce_rx_fast;
	s.rx = c.roce_rx;
	for (i = 0; i < 32; i++)
		s.wire_err += c.wire_err[i];
	return s;
}

/* Poll one completion of cq: wr_id want, status success, opcode op. */
static void
expect_wc(struct ibv_cq *cq, uint64_t want, enum ibv_wc_opcode op)
{
	struct ibv_wc wc;

	cr_assert_eq(rc_poll(cq, &wc, 1, 60000), 1, "no completion of %lu",
		     (unsigned long)want);
	cr_assert_eq(wc.status, IBV_WC_SUCCESS, "WR %lu: %s",
		     (unsigned long)want, ibv_wc_status_str(wc.status));
	cr_assert_eq(wc.wr_id, want, "WR %lu completed for %lu",
		     (unsigned long)wc.wr_id, (unsigned long)want);
	cr_assert_eq(wc.opcode, op);
}

/* Neither CQ has a completion left over. */
static void
expect_no_more(void)
{
	struct ibv_wc wc;

	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 50), 0, "a second completion");
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 50), 0, "a second receive");
}

/*
 * N_SMALL messages of SMALL bytes from a to b, each to its own place:
 * WRITEs, WRITEs with immediate data or SENDs (opcode op), WINDOW posted
 * at a time, every one signaled; each completes once, in order, and its
 * bytes land.
 */
static void
small_all(enum ibv_wr_opcode op, uint32_t seed)
{
	uint32_t len = N_SMALL * SMALL, i, k;
	bool recv = op != IBV_WR_RDMA_WRITE;

	memset(p.b.buf, 0, len);
	fill(p.a.buf, len, seed);
	for (i = 0; i < N_SMALL; i += WINDOW) {
		for (k = i; k < i + WINDOW; k++) {
			if (recv)
				cr_assert_eq(rc_recv(&p.b, k, k * SMALL,
						     SMALL), 0);
			cr_assert_eq(rc_post(&p.a, op, k, k * SMALL, SMALL,
					     (uintptr_t)p.b.buf + k * SMALL,
					     p.b.mr->rkey, IBV_SEND_SIGNALED),
				     0);
		}
		for (k = i; k < i + WINDOW; k++) {
			expect_wc(p.a.cq, k, op == IBV_WR_SEND ? IBV_WC_SEND :
				  IBV_WC_RDMA_WRITE);
			if (recv)
				expect_wc(p.b.cq, k, op == IBV_WR_SEND ?
					  IBV_WC_RECV :
					  IBV_WC_RECV_RDMA_WITH_IMM);
		}
	}
	expect_no_more();
	cr_assert(!memcmp(p.a.buf, p.b.buf, len), "the bytes of %u", op);
}

Test(rc_fast, small_messages_and_their_acks_take_it)
{
	static const enum ibv_wr_opcode ops[] = { IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND };
	struct port_seen a0, b0, a1, b1;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		a0 = seen(0);
		b0 = seen(1);
		small_all(ops[i], i);
		a1 = seen(0);
		b1 = seen(1);
		/* one ONLY a message; a retransmitted one is a duplicate
		 * (full path): on a loaded machine a few may be */
		cr_assert_geq(b1.fast - b0.fast, N_SMALL / 2,
			      "op %u: fast %lu of %lu requests", ops[i],
			      (unsigned long)(b1.fast - b0.fast),
			      (unsigned long)(b1.rx - b0.rx));
		cr_assert_leq(b1.fast - b0.fast, N_SMALL);
		/* one ACK a burst of requests at least, each a new PSN */
		cr_assert_geq(a1.fast - a0.fast, N_SMALL / WINDOW / 2,
			      "op %u: fast %lu of %lu ACKs", ops[i],
			      (unsigned long)(a1.fast - a0.fast),
			      (unsigned long)(a1.rx - a0.rx));
		cr_assert_leq(a1.fast - a0.fast, N_SMALL);
	}
}

Test(rc_fast, a_write_only_taken_by_it_still_meets_the_mr_check)
{
	struct port_seen b0, b1;
	struct ibv_wc wc;
	uint32_t i;

	small_all(IBV_WR_RDMA_WRITE, 5);
	b0 = seen(1);
	memset(p.b.buf + 2 * BUF - SMALL, 0x5a, SMALL);
	/* past the MR's end by one byte: the RETH's range is refused */
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 77, 0, SMALL,
			     (uintptr_t)p.b.buf + 2 * BUF - SMALL + 1,
			     p.b.mr->rkey, IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 60000), 1, "no completion");
	cr_assert_eq(wc.status, IBV_WC_REM_ACCESS_ERR, "%s",
		     ibv_wc_status_str(wc.status));
	b1 = seen(1);
	cr_assert_eq(b1.fast - b0.fast, 1, "the WRITE ONLY took the fast path");
	for (i = 2 * BUF - SMALL; i < 2 * BUF; i++)
		cr_assert_eq(p.b.buf[i], 0x5a, "byte %u was written", i);
}

/*
 * Faults on both ports' receive side: small WRITEs and SENDs land exactly
 * and complete once; the full path counts the duplicates, gaps and
 * corrupt frames; the fast path never takes a PSN twice, nor more ACKs
 * than were sent.
 */
Test(rc_fast, small_messages_with_faults)
{
	struct rxd_conf_fault f = { .dup = 0.05, .reorder = 0.05,
		.reorder_depth = 3, .corrupt = 0.02, .drop_opcode = -1 };
	/* ACKs duplicated and held back often: stale ones come late */
	struct rxd_conf_fault f_ack = { .dup = 0.3, .reorder = 0.3,
		.reorder_depth = 3, .corrupt = 0.02, .drop_opcode = -1 };
	struct rxd_conf_fault none = { .drop_opcode = -1 };
	struct rxd_qp_stats qa0, qb0, qa1, qb1;
	struct port_seen a0, b0, a1, b1;

	cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &qa0), 0);
	cr_assert_eq(rxd_qp_stats(1, p.b.qp->qp_num, &qb0), 0);
	a0 = seen(0);
	b0 = seen(1);
	cr_assert_eq(rxd_fault_set(0, RXD_DIR_RX, &f_ack, 41), 0);
	cr_assert_eq(rxd_fault_set(1, RXD_DIR_RX, &f, 42), 0);
	small_all(IBV_WR_RDMA_WRITE, 7);
	small_all(IBV_WR_SEND, 8);
	cr_assert_eq(rxd_fault_set(0, RXD_DIR_RX, &none, 43), 0);
	cr_assert_eq(rxd_fault_set(1, RXD_DIR_RX, &none, 44), 0);
	a1 = seen(0);
	b1 = seen(1);
	cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &qa1), 0);
	cr_assert_eq(rxd_qp_stats(1, p.b.qp->qp_num, &qb1), 0);
	cr_assert_gt(qb1.duplicates + qb1.out_of_sequence +
		     qa1.duplicates + qa1.out_of_sequence,
		     qb0.duplicates + qb0.out_of_sequence +
		     qa0.duplicates + qa0.out_of_sequence,
		     "no duplicate or gap counted");
	cr_assert_gt(a1.wire_err + b1.wire_err, a0.wire_err + b0.wire_err,
		     "no corrupt frame counted");
	cr_assert_gt(b1.fast - b0.fast, 0, "the in-order ONLYs still take it");
	/* each request PSN and each ACKed PSN once at most */
	cr_assert_leq(b1.fast - b0.fast, 2 * N_SMALL, "fast %lu of %lu",
		      (unsigned long)(b1.fast - b0.fast),
		      (unsigned long)(b1.rx - b0.rx));
	/* each fast ACK acknowledged something new: at most one per ACK
	 * sent, however often it was duplicated */
	cr_assert_leq(a1.fast - a0.fast, qb1.acks_tx - qb0.acks_tx,
		      "fast %lu ACKs of %lu sent",
		      (unsigned long)(a1.fast - a0.fast),
		      (unsigned long)(qb1.acks_tx - qb0.acks_tx));
}
