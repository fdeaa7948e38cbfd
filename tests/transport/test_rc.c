/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC between two rxd ports in one process (net_ring pair): every opcode at
 * the sizes around the path MTU, byte-exact; remote errors; RNR.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define BIG (16u << 20)
#define BUF (2 * BIG + 65536)

static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = BUF, .wr = 64,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

RC_PAIR_SUITE(rc, opts, 120);

static const uint32_t sizes[] = { 0, 1, 1023, 1024, 1025, 65536 + 3, BIG };

static void
pattern(uint8_t *b, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static struct ibv_wc
expect_one(struct ibv_cq *cq, enum ibv_wc_status st, enum ibv_wc_opcode op,
	   uint32_t byte_len)
{
	struct ibv_wc wc;

	cr_assert_eq(rc_poll(cq, &wc, 1, 10000), 1, "no completion");
	cr_assert_eq(wc.status, st, "status %s", ibv_wc_status_str(wc.status));
	if (st == IBV_WC_SUCCESS) {
		cr_assert_eq(wc.opcode, op);
		cr_assert_eq(wc.byte_len, byte_len);
	}
	return wc;
}

/*
 * Post n WRITEs of len bytes (slot i of a's buffer to slot i of b's) as one
 * list: one doorbell, one engine pass.  Signaled: all, or only the last.
 */
static void
post_write_list(unsigned int n, uint32_t len, bool all_signaled)
{
	struct ibv_send_wr w[64], *bad;
	struct ibv_sge sge[64];
	unsigned int i;

	cr_assert_leq(n, 64);
	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)p.a.buf + i * len, len,
					   p.a.mr->lkey };
		w[i] = (struct ibv_send_wr){ .wr_id = i, .sg_list = &sge[i],
			.num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
			.next = i + 1 < n ? &w[i + 1] : NULL,
			.send_flags = all_signaled || i + 1 == n ?
				IBV_SEND_SIGNALED : 0 };
		w[i].wr.rdma.remote_addr = (uintptr_t)p.b.buf + i * len;
		w[i].wr.rdma.rkey = p.b.mr->rkey;
	}
	pattern(p.a.buf, n * len, 7);
	cr_assert_eq(ibv_post_send(p.a.qp, w, &bad), 0);
}

/*
 * The first burst after connecting is not lost to address resolution: the
 * peer's MAC is asked for at RTR, as a RoCE driver does.  (Found unknown
 * at the first send instead, 16 frames wait and the rest are dropped: a
 * retransmission.)  One post of 48 WRITEs goes out in one engine pass.
 */
Test(rc, first_burst_is_not_lost_to_arp)
{
	struct rxd_port_counters c;
	struct rxd_qp_stats s;
	struct ibv_wc wc[48];
	unsigned int i;

	post_write_list(48, 64, true);
	cr_assert_eq(rc_poll(p.a.cq, wc, 48, 10000), 48);
	for (i = 0; i < 48; i++)
		cr_assert_eq(wc[i].status, IBV_WC_SUCCESS);
	cr_assert_arr_eq(p.b.buf, p.a.buf, 48 * 64);
	cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &s), 0);
	cr_assert_eq(rxd_port_counters(0, &c), 0);
	cr_assert_eq(c.held_dropped, 0, "frames dropped while resolving");
	cr_assert_eq(s.retransmits, 0, "%lu retransmissions",
		     (unsigned long)s.retransmits);
}

Test(rc, send_sizes)
{
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t n = sizes[i];

		pattern(p.a.buf, n, i);
		memset(p.b.buf, 0xee, n + 1);
		cr_assert_eq(rc_recv(&p.b, i, 0, BIG + 1), 0);
		cr_assert_eq(rc_post(&p.a, IBV_WR_SEND, i, 0, n, 0, 0,
				     IBV_SEND_SIGNALED), 0);
		expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
		expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_RECV, n);
		cr_assert_arr_eq(p.b.buf, p.a.buf, n, "SEND of %u bytes", n);
		cr_assert_eq(p.b.buf[n], 0xee, "nothing past the message");
	}
}

Test(rc, write_sizes)
{
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t n = sizes[i];

		pattern(p.a.buf, n, i + 10);
		memset(p.b.buf, 0, n + 100);
		cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, i, 0, n,
				     (uintptr_t)p.b.buf + 100, p.b.mr->rkey,
				     IBV_SEND_SIGNALED), 0);
		expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0);
		cr_assert_arr_eq(p.b.buf + 100, p.a.buf, n, "WRITE %u", n);
	}
}

Test(rc, read_sizes)
{
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t n = sizes[i];

		pattern(p.b.buf, n, i + 20);
		memset(p.a.buf, 0, n + 8);
		cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_READ, i, 8, n,
				     (uintptr_t)p.b.buf, p.b.mr->rkey,
				     IBV_SEND_SIGNALED), 0);
		expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, n);
		cr_assert_arr_eq(p.a.buf + 8, p.b.buf, n, "READ %u", n);
	}
}

Test(rc, atomics)
{
	uint64_t *target = (uint64_t *)(p.b.buf + 64);
	uint64_t *result = (uint64_t *)p.a.buf;
	struct ibv_sge sge = { (uintptr_t)p.a.buf, 8, p.a.mr->lkey };
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED }, *bad;

	*target = 41;
	w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	w.wr.atomic.remote_addr = (uintptr_t)target;
	w.wr.atomic.rkey = p.b.mr->rkey;
	w.wr.atomic.compare_add = 5;
	cr_assert_eq(ibv_post_send(p.a.qp, &w, &bad), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD, 8);
	cr_assert_eq(*result, 41, "original value in host order");
	cr_assert_eq(*target, 46);
	w.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.compare_add = 46;
	w.wr.atomic.swap = 0x1122334455667788ull;
	cr_assert_eq(ibv_post_send(p.a.qp, &w, &bad), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, 8);
	cr_assert_eq(*result, 46);
	cr_assert_eq(*target, 0x1122334455667788ull);
	w.wr.atomic.compare_add = 1;       /* no match: no swap */
	w.wr.atomic.swap = 7;
	cr_assert_eq(ibv_post_send(p.a.qp, &w, &bad), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP, 8);
	cr_assert_eq(*result, 0x1122334455667788ull);
	cr_assert_eq(*target, 0x1122334455667788ull);
}

Test(rc, wrong_rkey_is_remote_access_error)
{
	memset(p.b.buf, 0x5a, 4096);
	pattern(p.a.buf, 4096, 3);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 4096,
			     (uintptr_t)p.b.buf, p.b.mr->rkey ^ 1, 0), 0);
	expect_one(p.a.cq, IBV_WC_REM_ACCESS_ERR, 0, 0);
	cr_assert_eq(p.b.buf[0], 0x5a, "target untouched");
	cr_assert_eq(p.b.buf[4095], 0x5a);
}

/* An rkey is good only for QPs of its MR's protection domain (IBTA 10.6):
 * the same bytes, registered in another PD of the responder's context,
 * are refused. */
Test(rc, rkey_of_another_pd_is_remote_access_error)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(p.b.ctx);
	struct ibv_mr *mr2;

	cr_assert_not_null(pd2);
	mr2 = ibv_reg_mr(pd2, p.b.buf, 4096, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	cr_assert_not_null(mr2);
	memset(p.b.buf, 0x5a, 4096);
	pattern(p.a.buf, 4096, 3);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 4096,
			     (uintptr_t)p.b.buf, mr2->rkey, 0), 0);
	expect_one(p.a.cq, IBV_WC_REM_ACCESS_ERR, 0, 0);
	cr_assert_eq(p.b.buf[0], 0x5a, "target untouched");
	cr_assert_eq(p.b.buf[4095], 0x5a);
	ibv_dereg_mr(mr2);
	ibv_dealloc_pd(pd2);
}

Test(rc, one_byte_past_the_mr)
{
	memset(p.b.buf + BUF - 8, 0x5a, 8);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 9,
			     (uintptr_t)p.b.buf + BUF - 8, p.b.mr->rkey, 0), 0);
	expect_one(p.a.cq, IBV_WC_REM_ACCESS_ERR, 0, 0);
	cr_assert_eq(p.b.buf[BUF - 8], 0x5a, "target untouched");
}

Test(rc, unaligned_atomic_is_invalid_request)
{
	struct ibv_sge sge = { (uintptr_t)p.a.buf, 8, p.a.mr->lkey };
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD }, *bad;

	memset(p.b.buf, 0, 16);
	w.wr.atomic.remote_addr = (uintptr_t)p.b.buf + 4;
	w.wr.atomic.rkey = p.b.mr->rkey;
	w.wr.atomic.compare_add = 1;
	cr_assert_eq(ibv_post_send(p.a.qp, &w, &bad), 0);
	expect_one(p.a.cq, IBV_WC_REM_INV_REQ_ERR, 0, 0);
	cr_assert_eq(((uint64_t *)p.b.buf)[0], 0);
	cr_assert_eq(((uint64_t *)p.b.buf)[1], 0);
}

Test(rc, rnr_then_late_receive)
{
	pattern(p.a.buf, 100, 9);
	cr_assert_eq(rc_post(&p.a, IBV_WR_SEND, 5, 0, 100, 0, 0,
			     IBV_SEND_SIGNALED), 0);
	usleep(30000);
	cr_assert_eq(rc_recv(&p.b, 6, 0, 4096), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
	expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_RECV, 100);
	cr_assert_arr_eq(p.b.buf, p.a.buf, 100);
}

static int
post_wr(struct rc_end *e, struct ibv_send_wr *w)
{
	struct ibv_send_wr *bad;

	return ibv_post_send(e->qp, w, &bad);
}

Test(rc, immediate_and_invalidate)
{
	struct ibv_sge sge = { (uintptr_t)p.a.buf, 100, p.a.mr->lkey };
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc;

	pattern(p.a.buf, 100, 1);
	cr_assert_eq(rc_recv(&p.b, 1, 0, 4096), 0);
	w.opcode = IBV_WR_SEND_WITH_IMM;
	w.imm_data = htobe32(0xdeadbeef);
	cr_assert_eq(post_wr(&p.a, &w), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
	wc = expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_RECV, 100);
	cr_assert(wc.wc_flags & IBV_WC_WITH_IMM);
	cr_assert_eq(be32toh(wc.imm_data), 0xdeadbeef);
	cr_assert_eq(wc.src_qp, p.a.qp->qp_num);

	cr_assert_eq(rc_recv(&p.b, 2, 0, 4096), 0);
	w.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	w.imm_data = htobe32(7);
	w.wr.rdma.remote_addr = (uintptr_t)p.b.buf + 8192;
	w.wr.rdma.rkey = p.b.mr->rkey;
	cr_assert_eq(post_wr(&p.a, &w), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0);
	wc = expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, 0);
	cr_assert_eq(be32toh(wc.imm_data), 7);
	cr_assert_arr_eq(p.b.buf + 8192, p.a.buf, 100);

	cr_assert_eq(rc_recv(&p.b, 3, 0, 4096), 0);
	w.opcode = IBV_WR_SEND_WITH_INV;
	w.invalidate_rkey = 0x1234;
	cr_assert_eq(post_wr(&p.a, &w), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
	wc = expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_RECV, 100);
	cr_assert(wc.wc_flags & IBV_WC_WITH_INV);
	cr_assert_eq(wc.invalidated_rkey, 0x1234);
}

Test(rc, gather_scatter_and_inline)
{
	struct ibv_sge g[3] = {
		{ (uintptr_t)p.a.buf, 1000, p.a.mr->lkey },
		{ (uintptr_t)p.a.buf + 5000, 1500, p.a.mr->lkey },
		{ (uintptr_t)p.a.buf + 9000, 7, p.a.mr->lkey },
	};
	struct ibv_sge sc[2] = {
		{ (uintptr_t)p.b.buf, 1200, p.b.mr->lkey },
		{ (uintptr_t)p.b.buf + 20000, 2000, p.b.mr->lkey },
	};
	struct ibv_recv_wr r = { .wr_id = 1, .sg_list = sc, .num_sge = 2 }, *rb;
	struct ibv_send_wr w = { .sg_list = g, .num_sge = 3,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	uint8_t want[2507];

	pattern(p.a.buf, 10000, 4);
	memcpy(want, p.a.buf, 1000);
	memcpy(want + 1000, p.a.buf + 5000, 1500);
	memcpy(want + 2500, p.a.buf + 9000, 7);
	cr_assert_eq(ibv_post_recv(p.b.qp, &r, &rb), 0);
	cr_assert_eq(post_wr(&p.a, &w), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
	expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_RECV, 2507);
	cr_assert_arr_eq(p.b.buf, want, 1200, "first receive SGE");
	cr_assert_arr_eq(p.b.buf + 20000, want + 1200, 1307, "second SGE");

	/* inline: the buffer may change right after the post */
	w.num_sge = 1;
	g[0].length = 60;
	w.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	memcpy(want, p.a.buf, 60);
	cr_assert_eq(rc_recv(&p.b, 2, 0, 4096), 0);
	cr_assert_eq(post_wr(&p.a, &w), 0);
	memset(p.a.buf, 0, 60);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
	expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_RECV, 60);
	cr_assert_arr_eq(p.b.buf, want, 60, "inline data copied at post");
}

Test(rc, unsignaled_then_signaled)
{
	struct ibv_wc wc[4];
	int i;

	for (i = 0; i < 10; i++) {
		pattern(p.a.buf + i * 4096, 4096, (uint32_t)i);
		cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, (uint64_t)i,
				     (size_t)i * 4096, 4096,
				     (uintptr_t)p.b.buf + (size_t)i * 4096,
				     p.b.mr->rkey, 0), 0);
	}
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_READ, 99, 100000, 8,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_poll(p.a.cq, wc, 4, 2000), 1, "only the signaled one");
	cr_assert_eq(wc[0].wr_id, 99);
	cr_assert_arr_eq(p.b.buf, p.a.buf, 10 * 4096);
	/* the slots of the ten are free again: 64 more fit */
	for (i = 0; i < 63; i++)
		cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 0, 0, 8,
				     (uintptr_t)p.b.buf, p.b.mr->rkey, 0), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 8,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_poll(p.a.cq, wc, 1, 5000), 1);
}

Test(rc, fence_after_read)
{
	memcpy(p.b.buf, "old!", 4);
	memcpy(p.a.buf + 64, "new!", 4);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_READ, 1, 0, 4,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 2, 64, 4,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED | IBV_SEND_FENCE), 0);
	cr_assert_eq(expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_RDMA_READ,
				4).wr_id, 1);
	cr_assert_eq(expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
				0).wr_id, 2);
	cr_assert_arr_eq(p.a.buf, "old!", 4, "the READ saw the old data");
	cr_assert_arr_eq(p.b.buf, "new!", 4);
}

Test(rc, write_to_mr_without_remote_write)
{
	struct ibv_mr *ro = ibv_reg_mr(p.b.pd, p.b.buf + BIG, 4096,
				       IBV_ACCESS_REMOTE_READ);

	memset(p.b.buf + BIG, 0x5a, 4096);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 64,
			     (uintptr_t)p.b.buf + BIG, ro->rkey, 0), 0);
	expect_one(p.a.cq, IBV_WC_REM_ACCESS_ERR, 0, 0);
	cr_assert_eq(p.b.buf[BIG], 0x5a, "target untouched");
}

Test(rc, write_to_qp_without_remote_write)
{
	struct rc_opts o = opts;

	o.access = IBV_ACCESS_REMOTE_READ;
	rc_pair_connect(&p, &o);
	memset(p.b.buf, 0x5a, 64);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 64,
			     (uintptr_t)p.b.buf, p.b.mr->rkey, 0), 0);
	expect_one(p.a.cq, IBV_WC_REM_INV_REQ_ERR, 0, 0);
	cr_assert_eq(p.b.buf[0], 0x5a, "target untouched");
}

Test(rc, sqd_drains_and_raises_sq_drained)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD,
		.en_sqd_async_notify = 1 };
	struct ibv_async_event ev;
	struct ibv_wc wc[9];
	int i, n;

	for (i = 0; i < 8; i++)
		cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, (uint64_t)i, 0,
				     65536, (uintptr_t)p.b.buf, p.b.mr->rkey,
				     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(ibv_modify_qp(p.a.qp, &a, IBV_QP_STATE |
				   IBV_QP_EN_SQD_ASYNC_NOTIFY), 0);
	cr_assert_eq(ibv_get_async_event(p.a.ctx, &ev), 0);
	cr_assert_eq(ev.event_type, IBV_EVENT_SQ_DRAINED);
	cr_assert_eq(ev.element.qp, p.a.qp);
	ibv_ack_async_event(&ev);
	/* WRs already started have completed; the others wait for RTS */
	n = ibv_poll_cq(p.a.cq, 8, wc);
	cr_assert(n >= 0 && n <= 8);
	a.qp_state = IBV_QPS_RTS;
	cr_assert_eq(ibv_modify_qp(p.a.qp, &a, IBV_QP_STATE), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 9, 0, 8,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_poll(p.a.cq, wc + n, 9 - n, 5000), 9 - n);
	for (i = 0; i < 9; i++) {
		cr_assert_eq(wc[i].status, IBV_WC_SUCCESS);
		cr_assert_eq(wc[i].wr_id, i < 8 ? (uint64_t)i : 9, "in order");
	}
}

/* A QP on another address of rxd0 aims at b's QP: dropped and counted. */
Test(rc, packets_from_a_stranger_are_dropped)
{
	struct rc_opts o = opts;
	struct ibv_qp *intruder;
	struct rxd_port_counters c;

	o.retry_cnt = 1;
	o.timeout = 8;
	intruder = rc_create_qp(&p.a, &o);
	rc_connect_qp(intruder, p.b.qp->qp_num, 2, 2, &o);
	memset(p.b.buf, 0x5a, 64);
	{
		struct ibv_sge sge = { (uintptr_t)p.a.buf, 64, p.a.mr->lkey };
		struct ibv_send_wr w = { .wr_id = 7, .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_RDMA_WRITE }, *bad;

		w.wr.rdma.remote_addr = (uintptr_t)p.b.buf;
		w.wr.rdma.rkey = p.b.mr->rkey;
		cr_assert_eq(ibv_post_send(intruder, &w, &bad), 0);
	}
	expect_one(p.a.cq, IBV_WC_RETRY_EXC_ERR, 0, 0);
	cr_assert_eq(p.b.buf[0], 0x5a, "the stranger wrote nothing");
	cr_assert_eq(rxd_port_counters(1, &c), 0);
	cr_assert_geq(c.roce_bad_peer, 2, "each attempt dropped and counted");
	pattern(p.a.buf, 64, 8);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 8, 0, 64,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0);
	cr_assert_arr_eq(p.b.buf, p.a.buf, 64, "the connection carries on");
	ibv_destroy_qp(intruder);
}

/* RoCE frames of a capture that tshark's display filter selects. */
static int
tshark_count(const char *path, const char *filter)
{
	char cmd[512], line[512];
	int frames = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "tshark -r %s -Y 'infiniband && %s' "
		 "2>/dev/null", path, filter);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		frames++;
	pclose(f);
	return frames;
}

/* Every opcode on the wire, captured, must pass roce-check. */
Test(rc, capture_passes_roce_check)
{
	char path[] = "/tmp/rxd-rc-XXXXXX", cmd[512];
	const char *checker = getenv("RXD_ROCE_CHECK");
	struct ibv_sge sge = { (uintptr_t)p.a.buf, 8, p.a.mr->lkey };
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.send_flags = IBV_SEND_SIGNALED };
	int fd = mkstemp(path), frames;

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(rxd_capture_start(0, path), 0, "%s", rxd_last_error());
	cr_assert_eq(rc_recv(&p.b, 1, 0, 8192), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_SEND, 1, 0, 3000, 0, 0,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 2, 0, 2500,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_READ, 3, 0, 3500,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	w.wr.atomic.remote_addr = (uintptr_t)p.b.buf + 4096;
	w.wr.atomic.rkey = p.b.mr->rkey;
	cr_assert_eq(post_wr(&p.a, &w), 0);
	cr_assert_eq(rc_recv(&p.b, 2, 0, 8192), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_SEND, 5, 0, 0, 0, 0,
			     IBV_SEND_SIGNALED), 0);
	{
		struct ibv_wc wc[5];

		cr_assert_eq(rc_poll(p.a.cq, wc, 5, 5000), 5);
	}
	cr_assert_eq(rxd_capture_stop(0), 0);
	{
		/* SEND 3, WRITE 3, READ 1+4, CAS 1+1, SEND 1; and the ACKs of
		 * the three SEND/WRITE messages, which may be coalesced */
		int data = tshark_count(path, "infiniband.bth.opcode != 17");
		int acks = tshark_count(path, "infiniband.bth.opcode == 17");

		cr_assert_eq(data, 14, "tshark decodes %d RoCE requests and "
			     "responses", data);
		cr_assert(acks >= 1 && acks <= 3, "%d ACKs", acks);
		frames = data + acks;
	}
	if (checker == NULL || access(checker, X_OK) != 0) {
		unlink(path);
		cr_skip_test("SKIP: roce-check not found (RXD_ROCE_CHECK, "
			     "../shared/tools/roce-check); capture not checked");
	}
	snprintf(cmd, sizeof(cmd), "%s --summary --min-packets %d %s",
		 checker, frames, path);
	cr_assert_eq(system(cmd), 0, "roce-check refuses %s", path);
	unlink(path);
}

/* b's QP takes its receives from an SRQ; the armed limit fires once. */
Test(rc, srq_receives_and_limit_event)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = { .send_cq = p.b.cq, .recv_cq = p.b.cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 } };
	struct ibv_srq_attr limit = { .srq_limit = 4 };
	struct ibv_async_event ev;
	struct ibv_srq *srq = ibv_create_srq(p.b.pd, &sa);
	struct ibv_qp *bq;
	int i;

	cr_assert_not_null(srq);
	qa.srq = srq;
	bq = ibv_create_qp(p.b.pd, &qa);
	cr_assert_not_null(bq);
	ibv_destroy_qp(p.a.qp);
	p.a.qp = rc_create_qp(&p.a, &opts);
	rc_connect_qp(p.a.qp, bq->qp_num, 2, 1, &opts);
	rc_connect_qp(bq, p.a.qp->qp_num, 1, 1, &opts);
	for (i = 0; i < 6; i++) {
		struct ibv_sge sge = { (uintptr_t)p.b.buf + (size_t)i * 4096,
			4096, p.b.mr->lkey };
		struct ibv_recv_wr r = { .wr_id = (uint64_t)i, .sg_list = &sge,
			.num_sge = 1 }, *bad;

		cr_assert_eq(ibv_post_srq_recv(srq, &r, &bad), 0);
	}
	cr_assert_eq(ibv_modify_srq(srq, &limit, IBV_SRQ_LIMIT), 0);
	for (i = 0; i < 3; i++) {
		pattern(p.a.buf + (size_t)i * 4096, 1000, (uint32_t)i);
		cr_assert_eq(rc_post(&p.a, IBV_WR_SEND, (uint64_t)i,
				     (size_t)i * 4096, 1000, 0, 0,
				     IBV_SEND_SIGNALED), 0);
		expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_SEND, 0);
		cr_assert_eq(expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_RECV,
					1000).wr_id, (uint64_t)i);
		cr_assert_arr_eq(p.b.buf + (size_t)i * 4096,
				 p.a.buf + (size_t)i * 4096, 1000);
	}
	cr_assert_eq(ibv_get_async_event(p.b.ctx, &ev), 0);
	cr_assert_eq(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED);
	cr_assert_eq(ev.element.srq, srq);
	ibv_ack_async_event(&ev);
	cr_assert_eq(ibv_query_srq(srq, &limit), 0);
	cr_assert_eq(limit.srq_limit, 0, "the limit disarms when it fires");
	cr_assert_eq(ibv_destroy_srq(srq), EBUSY, "a QP still uses it");
	{
		struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };

		cr_assert_eq(ibv_modify_qp(bq, &err, IBV_QP_STATE), 0);
		cr_assert_eq(ibv_get_async_event(p.b.ctx, &ev), 0);
		cr_assert_eq(ev.event_type, IBV_EVENT_QP_LAST_WQE_REACHED);
		cr_assert_eq(ev.element.qp, bq);
		ibv_ack_async_event(&ev);
	}
	cr_assert_eq(ibv_destroy_qp(bq), 0);
	cr_assert_eq(ibv_destroy_srq(srq), 0);
}

/* A bad lkey fails its own WR (LOC_PROT_ERR), not an earlier one. */
Test(rc, bad_lkey_fails_its_own_wr)
{
	struct ibv_sge sge = { (uintptr_t)p.a.buf, 64, p.a.mr->lkey ^ 0x55 };
	struct ibv_send_wr w = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc[2];

	w.wr.rdma.remote_addr = (uintptr_t)p.b.buf;
	w.wr.rdma.rkey = p.b.mr->rkey;
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 64,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(post_wr(&p.a, &w), 0);
	cr_assert_eq(rc_poll(p.a.cq, wc, 2, 5000), 2);
	cr_assert_eq(wc[0].wr_id, 1);
	cr_assert(wc[0].status == IBV_WC_SUCCESS ||
		  wc[0].status == IBV_WC_WR_FLUSH_ERR);
	cr_assert_eq(wc[1].wr_id, 2);
	cr_assert_eq(wc[1].status, IBV_WC_LOC_PROT_ERR);
}

/*
 * A list of 64 one-packet WRITEs, each asking for an ACK, reaches the
 * responder in one engine pass: one coalesced ACK answers them.
 */
Test(rc, acks_coalesce)
{
	struct rxd_qp_stats st;

	post_write_list(64, 8, false);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0);
	cr_assert_arr_eq(p.b.buf, p.a.buf, 512);
	cr_assert_eq(rxd_qp_stats(1, p.b.qp->qp_num, &st), 0);
	cr_assert_gt(st.acks_coalesced, 0, "64 AckReqs, %lu ACKs",
		     (unsigned long)st.acks_tx);
	/* a busy machine can delay the ACK past the retransmit timeout:
	 * each resent packet the responder ACKs again as a duplicate */
	cr_assert_eq(st.acks_tx + st.acks_coalesced, 64 + st.duplicates,
		     "%lu ACKs + %lu coalesced, %lu duplicates",
		     (unsigned long)st.acks_tx,
		     (unsigned long)st.acks_coalesced,
		     (unsigned long)st.duplicates);
}

/*
 * A responder that destroys or resets its QP as soon as it sees the last
 * receive completion still sends the ACK it owes.  The SEND and 63 WRITE
 * packets after it arrive in one receive burst: the receive completion is
 * visible while the engine still works through the burst, so the destroy
 * or modify lands before the pass's coalesced ACK would have gone out.
 * (A lost ACK leaves the requester retrying a QP that is gone or reset:
 * retry exceeded.)  The SEND must succeed; the WRITE's later packets may
 * come after the QP is gone and end, correctly, in retry exceeded.
 */
static void
owed_ack_is_sent(bool destroy)
{
	struct ibv_sge sge[2] = {
		{ (uintptr_t)p.a.buf, 8, p.a.mr->lkey },
		{ (uintptr_t)p.a.buf + 4096, 63 * 1024, p.a.mr->lkey },
	};
	struct ibv_send_wr w[2] = {
		{ .wr_id = 1, .sg_list = &sge[0], .num_sge = 1,
		  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		  .next = &w[1] },
		{ .wr_id = 2, .sg_list = &sge[1], .num_sge = 1,
		  .opcode = IBV_WR_RDMA_WRITE,
		  .send_flags = IBV_SEND_SIGNALED },
	}, *bad;
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc[2];

	w[1].wr.rdma.remote_addr = (uintptr_t)p.b.buf + 4096;
	w[1].wr.rdma.rkey = p.b.mr->rkey;
	cr_assert_eq(rc_recv(&p.b, 9, 0, 64), 0);
	cr_assert_eq(ibv_post_send(p.a.qp, w, &bad), 0);
	cr_assert_eq(rc_poll(p.b.cq, wc, 1, 10000), 1);
	cr_assert_eq(wc[0].status, IBV_WC_SUCCESS);
	if (destroy) {
		cr_assert_eq(ibv_destroy_qp(p.b.qp), 0);
		p.b.qp = NULL;
	} else {
		cr_assert_eq(ibv_modify_qp(p.b.qp, &reset, IBV_QP_STATE), 0);
	}
	cr_assert_eq(rc_poll(p.a.cq, wc, 2, 10000), 2);
	cr_assert_eq(wc[0].status, IBV_WC_SUCCESS, "SEND: %s",
		     ibv_wc_status_str(wc[0].status));
	cr_assert(wc[1].status == IBV_WC_SUCCESS ||
		  wc[1].status == IBV_WC_RETRY_EXC_ERR, "WRITE: %s",
		  ibv_wc_status_str(wc[1].status));
}

Test(rc, ack_owed_at_destroy_is_sent)
{
	owed_ack_is_sent(true);
}

Test(rc, ack_owed_at_reset_is_sent)
{
	owed_ack_is_sent(false);
}

/* A path MTU the link cannot carry loses frames; it must not hang. */
Test(rc, path_mtu_above_the_link_ends_in_retry_exceeded)
{
	struct rc_opts o = opts;
	struct rxd_qp_stats st;

	o.mtu = IBV_MTU_4096;
	o.timeout = 8;
	o.retry_cnt = 2;
	rc_pair_connect(&p, &o);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 8192,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	expect_one(p.a.cq, IBV_WC_RETRY_EXC_ERR, 0, 0);
	cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &st), 0);
	cr_assert_gt(st.too_big, 0, "counted as too big for the port");
}
