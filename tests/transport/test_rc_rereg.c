/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_rereg_mr and the receive side's PD check over the RC pair: a writes
 * into b's memory while b re-registers it.  Return codes as
 * ibv_rereg_mr(3) (the MR unchanged after a failure); a new translation
 * takes the WRITEs and the old range none; an access change to read-only
 * or a move to another PD refuses them with nothing written; a WRITE
 * stream goes on byte-exact through reregs that keep its bytes and
 * rights; a SEND source given a new translation while the SEND waits
 * fails LOC_PROT_ERR; a receive WQE whose SGE names memory of another PD
 * (own receive queue or SRQ) completes IBV_WC_LOC_QP_OP_ERR and the SEND
 * IBV_WC_REM_OP_ERR, as on Soft-RoCE.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define MR_LEN 4096u
#define STREAM_SLOTS 16u
#define STREAM_WRS 400u
#define STREAM_REREGS 20u

static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = STREAM_SLOTS * MR_LEN, .wr = 16,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

RC_PAIR_SUITE(rc_rereg, opts, 120);

#define RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)

static struct ibv_mr *
b_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);

	cr_assert_not_null(mr);
	return mr;
}

/* One completion on cq with this status. */
static void
expect_one(struct ibv_cq *cq, enum ibv_wc_status st)
{
	struct ibv_wc wc;

	cr_assert_eq(rc_poll(cq, &wc, 1, 10000), 1, "no completion");
	cr_assert_eq(wc.status, st, "status %d, want %d", wc.status, st);
}

/* a writes 64 bytes of fill to raddr through rkey. */
static void
write_to(uint64_t raddr, uint32_t rkey, uint8_t fill, enum ibv_wc_status want)
{
	memset(p.a.buf, fill, 64);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 64, raddr, rkey,
			     IBV_SEND_SIGNALED), 0);
	expect_one(p.a.cq, want);
}

static void
assert_bytes(const uint8_t *at, uint8_t fill)
{
	uint8_t want[64];

	memset(want, fill, sizeof(want));
	cr_assert_arr_eq(at, want, sizeof(want));
}

static void
expect_rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
	     size_t len, int access, int want, int want_errno)
{
	errno = 0;
	cr_assert_eq(ibv_rereg_mr(mr, flags, pd, addr, len, access), want,
		     "flags %#x", flags);
	if (want != 0)
		cr_assert_eq(errno, want_errno, "flags %#x: errno %d",
			     flags, errno);
}

Test(rc_rereg, refusals_leave_the_mr_as_it_was)
{
	struct ibv_mr *mr = b_mr(p.b.pd, p.b.buf, MR_LEN, RW);
	struct ibv_mr *bindable = b_mr(p.b.pd, p.b.buf, MR_LEN,
				       RW | IBV_ACCESS_MW_BIND);
	struct ibv_mw *mw = ibv_alloc_mw(p.b.pd, IBV_MW_TYPE_1);
	struct ibv_mw_bind bind = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = bindable, .addr = (uintptr_t)p.b.buf,
			       .length = 64,
			       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE },
	};
	uint32_t key = mr->rkey;
	const int tr = IBV_REREG_MR_CHANGE_TRANSLATION;

	/* what libibverbs refuses: IBV_REREG_MR_ERR_INPUT */
	expect_rereg(mr, 1 << 7, NULL, NULL, 0, 0, IBV_REREG_MR_ERR_INPUT,
		     EINVAL);
	expect_rereg(mr, tr, NULL, NULL, MR_LEN, 0, IBV_REREG_MR_ERR_INPUT,
		     EINVAL);
	expect_rereg(mr, tr, NULL, p.b.buf, 0, 0, IBV_REREG_MR_ERR_INPUT,
		     EINVAL);
	expect_rereg(mr, IBV_REREG_MR_CHANGE_PD, p.b.pd, NULL, 0,
		     IBV_ACCESS_REMOTE_READ, IBV_REREG_MR_ERR_INPUT, EINVAL);
	/* what the provider refuses: IBV_REREG_MR_ERR_CMD */
	expect_rereg(mr, 0, NULL, NULL, 0, 0, IBV_REREG_MR_ERR_CMD, EINVAL);
	expect_rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		     IBV_ACCESS_REMOTE_WRITE, IBV_REREG_MR_ERR_CMD, EINVAL);
	expect_rereg(mr, IBV_REREG_MR_CHANGE_PD, NULL, NULL, 0, 0,
		     IBV_REREG_MR_ERR_CMD, EINVAL);
	expect_rereg(mr, tr, NULL, (void *)(uintptr_t)-4096, 8192, 0,
		     IBV_REREG_MR_ERR_CMD, EINVAL);
	/* a memory window bound to it */
	cr_assert_not_null(mw);
	cr_assert_eq(ibv_bind_mw(p.b.qp, mw, &bind), 0);
	expect_one(p.b.cq, IBV_WC_SUCCESS);
	expect_rereg(bindable, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, RW,
		     IBV_REREG_MR_ERR_CMD, EBUSY);
	bind.bind_info.length = 0;
	cr_assert_eq(ibv_bind_mw(p.b.qp, mw, &bind), 0);
	expect_one(p.b.cq, IBV_WC_SUCCESS);
	expect_rereg(bindable, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, RW,
		     0, 0);

	cr_assert_eq(mr->rkey, key);
	cr_assert_eq(mr->addr, p.b.buf);
	cr_assert_eq(mr->length, MR_LEN);
	cr_assert_eq(mr->pd, p.b.pd);
	write_to((uintptr_t)p.b.buf + 128, key, 0x11, IBV_WC_SUCCESS);
	assert_bytes(p.b.buf + 128, 0x11);
	cr_assert_eq(ibv_dealloc_mw(mw), 0);
	cr_assert_eq(ibv_dereg_mr(bindable), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
}

Test(rc_rereg, new_translation_takes_the_write)
{
	struct ibv_mr *mr = b_mr(p.b.pd, p.b.buf, MR_LEN, RW);
	uint8_t *fresh = aligned_alloc(4096, MR_LEN);
	uint32_t key = mr->rkey;

	cr_assert_not_null(fresh);
	memset(fresh, 0, MR_LEN);
	write_to((uintptr_t)p.b.buf + 128, key, 0x21, IBV_WC_SUCCESS);
	expect_rereg(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, fresh, MR_LEN,
		     0, 0, 0);
	cr_assert_eq(mr->rkey, key, "keys are kept");
	cr_assert_eq(mr->lkey, key);
	cr_assert_eq(mr->addr, fresh);
	write_to((uintptr_t)fresh + 128, key, 0x22, IBV_WC_SUCCESS);
	assert_bytes(fresh + 128, 0x22);
	assert_bytes(p.b.buf + 128, 0x21);
	/* the old range is no longer registered */
	write_to((uintptr_t)p.b.buf + 128, key, 0x23, IBV_WC_REM_ACCESS_ERR);
	assert_bytes(p.b.buf + 128, 0x21);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	free(fresh);
}

Test(rc_rereg, read_only_access_refuses_the_write)
{
	struct ibv_mr *mr = b_mr(p.b.pd, p.b.buf, MR_LEN,
				 RW | IBV_ACCESS_REMOTE_READ);

	write_to((uintptr_t)p.b.buf + 128, mr->rkey, 0x31, IBV_WC_SUCCESS);
	expect_rereg(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, 0, 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_READ, 2, 256, 64,
			     (uintptr_t)p.b.buf + 128, mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	expect_one(p.a.cq, IBV_WC_SUCCESS);
	assert_bytes(p.a.buf + 256, 0x31);
	write_to((uintptr_t)p.b.buf + 128, mr->rkey, 0x32,
		 IBV_WC_REM_ACCESS_ERR);
	assert_bytes(p.b.buf + 128, 0x31);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
}

Test(rc_rereg, another_pd_is_out_of_reach)
{
	struct ibv_pd *other = ibv_alloc_pd(p.b.ctx);
	struct ibv_mr *mr = b_mr(p.b.pd, p.b.buf, MR_LEN, RW);
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	cr_assert_not_null(other);
	expect_rereg(mr, IBV_REREG_MR_CHANGE_PD, other, NULL, 0, 0, 0, 0);
	cr_assert_eq(mr->pd, other);
	cr_assert_eq(ibv_dealloc_pd(other), EBUSY, "the MR is on it now");
	write_to((uintptr_t)p.b.buf + 128, mr->rkey, 0x41,
		 IBV_WC_REM_ACCESS_ERR);
	assert_bytes(p.b.buf + 128, 0);

	/* nor may b's QP send from it */
	rc_pair_connect(&p, &opts);
	sge = (struct ibv_sge){ (uintptr_t)p.b.buf, 64, mr->lkey };
	cr_assert_eq(ibv_post_send(p.b.qp, &wr, &bad), 0);
	expect_one(p.b.cq, IBV_WC_LOC_PROT_ERR);

	/* back in b's PD it works again */
	rc_pair_connect(&p, &opts);
	expect_rereg(mr, IBV_REREG_MR_CHANGE_PD, p.b.pd, NULL, 0, 0, 0, 0);
	write_to((uintptr_t)p.b.buf + 128, mr->rkey, 0x42, IBV_WC_SUCCESS);
	assert_bytes(p.b.buf + 128, 0x42);
	cr_assert_eq(ibv_dealloc_pd(other), 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
}

/* a posts a signaled 64-byte SEND from src with no receive posted at b,
 * and waits until b (rxd1) has said "not ready" once: the SEND has left
 * a's window and waits in the RNR retry. */
static void
send_until_rnr(struct ibv_mr *src, uint64_t wr_id)
{
	struct ibv_sge sge = { (uintptr_t)p.a.buf, 64, src->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct rxd_qp_stats st = { 0 };
	struct ibv_send_wr *bad;
	unsigned int ms;

	cr_assert_eq(ibv_post_send(p.a.qp, &wr, &bad), 0);
	for (ms = 0; st.rnr_naks_tx == 0 && ms < 10000; ms++) {
		cr_assert_eq(rxd_qp_stats(1, p.b.qp->qp_num, &st), 0);
		usleep(1000);
	}
	cr_assert_gt(st.rnr_naks_tx, 0, "no RNR NAK from b");
}

/* A SEND waiting for b's receive (RNR) whose source MR moves to another
 * PD meanwhile: its next transmission finds no memory it may read and
 * the SEND completes IBV_WC_LOC_PROT_ERR (it used to send nothing until
 * the retries ran out: IBV_WC_RETRY_EXC_ERR). */
Test(rc_rereg, send_source_moved_to_another_pd)
{
	struct ibv_pd *other = ibv_alloc_pd(p.a.ctx);
	struct ibv_mr *src = ibv_reg_mr(p.a.pd, p.a.buf, MR_LEN,
					IBV_ACCESS_LOCAL_WRITE);
	struct ibv_wc wc;

	cr_assert(other != NULL && src != NULL);
	send_until_rnr(src, 4);
	expect_rereg(src, IBV_REREG_MR_CHANGE_PD, other, NULL, 0, 0, 0, 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 10000), 1, "the SEND hangs");
	cr_assert_eq(wc.wr_id, 4);
	cr_assert_eq(wc.status, IBV_WC_LOC_PROT_ERR, "status %d", wc.status);
	cr_assert_eq(ibv_dereg_mr(src), 0);
	cr_assert_eq(ibv_dealloc_pd(other), 0);
}

/* A SEND waiting for b's receive (RNR) whose source MR gets a new
 * translation meanwhile: the WQE's address is no longer in the MR, so its
 * next transmission fails IBV_WC_LOC_PROT_ERR instead of reading the old
 * buffer (the requester holds the entry it checked at fetch only while
 * the key still names that entry). */
Test(rc_rereg, send_source_given_a_new_translation)
{
	struct ibv_mr *src = ibv_reg_mr(p.a.pd, p.a.buf, MR_LEN,
					IBV_ACCESS_LOCAL_WRITE);
	uint8_t *fresh = aligned_alloc(4096, MR_LEN);
	struct ibv_wc wc;

	cr_assert(src != NULL && fresh != NULL);
	send_until_rnr(src, 5);
	expect_rereg(src, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, fresh,
		     MR_LEN, 0, 0, 0);
	cr_assert_eq(rc_recv(&p.b, 9, 0, 64), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 10000), 1, "the SEND hangs");
	cr_assert_eq(wc.wr_id, 5);
	cr_assert_eq(wc.status, IBV_WC_LOC_PROT_ERR, "status %d", wc.status);
	cr_assert_eq(ibv_dereg_mr(src), 0);
	free(fresh);
}

/* a SENDs 64 bytes to a receive WQE of b's whose SGE is in another PD. */
static void
send_into_foreign_sge(void (*post)(struct ibv_sge *sge))
{
	struct ibv_pd *other = ibv_alloc_pd(p.b.ctx);
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct ibv_wc wc;

	cr_assert_not_null(other);
	mr = b_mr(other, p.b.buf, MR_LEN, RW);
	sge = (struct ibv_sge){ (uintptr_t)p.b.buf, 64, mr->lkey };
	post(&sge);
	memset(p.a.buf, 0x51, 64);
	cr_assert_eq(rc_post(&p.a, IBV_WR_SEND, 3, 0, 64, 0, 0,
			     IBV_SEND_SIGNALED), 0);
	expect_one(p.a.cq, IBV_WC_REM_OP_ERR);
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 10000), 1);
	cr_assert_eq(wc.status, IBV_WC_LOC_QP_OP_ERR, "status %d",
		     wc.status);
	cr_assert_eq(wc.wr_id, 9);
	assert_bytes(p.b.buf, 0);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_dealloc_pd(other), 0);
}

static void
post_qp_recv(struct ibv_sge *sge)
{
	struct ibv_recv_wr wr = { .wr_id = 9, .sg_list = sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	cr_assert_eq(ibv_post_recv(p.b.qp, &wr, &bad), 0);
}

Test(rc_rereg, receive_sge_of_another_pd)
{
	send_into_foreign_sge(post_qp_recv);
}

static struct ibv_srq *srq;

static void
post_srq_recv(struct ibv_sge *sge)
{
	struct ibv_recv_wr wr = { .wr_id = 9, .sg_list = sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	cr_assert_eq(ibv_post_srq_recv(srq, &wr, &bad), 0);
}

Test(rc_rereg, srq_receive_sge_of_another_pd)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = {
		.send_cq = p.b.cq, .recv_cq = p.b.cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};

	srq = ibv_create_srq(p.b.pd, &sa);
	cr_assert_not_null(srq);
	qa.srq = srq;
	ibv_destroy_qp(p.a.qp);
	ibv_destroy_qp(p.b.qp);
	p.a.qp = rc_create_qp(&p.a, &opts);
	p.b.qp = ibv_create_qp(p.b.pd, &qa);
	cr_assert_not_null(p.b.qp);
	rc_connect_qp(p.a.qp, p.b.qp->qp_num, 2, 1, &opts);
	rc_connect_qp(p.b.qp, p.a.qp->qp_num, 1, 1, &opts);
	send_into_foreign_sge(post_srq_recv);
	cr_assert_eq(ibv_destroy_qp(p.b.qp), 0);
	p.b.qp = NULL;
	cr_assert_eq(ibv_destroy_srq(srq), 0);
	p.b.qp = rc_create_qp(&p.b, &opts);
}

struct rereg_loop {
	struct ibv_mr *mr;
	unsigned int done;         /* reregs made */
	int stop;
	int failed;                /* a rereg's return code */
};

/* Re-register the MR over and over, keeping its bytes and the right to
 * write: access with and without remote read, the same translation. */
static void *
rereg_loop(void *arg)
{
	struct rereg_loop *l = arg;
	const int with_read = RW | IBV_ACCESS_REMOTE_READ;

	while (!__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE)) {
		unsigned int n = l->done;
		int rc = n % 3 == 2 ?
			ibv_rereg_mr(l->mr, IBV_REREG_MR_CHANGE_TRANSLATION,
				     NULL, p.b.buf, p.b.len, 0) :
			ibv_rereg_mr(l->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				     NULL, 0, n % 2 ? RW : with_read);

		if (rc != 0) {
			l->failed = rc;
			break;
		}
		__atomic_store_n(&l->done, n + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Slot s of a's buffer: bytes (s * 31 + i) & 0xff. */
static void
fill_slots(void)
{
	size_t i;

	for (i = 0; i < p.a.len; i++)
		p.a.buf[i] = (uint8_t)((i / MR_LEN) * 31 + i);
}

Test(rc_rereg, write_stream_survives_reregs_that_keep_its_bytes)
{
	struct rereg_loop l = { 0 };
	struct ibv_wc wc[16];
	unsigned int posted = 0, completed = 0, i;
	pthread_t t;
	int n;

	l.mr = b_mr(p.b.pd, p.b.buf, p.b.len, RW);
	fill_slots();
	cr_assert_eq(pthread_create(&t, NULL, rereg_loop, &l), 0);
	while (completed < STREAM_WRS ||
	       __atomic_load_n(&l.done, __ATOMIC_ACQUIRE) < STREAM_REREGS) {
		if (l.failed)
			break;
		if (posted - completed < opts.wr) {
			size_t off = (posted % STREAM_SLOTS) * MR_LEN;

			cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, posted,
					     off, MR_LEN,
					     (uintptr_t)p.b.buf + off,
					     l.mr->rkey, IBV_SEND_SIGNALED),
				     0);
			posted++;
			continue;
		}
		n = rc_poll(p.a.cq, wc, 16, 10000);
		cr_assert_gt(n, 0, "stream stalled after %u", completed);
		for (i = 0; i < (unsigned int)n; i++) {
			cr_assert_eq(wc[i].status, IBV_WC_SUCCESS,
				     "WR %lu: status %d",
				     (unsigned long)wc[i].wr_id, wc[i].status);
			cr_assert_eq(wc[i].wr_id, completed, "one per WR");
			completed++;
		}
	}
	__atomic_store_n(&l.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	cr_assert_eq(l.failed, 0, "rereg returned %d", l.failed);
	while (completed < posted) {
		n = rc_poll(p.a.cq, wc, 16, 10000);
		cr_assert_gt(n, 0);
		for (i = 0; i < (unsigned int)n; i++, completed++)
			cr_assert_eq(wc[i].status, IBV_WC_SUCCESS);
	}
	cr_assert_eq(rc_poll(p.a.cq, wc, 1, 100), 0, "a completion too many");
	cr_assert_arr_eq(p.b.buf, p.a.buf, p.b.len, "not byte-exact");
	cr_assert_eq(ibv_dereg_mr(l.mr), 0);
}
