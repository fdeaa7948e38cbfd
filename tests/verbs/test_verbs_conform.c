/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What rdma-core's own test suite (tests/verbs/conformance.sh) found
 * wrong on rxd, checked here on its own so it stays fixed without the
 * suite: the device's identity (vendor id, phys_port_cnt_ex, max_srq_wr),
 * a context cmd_fd that is a real descriptor and refused imports,
 * ibv_resize_cq below the unpolled completions, ibv_wr_* on a QP that
 * cannot send, ibv_create_qp_ex with IBV_QP_INIT_ATTR_CREATE_FLAGS; and
 * the completion clocks: raw TSC stamps, their wall-clock reading and
 * ibv_query_rt_values_ex.
 * rxd runs on two ports joined by a net_ring pair, one engine lcore (the
 * conform_inline suite: none), with the default limits.  Each test runs
 * in its own process.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <infiniband/verbs.h>
#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_port.h"
#include "rxd_test_eal.h"

#define QKEY 0x11111111u

static struct ibv_context *ctx;
static struct ibv_pd *pd;

/* lcores "0-1": one engine lcore; "0": the engine runs inline. */
static void
start_on(char *lcores)
{
	struct ibv_device **list;
	uint16_t a, b;
	int n = 0;

	cr_assert_geq(rxd_test_eal("-l %s -m 256 --no-shconf", lcores), 0);
	cr_assert_eq(rxd_port_ring_pair("vA", "vB", 0, &a, &b), 0);
	cr_assert_eq(rxd_test_rxd("--ip 0:10.0.0.1/24 --ip 1:10.0.0.2/24"), 0,
		     "%s", rxd_last_error());
	list = ibv_get_device_list(&n);
	cr_assert_not_null(list);
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	cr_assert_not_null(ctx);
	pd = ibv_alloc_pd(ctx);
	cr_assert_not_null(pd);
}

static void
start(void)
{
	start_on("0-1");
}

static void
start_inline(void)
{
	start_on("0");
}

static void
stop(void)
{
	rxd_stop();
	rte_eal_cleanup();
}

TestSuite(conform, .init = start, .fini = stop, .timeout = 60);
TestSuite(conform_inline, .init = start_inline, .fini = stop,
	  .timeout = 60);

Test(conform, device_identity)
{
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr a;

	cr_assert_eq(ibv_query_device(ctx, &a), 0);
	cr_assert_eq(a.vendor_id, 0xFFFFFF, "Soft-RoCE's vendor id, not 0");
	cr_assert_eq(ibv_query_device_ex(ctx, NULL, &ax), 0);
	cr_assert_eq(ax.orig_attr.vendor_id, 0xFFFFFF);
	cr_assert_eq(ax.orig_attr.phys_port_cnt, 1);
	cr_assert_eq(ax.phys_port_cnt_ex, 1, "phys_port_cnt_ex = phys_port_cnt");
	cr_assert_eq(a.max_srq_wr, 16384, "Soft-RoCE's max_srq_wr");
	/* at least Soft-RoCE's on Linux 6.1: 16384 WRs, 32767 CQEs */
	cr_assert_geq(a.max_qp_wr, 16384, "max_qp_wr below Soft-RoCE's");
	cr_assert_geq(a.max_cqe, 32767, "max_cqe below Soft-RoCE's");
}

/* What programs with their own defaults ask: ib_send_bw -t 4096 -r 4096
 * (a QP of 4096 send and receive WRs, a CQ for both), libfabric's
 * ofi_rxm with its default universe (a 65,536-entry CQ). */
Test(conform, queues_programs_ask_for_by_default)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 8192, NULL, NULL, 0);
	struct ibv_cq *big = ibv_create_cq(ctx, 65536, NULL, NULL, 0);
	struct ibv_qp_init_attr a = { .send_cq = cq, .recv_cq = cq,
		.qp_type = IBV_QPT_RC, .cap = { .max_send_wr = 4096,
		.max_recv_wr = 4096, .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *qp;

	cr_assert_not_null(cq, "a CQ of 8192: %s", strerror(errno));
	cr_assert_not_null(big, "a CQ of 65536: %s", strerror(errno));
	cr_assert_geq(big->cqe, 65536);
	qp = ibv_create_qp(pd, &a);
	cr_assert_not_null(qp, "4096 send and receive WRs: %s",
			   strerror(errno));
	cr_assert_geq(a.cap.max_send_wr, 4096);
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_destroy_cq(big), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
}

Test(conform, srq_depth_is_max_srq_wr)
{
	struct ibv_srq_init_attr ok = { .attr = { .max_wr = 2000,
						  .max_sge = 1 } };
	struct ibv_srq_init_attr big = { .attr = { .max_wr = 16385,
						   .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &ok);

	cr_assert_not_null(srq, "2000 WRs: %s", strerror(errno));
	errno = 0;
	cr_assert_null(ibv_create_srq(pd, &big), "one above max_srq_wr");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(ibv_destroy_srq(srq), 0);
}

#define RQ_DEPTH 16384

/* rq_depth (16384, Soft-RoCE's max_qp_wr) receive WRs: the ring holds all
 * of them, one more is refused. */
Test(conform, rq_depth_receive_queue_is_held_whole)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr a = { .send_cq = cq, .recv_cq = cq,
		.qp_type = IBV_QPT_UD, .cap = { .max_send_wr = 16,
		.max_recv_wr = RQ_DEPTH + 1, .max_send_sge = 1,
		.max_recv_sge = 1 } };
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qkey = 1 };
	struct ibv_recv_wr r = { 0 }, *bad;
	struct ibv_qp *qp;
	int i, rc = 0;

	cr_assert_not_null(cq);
	errno = 0;
	cr_assert_null(ibv_create_qp(pd, &a), "one above rq_depth");
	cr_assert_eq(errno, EINVAL);
	a.cap.max_recv_wr = RQ_DEPTH;
	qp = ibv_create_qp(pd, &a);
	cr_assert_not_null(qp, "%d receive WRs: %s", RQ_DEPTH, strerror(errno));
	cr_assert_eq(ibv_modify_qp(qp, &init, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_QKEY), 0);
	for (i = 0; i < RQ_DEPTH && rc == 0; i++)
		rc = ibv_post_recv(qp, &r, &bad);
	cr_assert_eq(rc, 0, "receive %d of %d refused: %d", i, RQ_DEPTH, rc);
	cr_assert_eq(ibv_post_recv(qp, &r, &bad), ENOMEM, "one past rq_depth");
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
}

Test(conform, cmd_fd_is_a_descriptor_and_imports_are_refused)
{
	struct pollfd pfd = { .fd = ctx->cmd_fd, .events = POLLIN };
	int fd = dup(ctx->cmd_fd);

	cr_assert_geq(fd, 0, "dup(cmd_fd): %s", strerror(errno));
	cr_assert_neq(fcntl(ctx->cmd_fd, F_GETFD) & FD_CLOEXEC, 0);
	cr_assert_eq(poll(&pfd, 1, 0), 0, "never readable");
	errno = 0;
	cr_assert_null(ibv_import_device(fd));
	cr_assert_eq(errno, EOPNOTSUPP);
	errno = 0;
	cr_assert_null(ibv_import_pd(ctx, pd->handle));
	cr_assert_eq(errno, EOPNOTSUPP);
	errno = 0;
	cr_assert_null(ibv_import_mr(pd, 1));
	cr_assert_eq(errno, EOPNOTSUPP);
	cr_assert_eq(close(fd), 0);
}

static struct ibv_qp *
ud_qp(struct ibv_cq *cq, bool ex)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd,
	};
	struct ibv_qp *qp;

	if (ex) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	}
	qp = ibv_create_qp_ex(ctx, &a);
	cr_assert_not_null(qp, "create UD QP: %s", strerror(errno));
	return qp;
}

static void
ud_to(struct ibv_qp *qp, enum ibv_qp_state to)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qkey = QKEY };

	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_QKEY), 0);
	if (to == IBV_QPS_INIT)
		return;
	a.qp_state = IBV_QPS_RTR;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RTS;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
}

/* An AH to port 1's address: the ring pair carries the frames there. */
static struct ibv_ah *
ah_to_peer(void)
{
	struct ibv_ah_attr a = { .is_global = 1, .port_num = 1,
		.grh = { .sgid_index = 1, .hop_limit = 64 } };
	struct ibv_ah *ah;

	a.grh.dgid.raw[10] = a.grh.dgid.raw[11] = 0xff;
	a.grh.dgid.raw[12] = 10;
	a.grh.dgid.raw[15] = 2;
	ah = ibv_create_ah(pd, &a);
	cr_assert_not_null(ah, "create_ah: %s", strerror(errno));
	return ah;
}

static void
post_ud_send(struct ibv_qp *qp, struct ibv_ah *ah, uint64_t id)
{
	static char buf[8];
	struct ibv_sge sge = { (uintptr_t)buf, sizeof(buf), 0 };
	struct ibv_send_wr w = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED |
		IBV_SEND_INLINE, .wr.ud = { .ah = ah, .remote_qpn = 0x100,
					    .remote_qkey = QKEY } }, *bad;

	cr_assert_eq(ibv_post_send(qp, &w, &bad), 0);
}

/* Poll n completions within a generous bound. */
static void
poll_n(struct ibv_cq *cq, int n)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int got = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < n) {
		int r = ibv_poll_cq(cq, 1, &wc);

		cr_assert_geq(r, 0);
		if (r == 1) {
			cr_assert_eq(wc.status, IBV_WC_SUCCESS, "%s",
				     ibv_wc_status_str(wc.status));
			got++;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		cr_assert_lt(t.tv_sec - t0.tv_sec, 10, "%d of %d", got, n);
	}
}

static void
resize_below_unpolled(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 3, NULL, NULL, 0);
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	int i;

	cr_assert_not_null(cq);
	qp = ud_qp(cq, false);
	ud_to(qp, IBV_QPS_RTS);
	ah = ah_to_peer();
	post_ud_send(qp, ah, 0);         /* the neighbour gets resolved */
	poll_n(cq, 1);
	cr_assert_eq(ibv_resize_cq(cq, 1), 0, "an empty CQ shrinks");
	cr_assert_eq(ibv_resize_cq(cq, 7), 0);
	cr_assert_geq(cq->cqe, 7);
	/* let the engine back off to its idle sleep, as it has when a
	 * program posts at leisure: the resize then reaches the engine
	 * before it serves the doorbell of the posts */
	usleep(20000);
	for (i = 0; i < 6; i++)
		post_ud_send(qp, ah, (uint64_t)i);
	/* no poll in between: the six completions are owed to the CQ */
	cr_assert_eq(ibv_resize_cq(cq, 1), EINVAL, "6 unpolled, 1 asked");
	cr_assert_eq(ibv_resize_cq(cq, 6), 0, "room for all six");
	poll_n(cq, 6);
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_destroy_ah(ah), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
}

Test(conform, resize_cq_below_unpolled_is_einval)
{
	resize_below_unpolled();
}

/* no engine lcore: the posts wait for a poll or for rxd's watcher */
Test(conform_inline, resize_cq_below_unpolled_is_einval)
{
	resize_below_unpolled();
}

/* One ibv_wr_* send; @return what ibv_wr_complete says. */
static int
wr_send(struct ibv_qp *qp, struct ibv_ah *ah)
{
	static char buf[8];
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

	ibv_wr_start(x);
	x->wr_id = 9;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, 0x100, QKEY);
	ibv_wr_set_inline_data(x, buf, sizeof(buf));
	return ibv_wr_complete(x);
}

Test(conform, wr_api_needs_a_sending_state)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp *qp;
	struct ibv_ah *ah;

	cr_assert_not_null(cq);
	qp = ud_qp(cq, true);
	ah = ah_to_peer();
	cr_assert_eq(wr_send(qp, ah), EINVAL, "RESET");
	ud_to(qp, IBV_QPS_INIT);
	cr_assert_eq(wr_send(qp, ah), EINVAL, "INIT");
	cr_assert_eq(ibv_modify_qp(qp, &reset, IBV_QP_STATE), 0);
	ud_to(qp, IBV_QPS_RTS);
	cr_assert_eq(wr_send(qp, ah), 0, "RTS sends");
	poll_n(cq, 1);
	cr_assert_eq(ibv_modify_qp(qp, &reset, IBV_QP_STATE), 0);
	cr_assert_eq(wr_send(qp, ah), EINVAL, "back in RESET");
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_destroy_ah(ah), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
}

Test(conform, create_qp_ex_with_create_flags_mask)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
		IBV_QPT_UD };
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	unsigned int i;

	cr_assert_not_null(cq);
	for (i = 0; i < 3; i++) {
		struct ibv_qp_init_attr_ex a = {
			.send_cq = cq, .recv_cq = cq, .qp_type = types[i],
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				IBV_QP_INIT_ATTR_CREATE_FLAGS,
			.pd = pd,
		};
		struct ibv_qp *qp = ibv_create_qp_ex(ctx, &a);

		cr_assert_not_null(qp, "type %d, no flag: %s", types[i],
				   strerror(errno));
		cr_assert_eq(qp->state, IBV_QPS_RESET);
		cr_assert_eq(ibv_destroy_qp(qp), 0);
		/* blocking multicast loopback: UD only (rxd never loops a
		 * group send back); any other flag is one rxd lacks */
		a.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
		errno = 0;
		qp = ibv_create_qp_ex(ctx, &a);
		if (types[i] == IBV_QPT_UD) {
			cr_assert_not_null(qp, "UD blocks loopback: %s",
					   strerror(errno));
			cr_assert_eq(ibv_destroy_qp(qp), 0);
		} else {
			cr_assert_null(qp, "type %d: no loopback to block",
				       types[i]);
			cr_assert_eq(errno, EOPNOTSUPP);
		}
		a.create_flags = IBV_QP_CREATE_SCATTER_FCS;
		errno = 0;
		cr_assert_null(ibv_create_qp_ex(ctx, &a), "a flag rxd lacks");
		cr_assert_eq(errno, EOPNOTSUPP);
	}
	cr_assert_eq(ibv_destroy_cq(cq), 0);
}

Test(conform, query_rt_values_gives_the_tsc)
{
	struct ibv_values_ex v1 = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_values_ex v2 = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_device_attr_ex ax;

	cr_assert_eq(ibv_query_device_ex(ctx, NULL, &ax), 0);
	cr_assert_gt(ax.hca_core_clock, 0, "the clock's rate in kHz");
	cr_assert_eq(ibv_query_rt_values_ex(ctx, &v1), 0);
	usleep(10000);
	cr_assert_eq(ibv_query_rt_values_ex(ctx, &v2), 0);
	cr_assert_eq(v2.comp_mask, IBV_VALUES_MASK_RAW_CLOCK);
	cr_assert_eq(v2.raw_clock.tv_sec, 0, "cycles in tv_nsec");
	/* 10 ms asleep: at least that many cycles went by */
	cr_assert_geq((uint64_t)(v2.raw_clock.tv_nsec - v1.raw_clock.tv_nsec),
		      ax.hca_core_clock * 10);
}

static uint64_t
realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

Test(conform, completion_timestamps_raw_and_wallclock)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 4,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK };
	struct ibv_values_ex before = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_values_ex after = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(ctx, &ca);
	uint64_t t0, t1, ts, wall;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	int rc;

	cr_assert_not_null(cqx, "create_cq_ex: %s", strerror(errno));
	qp = ud_qp(ibv_cq_ex_to_cq(cqx), false);
	ud_to(qp, IBV_QPS_RTS);
	ah = ah_to_peer();
	t0 = realtime_ns();
	cr_assert_eq(ibv_query_rt_values_ex(ctx, &before), 0);
	post_ud_send(qp, ah, 5);
	while ((rc = ibv_start_poll(cqx, &pa)) == ENOENT)
		cr_assert_lt(realtime_ns() - t0, 10000000000ull, "no completion");
	cr_assert_eq(rc, 0);
	cr_assert_eq(cqx->status, IBV_WC_SUCCESS);
	ts = ibv_wc_read_completion_ts(cqx);
	wall = ibv_wc_read_completion_wallclock_ns(cqx);
	ibv_end_poll(cqx);
	cr_assert_eq(ibv_query_rt_values_ex(ctx, &after), 0);
	t1 = realtime_ns();
	cr_assert_geq(ts, (uint64_t)before.raw_clock.tv_nsec,
		      "stamped after the post");
	cr_assert_leq(ts, (uint64_t)after.raw_clock.tv_nsec,
		      "and before the poll");
	/* the wall clock is the TSC counted from an anchor: allow 10 ms */
	cr_assert_geq(wall + 10000000, t0, "%lu before %lu", wall, t0);
	cr_assert_leq(wall, t1 + 10000000, "%lu after %lu", wall, t1);
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_destroy_ah(ah), 0);
	cr_assert_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
}
