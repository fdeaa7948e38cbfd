/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC between two rxd ports in one process (net_ring pair): every opcode at
 * the sizes around the path MTU, byte-exact; remote errors; RNR.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "rc_pair.h"

#define BUF (256 * 1024)

static struct rc_pair p;
static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = BUF, .wr = 64,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

static void
start(void)
{
	rc_pair_start(&p, &opts);
}

static void
stop(void)
{
	rc_pair_stop(&p);
}

TestSuite(rc, .init = start, .fini = stop, .timeout = 120);

static const uint32_t sizes[] = { 0, 1, 1023, 1024, 1025, 65536 + 3 };

static void
pattern(uint8_t *b, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static void
expect_one(struct ibv_cq *cq, enum ibv_wc_status st, enum ibv_wc_opcode op,
	   uint32_t byte_len)
{
	struct ibv_wc wc;

	cr_assert_eq(rc_poll(cq, &wc, 1, 5000), 1, "no completion");
	cr_assert_eq(wc.status, st, "status %s", ibv_wc_status_str(wc.status));
	if (st == IBV_WC_SUCCESS) {
		cr_assert_eq(wc.opcode, op);
		cr_assert_eq(wc.byte_len, byte_len);
	}
}

Test(rc, send_sizes)
{
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t n = sizes[i];

		pattern(p.a.buf, n, i);
		memset(p.b.buf, 0xee, BUF);
		cr_assert_eq(rc_recv(&p.b, i, 0, BUF), 0);
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
		memset(p.b.buf, 0, BUF);
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
		memset(p.a.buf, 0, BUF);
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
