/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ATOMIC WRITE and FLUSH (IBTA 1.5) between two rxd ports in one process
 * (net_ring pair): through ibv_post_send and the ibv_wr_* API, the bytes
 * land once and exactly; a misaligned target, a read-only MR, a range
 * beyond the MR and missing FLUSH rights fail with the remote error
 * Soft-RoCE gives, target untouched; the frames pass roce-check.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"
#include "rxd/rxd_flush.h"

#define BUF 65536

static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = BUF, .wr = 64,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC | RXD_ACCESS_FLUSH_GLOBAL |
		RXD_ACCESS_FLUSH_PERSISTENT,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

RC_PAIR_SUITE(placement, opts, 120);

static const uint8_t word[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
				 0x88 };

static void
expect_one(struct ibv_cq *cq, enum ibv_wc_status st, unsigned int op,
	   uint32_t byte_len)
{
	struct ibv_wc wc;

	cr_assert_eq(rc_poll(cq, &wc, 1, 10000), 1, "no completion");
	cr_assert_eq(wc.status, st, "status %s", ibv_wc_status_str(wc.status));
	if (st == IBV_WC_SUCCESS) {
		cr_assert_eq(wc.opcode, op, "opcode %d", wc.opcode);
		cr_assert_eq(wc.byte_len, byte_len);
	}
}

/* An ATOMIC WRITE of word through ibv_post_send, from a's buffer. */
static int
post_atomic_write(uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)p.a.buf, len, p.a.mr->lkey };
	struct ibv_send_wr w = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_WRITE,
		.send_flags = IBV_SEND_SIGNALED }, *bad;

	memcpy(p.a.buf, word, sizeof(word));
	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	return ibv_post_send(p.a.qp, &w, &bad);
}

/* a's QP for the ibv_wr_* API with send_ops, connected to a new b. */
static struct ibv_qp_ex *
connect_qp_ex(uint64_t send_ops)
{
	return rc_pair_connect_ex(&p, &opts, send_ops);
}

/* An MR over all of b's buffer that FLUSH for global visibility may use. */
static struct ibv_mr *
flush_mr(void)
{
	struct ibv_mr *mr = ibv_reg_mr(p.b.pd, p.b.buf, BUF,
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE |
				       RXD_ACCESS_FLUSH_GLOBAL);

	cr_assert_not_null(mr, "reg_mr: %s", strerror(errno));
	return mr;
}

static int
post_flush(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr, size_t len,
	   uint8_t type, uint8_t level)
{
	ibv_wr_start(x);
	x->wr_id = 9;
	x->wr_flags = IBV_SEND_SIGNALED;
	rxd_wr_flush(x, rkey, raddr, len, type, level);
	return ibv_wr_complete(x);
}

Test(placement, atomic_write_lands_8_bytes_once)
{
	struct rxd_qp_stats s;

	memset(p.b.buf, 0x5a, 64);
	cr_assert_eq(post_atomic_write((uintptr_t)p.b.buf + 16,
				       p.b.mr->rkey, 8), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 8);
	cr_assert_arr_eq(p.b.buf + 16, word, 8, "byte for byte");
	cr_assert_eq(p.b.buf[15], 0x5a, "nothing before");
	cr_assert_eq(p.b.buf[24], 0x5a, "nothing after");
	cr_assert_eq(rxd_qp_stats(1, p.b.qp->qp_num, &s), 0);
	cr_assert_eq(s.duplicates, 0);
}

Test(placement, atomic_write_of_4_bytes_is_refused_at_post)
{
	cr_assert_eq(post_atomic_write((uintptr_t)p.b.buf, p.b.mr->rkey, 4),
		     EINVAL);
}

Test(placement, misaligned_atomic_write_is_invalid_request)
{
	memset(p.b.buf, 0x5a, 32);
	cr_assert_eq(post_atomic_write((uintptr_t)p.b.buf + 4, p.b.mr->rkey,
				       8), 0);
	expect_one(p.a.cq, IBV_WC_REM_INV_REQ_ERR, 0, 0);
	cr_assert_eq(p.b.buf[4], 0x5a, "target untouched");
	cr_assert_eq(p.b.buf[11], 0x5a);
}

Test(placement, atomic_write_to_read_only_mr_is_remote_access_error)
{
	struct ibv_mr *ro = ibv_reg_mr(p.b.pd, p.b.buf + 4096, 4096,
				       IBV_ACCESS_REMOTE_READ);

	cr_assert_not_null(ro);
	memset(p.b.buf + 4096, 0x5a, 16);
	cr_assert_eq(post_atomic_write((uintptr_t)p.b.buf + 4096, ro->rkey,
				       8), 0);
	expect_one(p.a.cq, IBV_WC_REM_ACCESS_ERR, 0, 0);
	cr_assert_eq(p.b.buf[4096], 0x5a, "target untouched");
	ibv_dereg_mr(ro);
}

Test(placement, wr_atomic_write_and_flush_through_qp_ex)
{
	struct ibv_qp_ex *x = connect_qp_ex(IBV_QP_EX_WITH_ATOMIC_WRITE |
					    RXD_QP_EX_WITH_FLUSH);
	struct ibv_mr *mr = flush_mr();

	memset(p.b.buf, 0, 64);
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(x, mr->rkey, (uintptr_t)p.b.buf + 8, word);
	x->wr_id = 2;
	rxd_wr_flush(x, mr->rkey, (uintptr_t)p.b.buf, 64, RXD_FLUSH_GLOBAL,
		     RXD_FLUSH_RANGE);
	cr_assert_eq(ibv_wr_complete(x), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, 8);
	expect_one(p.a.cq, IBV_WC_SUCCESS, RXD_WC_FLUSH, 0);
	cr_assert_arr_eq(p.b.buf + 8, word, 8);
	ibv_dereg_mr(mr);
}

Test(placement, flush_of_the_whole_mr_ignores_the_range)
{
	struct ibv_qp_ex *x = connect_qp_ex(RXD_QP_EX_WITH_FLUSH);
	struct ibv_mr *mr = flush_mr();

	cr_assert_eq(post_flush(x, mr->rkey, 0, 1ull << 31,
				RXD_FLUSH_GLOBAL, RXD_FLUSH_MR), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, RXD_WC_FLUSH, 0);
	ibv_dereg_mr(mr);
}

Test(placement, flush_beyond_the_mr_is_remote_access_error)
{
	struct ibv_qp_ex *x = connect_qp_ex(RXD_QP_EX_WITH_FLUSH);
	struct ibv_mr *mr = flush_mr();

	cr_assert_eq(post_flush(x, mr->rkey, (uintptr_t)p.b.buf + BUF - 8, 8,
				RXD_FLUSH_GLOBAL, RXD_FLUSH_RANGE), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, RXD_WC_FLUSH, 0);
	cr_assert_eq(post_flush(x, mr->rkey, (uintptr_t)p.b.buf + BUF - 8, 9,
				RXD_FLUSH_GLOBAL, RXD_FLUSH_RANGE), 0);
	expect_one(p.a.cq, IBV_WC_REM_ACCESS_ERR, 0, 0);
	ibv_dereg_mr(mr);
}

Test(placement, flush_without_the_mr_right_is_remote_access_error)
{
	struct ibv_qp_ex *x = connect_qp_ex(RXD_QP_EX_WITH_FLUSH);
	struct ibv_mr *wo = ibv_reg_mr(p.b.pd, p.b.buf, 4096,
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE);

	cr_assert_not_null(wo);
	cr_assert_eq(post_flush(x, wo->rkey, (uintptr_t)p.b.buf, 64,
				RXD_FLUSH_GLOBAL, RXD_FLUSH_RANGE), 0);
	expect_one(p.a.cq, IBV_WC_REM_ACCESS_ERR, 0, 0);
	ibv_dereg_mr(wo);
}

/* rxd has no persistent memory: no MR gets the right, the FLUSH fails. */
Test(placement, flush_for_persistence_is_remote_access_error)
{
	struct ibv_qp_ex *x = connect_qp_ex(RXD_QP_EX_WITH_FLUSH);

	errno = 0;
	cr_assert_null(ibv_reg_mr(p.b.pd, p.b.buf, 4096,
				  IBV_ACCESS_LOCAL_WRITE |
				  RXD_ACCESS_FLUSH_PERSISTENT));
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(post_flush(x, p.b.mr->rkey, (uintptr_t)p.b.buf, 64,
				RXD_FLUSH_PERSISTENT, RXD_FLUSH_RANGE), 0);
	expect_one(p.a.cq, IBV_WC_REM_ACCESS_ERR, 0, 0);
}

Test(placement, bad_flush_arguments_fail_the_batch)
{
	struct ibv_qp_ex *x = connect_qp_ex(RXD_QP_EX_WITH_FLUSH);

	cr_assert_eq(post_flush(x, p.b.mr->rkey, 0, 64, 0, RXD_FLUSH_RANGE),
		     EINVAL, "no placement type");
	cr_assert_eq(post_flush(x, p.b.mr->rkey, 0, 64, RXD_FLUSH_GLOBAL, 2),
		     EINVAL, "reserved selectivity level");
}

Test(placement, device_reports_atomic_write_and_flush_global)
{
	struct ibv_device_attr_ex a;

	cr_assert_eq(ibv_query_device_ex(p.a.ctx, NULL, &a), 0);
	cr_assert(a.device_cap_flags_ex & RXD_DEVICE_ATOMIC_WRITE);
	cr_assert(a.device_cap_flags_ex & RXD_DEVICE_FLUSH_GLOBAL);
	cr_assert_not(a.device_cap_flags_ex & RXD_DEVICE_FLUSH_PERSISTENT);
}

/* The frames of both opcodes and their answers pass roce-check. */
Test(placement, capture_passes_roce_check)
{
	char path[] = "/tmp/rxd-placement-XXXXXX", cmd[512];
	const char *checker = getenv("RXD_ROCE_CHECK");
	struct ibv_qp_ex *x = connect_qp_ex(IBV_QP_EX_WITH_ATOMIC_WRITE |
					    RXD_QP_EX_WITH_FLUSH);
	struct ibv_mr *mr = flush_mr();
	struct ibv_wc wc[2];
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(rxd_capture_start(0, path), 0, "%s", rxd_last_error());
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(x, mr->rkey, (uintptr_t)p.b.buf, word);
	rxd_wr_flush(x, mr->rkey, (uintptr_t)p.b.buf, 8, RXD_FLUSH_GLOBAL,
		     RXD_FLUSH_RANGE);
	cr_assert_eq(ibv_wr_complete(x), 0);
	cr_assert_eq(rc_poll(p.a.cq, wc, 2, 5000), 2);
	cr_assert_eq(wc[0].status, IBV_WC_SUCCESS);
	cr_assert_eq(wc[1].status, IBV_WC_SUCCESS);
	cr_assert_eq(rxd_capture_stop(0), 0);
	ibv_dereg_mr(mr);
	if (checker == NULL || access(checker, X_OK) != 0) {
		unlink(path);
		cr_skip_test("SKIP: roce-check not found (RXD_ROCE_CHECK, "
			     "../shared/tools/roce-check); capture not checked");
	}
	/* ATOMIC WRITE, FLUSH and their two empty READ RESPONSEs */
	snprintf(cmd, sizeof(cmd), "%s --strict --summary --min-packets 4 %s",
		 checker, path);
	cr_assert_eq(system(cmd), 0, "roce-check refuses %s", path);
	unlink(path);
}
