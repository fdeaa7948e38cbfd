/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory windows over the RC pair: b binds windows on its buffer, a writes
 * through their rkeys.  A type 2 window bound by IBV_WR_BIND_MW admits a
 * remote WRITE until a's SEND with Invalidate (or b's LOCAL_INV) unbinds
 * it; a type 1 window bound and unbound by ibv_bind_mw likewise; binds
 * outside the MR or with rights the MR lacks are refused; a WRITE through
 * a dead rkey fails IBV_WC_REM_ACCESS_ERR and leaves the target untouched.
 */
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>

#include "rc_pair.h"

#define WIN_OFF 4096u
#define WIN_LEN 4096u

static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = 16384, .wr = 16,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

RC_PAIR_SUITE(rc_mw, opts, 120);

/* One completion on cq, of this status and opcode. */
static void
expect_one(struct ibv_cq *cq, enum ibv_wc_status st, enum ibv_wc_opcode op)
{
	struct ibv_wc wc;

	cr_assert_eq(rc_poll(cq, &wc, 1, 10000), 1, "no completion");
	cr_assert_eq(wc.status, st, "status %d, want %d", wc.status, st);
	if (st == IBV_WC_SUCCESS)
		cr_assert_eq(wc.opcode, op, "opcode %d, want %d", wc.opcode,
			     op);
}

/* A second MR over b's buffer that windows may be bound to. */
static struct ibv_mr *
bindable_mr(unsigned int access)
{
	struct ibv_mr *mr = ibv_reg_mr(p.b.pd, p.b.buf, p.b.len, (int)access);

	cr_assert_not_null(mr);
	return mr;
}

static int
post_bind(struct ibv_mw *mw, uint32_t rkey, struct ibv_mr *mr, uint64_t addr,
	  uint64_t len, unsigned int rights)
{
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 50;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = rights;
	return ibv_post_send(p.b.qp, &wr, &bad);
}

/* A type 2 window on [WIN_OFF, +WIN_LEN) of b's buffer with remote write. */
static struct ibv_mw *
bound_type2(struct ibv_mr *mr)
{
	struct ibv_mw *mw = ibv_alloc_mw(p.b.pd, IBV_MW_TYPE_2);
	uint32_t rkey;

	cr_assert_not_null(mw);
	rkey = ibv_inc_rkey(mw->rkey);
	cr_assert_eq(post_bind(mw, rkey, mr, (uintptr_t)p.b.buf + WIN_OFF,
			       WIN_LEN, IBV_ACCESS_REMOTE_WRITE), 0);
	expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	cr_assert_eq(mw->rkey, rkey);
	return mw;
}

/* a writes 64 bytes of fill at WIN_OFF + 64 of b's buffer through rkey. */
static void
write_through(uint32_t rkey, uint8_t fill, enum ibv_wc_status want)
{
	memset(p.a.buf, fill, 64);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 64,
			     (uintptr_t)p.b.buf + WIN_OFF + 64, rkey,
			     IBV_SEND_SIGNALED), 0);
	expect_one(p.a.cq, want, IBV_WC_RDMA_WRITE);
}

static void
assert_target(uint8_t fill)
{
	uint8_t want[64];

	memset(want, fill, sizeof(want));
	cr_assert_arr_eq(p.b.buf + WIN_OFF + 64, want, sizeof(want));
}

Test(rc_mw, type2_write_then_send_with_invalidate)
{
	struct ibv_mr *mr = bindable_mr(IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_MW_BIND);
	struct ibv_mw *mw = bound_type2(mr);
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge = { (uintptr_t)p.a.buf, 8, p.a.mr->lkey };
	struct ibv_wc wc;

	write_through(mw->rkey, 0x5a, IBV_WC_SUCCESS);
	assert_target(0x5a);
	cr_assert_eq(ibv_dereg_mr(mr), EBUSY, "MR with a bound window");

	cr_assert_eq(rc_recv(&p.b, 7, 0, 64), 0);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.invalidate_rkey = mw->rkey;
	cr_assert_eq(ibv_post_send(p.a.qp, &wr, &bad), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS, IBV_WC_SEND);
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 10000), 1);
	cr_assert_eq(wc.status, IBV_WC_SUCCESS);
	cr_assert(wc.wc_flags & IBV_WC_WITH_INV);
	cr_assert_eq(wc.invalidated_rkey, mw->rkey);

	write_through(mw->rkey, 0x77, IBV_WC_REM_ACCESS_ERR);
	assert_target(0x5a);
	cr_assert_eq(ibv_dealloc_mw(mw), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
}

Test(rc_mw, type2_local_invalidate)
{
	struct ibv_mr *mr = bindable_mr(IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_MW_BIND);
	struct ibv_mw *mw = bound_type2(mr);
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = mw->rkey;
	cr_assert_eq(ibv_post_send(p.b.qp, &wr, &bad), 0);
	expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_LOCAL_INV);
	cr_assert_eq(ibv_post_send(p.b.qp, &wr, &bad), EINVAL,
		     "invalidated twice");
	write_through(mw->rkey, 0x33, IBV_WC_REM_ACCESS_ERR);
	assert_target(0);
	cr_assert_eq(ibv_dealloc_mw(mw), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
}

Test(rc_mw, bad_binds_refused)
{
	struct ibv_mr *plain = bindable_mr(IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *ro = bindable_mr(IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_MW_BIND);
	struct ibv_mr *mr = bindable_mr(IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_MW_BIND);
	struct ibv_mw *mw = ibv_alloc_mw(p.b.pd, IBV_MW_TYPE_2);
	uintptr_t base = (uintptr_t)p.b.buf;
	uint32_t rkey;

	errno = 0;
	cr_assert_null(ibv_alloc_mw(p.b.pd, (enum ibv_mw_type)3));
	cr_assert_eq(errno, EINVAL);
	cr_assert_not_null(mw);
	rkey = ibv_inc_rkey(mw->rkey);
	cr_assert_eq(post_bind(mw, rkey, mr, base + p.b.len - 100, 200,
			       IBV_ACCESS_REMOTE_WRITE), EINVAL, "beyond the MR");
	cr_assert_eq(post_bind(mw, rkey, mr, base - 4096, 4096,
			       IBV_ACCESS_REMOTE_WRITE), EINVAL, "before the MR");
	cr_assert_eq(post_bind(mw, rkey, plain, base, 4096,
			       IBV_ACCESS_REMOTE_READ), EINVAL, "no MW_BIND");
	cr_assert_eq(post_bind(mw, rkey, ro, base, 4096,
			       IBV_ACCESS_REMOTE_WRITE), EINVAL,
		     "remote write on an MR without local write");
	cr_assert_eq(post_bind(mw, rkey ^ 0x100, mr, base, 4096,
			       IBV_ACCESS_REMOTE_WRITE), EINVAL,
		     "another key index");
	cr_assert_eq(post_bind(mw, rkey, mr, base, 0,
			       IBV_ACCESS_REMOTE_WRITE), EINVAL,
		     "type 2 of zero length");
	/* no bind was applied: the window's key is no remote key */
	write_through(rkey, 0x44, IBV_WC_REM_ACCESS_ERR);
	assert_target(0);
	cr_assert_eq(ibv_dealloc_mw(mw), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_dereg_mr(ro), 0);
	cr_assert_eq(ibv_dereg_mr(plain), 0);
}

static int
bind_type1(struct ibv_mw *mw, struct ibv_mr *mr, uint64_t len)
{
	struct ibv_mw_bind b = {
		.wr_id = 60, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = (uintptr_t)p.b.buf + WIN_OFF,
			       .length = len,
			       .mw_access_flags = len ? IBV_ACCESS_REMOTE_WRITE :
						    0 },
	};

	return ibv_bind_mw(p.b.qp, mw, &b);
}

Test(rc_mw, type1_bind_and_unbind)
{
	struct ibv_mr *mr = bindable_mr(IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_MW_BIND);
	struct ibv_mw *mw = ibv_alloc_mw(p.b.pd, IBV_MW_TYPE_1);
	uint32_t before, bound;

	cr_assert_not_null(mw);
	before = mw->rkey;
	cr_assert_eq(bind_type1(mw, mr, WIN_LEN), 0);
	expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	bound = mw->rkey;
	cr_assert_eq(bound, ibv_inc_rkey(before), "the key byte moves on");
	write_through(bound, 0x5a, IBV_WC_SUCCESS);
	assert_target(0x5a);

	cr_assert_eq(bind_type1(mw, mr, 0), 0, "unbind");
	expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	cr_assert_eq(ibv_dereg_mr(mr), 0, "no window bound any more");
	write_through(bound, 0x66, IBV_WC_REM_ACCESS_ERR);
	assert_target(0x5a);
	cr_assert_eq(ibv_dealloc_mw(mw), 0);
}

Test(rc_mw, device_reports_windows)
{
	struct ibv_device_attr a;
	int want = IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B;

	cr_assert_eq(ibv_query_device(p.b.ctx, &a), 0);
	cr_assert_eq((int)a.device_cap_flags & want, want);
	cr_assert_gt(a.max_mw, 0);
}

/* More rebinds than bindings kept before a sync frees them (ASan sees a
 * freed binding used); only the last key works. */
Test(rc_mw, type1_many_rebinds)
{
	struct ibv_mr *mr = bindable_mr(IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_MW_BIND);
	struct ibv_mw *mw = ibv_alloc_mw(p.b.pd, IBV_MW_TYPE_1);
	uint32_t first = 0;
	int i;

	cr_assert_not_null(mw);
	for (i = 0; i < 100; i++) {
		cr_assert_eq(bind_type1(mw, mr, WIN_LEN), 0);
		expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
		if (i == 0)
			first = mw->rkey;
	}
	write_through(mw->rkey, 0x21, IBV_WC_SUCCESS);
	assert_target(0x21);
	write_through(first, 0x22, IBV_WC_REM_ACCESS_ERR);
	assert_target(0x21);
	cr_assert_eq(ibv_dealloc_mw(mw), 0, "a bound window");
	cr_assert_eq(ibv_dereg_mr(mr), 0);
}

/* Destroying b's QP unbinds its type 2 window: the new QP (often at the
 * old one's address) gets no access through the old rkey, and the window
 * is free to bind again. */
Test(rc_mw, type2_dies_with_its_qp)
{
	struct ibv_mr *mr = bindable_mr(IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_MW_BIND);
	struct ibv_mw *mw = bound_type2(mr);
	uint32_t old = mw->rkey, rkey;

	write_through(old, 0x5a, IBV_WC_SUCCESS);
	rc_pair_connect(&p, &opts);
	write_through(old, 0x66, IBV_WC_REM_ACCESS_ERR);
	assert_target(0x5a);

	rc_pair_connect(&p, &opts);
	rkey = ibv_inc_rkey(old);
	cr_assert_eq(post_bind(mw, rkey, mr, (uintptr_t)p.b.buf + WIN_OFF,
			       WIN_LEN, IBV_ACCESS_REMOTE_WRITE), 0,
		     "the window is free again");
	expect_one(p.b.cq, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	write_through(rkey, 0x77, IBV_WC_SUCCESS);
	assert_target(0x77);
	cr_assert_eq(ibv_dealloc_mw(mw), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
}
