/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs API over a running rxd (two ports joined by a net_ring pair,
 * one engine lcore): devices and queries, PD/MR rules, resource limits,
 * QP transitions through ibv_modify_qp, bad_wr, flush on error with every
 * work request accounted for, completion channels with poll(), async events
 * (port down/up, CQ overrun).  Each test runs in its own process.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <infiniband/verbs.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "rxd/rxd.h"
#include "rxd_port.h"
#include "rxd_test_eal.h"

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static uint16_t ring_a;

static void
start_limits(const char *max_qp, const char *sq_depth)
{
	struct ibv_device **list;
	uint16_t b;
	int n = 0;

	cr_assert_geq(rxd_test_eal("-l 0-1 -m 256 --no-shconf"), 0);
	cr_assert_eq(rxd_port_ring_pair("vA", "vB", 0, &ring_a, &b), 0);
	cr_assert_eq(rxd_test_rxd("--ip 0:10.0.0.1/24 --ip 1:10.0.0.2/24 "
		"--set limits.max_qp=%s --set limits.sq_depth=%s", max_qp,
		sq_depth), 0, "%s", rxd_last_error());
	list = ibv_get_device_list(&n);
	cr_assert_not_null(list);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(ibv_get_device_name(list[0]), "rxd0");
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	cr_assert_not_null(ctx);
	pd = ibv_alloc_pd(ctx);
	cr_assert_not_null(pd);
}

static void
start(void)
{
	start_limits("64", "64");
}

static void
stop(void)
{
	rxd_stop();
	rte_eal_cleanup();
}

TestSuite(verbs, .init = start, .fini = stop, .timeout = 60);

Test(verbs, query_device_and_port)
{
	struct ibv_device_attr a;
	struct ibv_port_attr pa;
	union ibv_gid gid;

	cr_assert_eq(ibv_query_device(ctx, &a), 0);
	cr_assert_eq(a.max_qp, 64);
	cr_assert_eq(a.max_qp_wr, 64);
	cr_assert_eq(a.phys_port_cnt, 1);
	cr_assert_neq(a.vendor_id, 0x02c9, "not a Mellanox id");
	cr_assert_eq(ibv_query_port(ctx, 1, &pa), 0);
	cr_assert_eq(pa.state, IBV_PORT_ACTIVE);
	cr_assert_eq(pa.active_mtu, IBV_MTU_1024);
	cr_assert_eq(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	cr_assert_eq(ibv_query_port(ctx, 2, &pa), EINVAL);
	cr_assert_eq(ibv_query_gid(ctx, 1, 1, &gid), 0);
	cr_assert_eq(gid.raw[10], 0xff);
	cr_assert_eq(gid.raw[12], 10);
	cr_assert_eq(gid.raw[15], 1);
}

Test(verbs, mr_access_rules)
{
	static char buf[4096];
	struct ibv_mr *mr, *mr2;

	errno = 0;
	cr_assert_null(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE));
	cr_assert_eq(errno, EINVAL, "remote write needs local write");
	cr_assert_null(ibv_reg_mr(pd, buf, sizeof(buf),
				  IBV_ACCESS_REMOTE_ATOMIC));
	cr_assert_eq(errno, EINVAL, "remote atomic needs local write");
	cr_assert_null(ibv_reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE));
	cr_assert_eq(errno, EINVAL, "zero length");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	cr_assert_not_null(mr);
	mr2 = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_READ);
	cr_assert_not_null(mr2);
	cr_assert_eq(mr->lkey, mr->rkey);
	cr_assert_neq(mr->rkey, mr2->rkey, "keys are unique");
	cr_assert_neq(mr->rkey & 0xffffff00, 0, "keys are not small indexes");
	cr_assert_eq(ibv_dealloc_pd(pd), EBUSY, "PD still has MRs");
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_dereg_mr(mr2), 0);
}

static struct ibv_cq *
cq_new(int n, struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, n, NULL, ch, 0);

	cr_assert_not_null(cq, "create_cq: %s", strerror(errno));
	return cq;
}

static struct ibv_qp *
qp_new(struct ibv_cq *cq, enum ibv_qp_type type, uint32_t wr)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};

	return ibv_create_qp(pd, &a);
}

Test(verbs, resource_limits)
{
	struct ibv_cq *cq = cq_new(16, NULL);
	struct ibv_qp *qps[64];
	unsigned int i;

	for (i = 0; i < 64; i++) {
		qps[i] = qp_new(cq, IBV_QPT_RC, 4);
		cr_assert_not_null(qps[i], "QP %u of max_qp 64", i);
	}
	errno = 0;
	cr_assert_null(qp_new(cq, IBV_QPT_RC, 4), "QP 65 of 64");
	cr_assert_eq(errno, ENOMEM);
	cr_assert_null(qp_new(cq, IBV_QPT_RC, 65), "max_send_wr above 64");
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(ibv_create_cq(ctx, 1048576, NULL, NULL, 0), "max_cqe");
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(ibv_destroy_cq(cq), EBUSY, "CQ still has QPs");
	for (i = 0; i < 64; i++)
		cr_assert_eq(ibv_destroy_qp(qps[i]), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
}

static void
to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
}

/* INIT -> RTR -> RTS with exactly the attributes the QP type takes. */
static void
to_rts(struct ibv_qp *qp, uint32_t dqpn)
{
	bool rc = qp->qp_type == IBV_QPT_RC;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024, .dest_qp_num = dqpn,
		.rq_psn = 0x1234567, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .sgid_index = 1, .hop_limit = 64 } } };

	a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
	a.ah_attr.grh.dgid.raw[12] = 10;
	a.ah_attr.grh.dgid.raw[15] = 2;
	to_init(qp);
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
		IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		(rc ? IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0)), 0);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
		(rc ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		 IBV_QP_MAX_QP_RD_ATOMIC : 0)), 0);
}

Test(verbs, modify_and_query_qp)
{
	struct ibv_cq *cq = cq_new(16, NULL);
	struct ibv_qp *qp = qp_new(cq, IBV_QPT_RC, 4);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
	struct ibv_qp_init_attr ia;

	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL,
		     "RESET to RTS is illegal");
	to_rts(qp, 0x22);
	cr_assert_eq(qp->state, IBV_QPS_RTS);
	cr_assert_eq(ibv_query_qp(qp, &a, IBV_QP_RQ_PSN, &ia), 0);
	cr_assert_eq(a.rq_psn, 0x234567, "PSNs are masked to 24 bits");
	cr_assert_eq(a.path_mtu, IBV_MTU_1024);
	cr_assert_eq(a.dest_qp_num, 0x22);
	cr_assert_eq(ia.cap.max_send_wr, 4);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096 + 1;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PATH_MTU),
		     EINVAL);
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
}

Test(verbs, bad_wr_points_at_first_refused)
{
	static char buf[64];
	struct ibv_cq *cq = cq_new(16, NULL);
	struct ibv_qp *qp = qp_new(cq, IBV_QPT_UC, 8);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr w[3], *bad = NULL;
	struct ibv_wc wc[4];
	int i, n;

	memset(w, 0, sizeof(w));
	for (i = 0; i < 3; i++) {
		w[i].wr_id = (uint64_t)i;
		w[i].sg_list = &sge;
		w[i].num_sge = 1;
		w[i].opcode = IBV_WR_SEND;
		w[i].send_flags = IBV_SEND_SIGNALED;
		w[i].next = i < 2 ? &w[i + 1] : NULL;
	}
	cr_assert_eq(ibv_post_send(qp, w, &bad), EINVAL, "QP in RESET");
	cr_assert_eq(bad, &w[0]);
	to_rts(qp, 0x33);
	w[1].opcode = IBV_WR_RDMA_READ;    /* UC cannot READ */
	cr_assert_eq(ibv_post_send(qp, w, &bad), EINVAL);
	cr_assert_eq(bad, &w[1], "bad_wr is the first refused WR");
	{
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	}
	{
		struct timespec t = { 0, 200 * 1000 * 1000 };

		nanosleep(&t, NULL);    /* anything more would have come */
	}
	n = ibv_poll_cq(cq, 4, wc);
	cr_assert_eq(n, 1, "only the WR before bad_wr was posted");
	cr_assert_eq(wc[0].wr_id, 0);
	cr_assert(wc[0].status == IBV_WC_SUCCESS ||
		  wc[0].status == IBV_WC_WR_FLUSH_ERR, "sent or flushed");
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
}

struct poster {
	struct ibv_qp *qp;
	struct ibv_sge *sge;
	unsigned int id;
	unsigned int n;
	unsigned int refused;
};

static void *
post_thread(void *arg)
{
	struct poster *p = arg;
	struct ibv_send_wr w, *bad;
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		memset(&w, 0, sizeof(w));
		w.wr_id = (uint64_t)p->id << 32 | i;
		w.sg_list = p->sge;
		w.num_sge = 1;
		w.opcode = IBV_WR_RDMA_WRITE;
		w.send_flags = IBV_SEND_SIGNALED;
		if (ibv_post_send(p->qp, &w, &bad) != 0)
			p->refused++;
	}
	return NULL;
}

/* Poll until nothing more arrives for 200 ms. */
static int
rc_poll_some(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int i, got;

	for (i = 0; i < 200; i++) {
		got = ibv_poll_cq(cq, n, wc);
		if (got != 0)
			return got;
		usleep(1000);
	}
	return 0;
}

/* Four threads post to one QP, which then fails: each WR completes once. */
Test(verbs, concurrent_post_every_wr_accounted)
{
	static char buf[64];
	struct ibv_cq *cq = cq_new(256, NULL);
	struct ibv_qp *qp = qp_new(cq, IBV_QPT_UC, 64);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct poster p[4];
	pthread_t t[4];
	uint8_t seen[4][16] = { { 0 } };
	struct ibv_wc wc[64];
	unsigned int i, total = 0, refused = 0;
	int n, k;

	to_rts(qp, 0x44);
	for (i = 0; i < 4; i++) {
		p[i] = (struct poster){ qp, &sge, i, 16, 0 };
		pthread_create(&t[i], NULL, post_thread, &p[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		refused += p[i].refused;
	}
	cr_assert_eq(refused, 0, "64 WRs fit max_send_wr 64");
	cr_assert_eq(ibv_modify_qp(qp, &err, IBV_QP_STATE), 0);
	while ((n = rc_poll_some(cq, 64, wc)) > 0) {
		for (k = 0; k < n; k++) {
			unsigned int th = (unsigned int)(wc[k].wr_id >> 32);
			unsigned int j = (unsigned int)wc[k].wr_id;

			/* UC sends without ACKs: sent (success) or flushed */
			cr_assert(wc[k].status == IBV_WC_SUCCESS ||
				  wc[k].status == IBV_WC_WR_FLUSH_ERR);
			cr_assert(th < 4 && j < 16);
			cr_assert_eq(seen[th][j]++, 0, "wr %u/%u twice", th, j);
			total++;
		}
	}
	cr_assert_eq(total, 64, "every WR completes exactly once");
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
}

Test(verbs, send_queue_full_is_enomem)
{
	static char buf[64];
	struct ibv_cq *cq = cq_new(16, NULL);
	struct ibv_qp *qp = qp_new(cq, IBV_QPT_RC, 2);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND }, *bad;

	to_rts(qp, 0x55);
	cr_assert_eq(ibv_post_send(qp, &w, &bad), 0);
	cr_assert_eq(ibv_post_send(qp, &w, &bad), 0);
	cr_assert_eq(ibv_post_send(qp, &w, &bad), ENOMEM);
	cr_assert_eq(bad, &w);
}

Test(verbs, comp_channel_poll)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq, *ev_cq;
	struct ibv_qp *qp;
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_recv_wr r = { .wr_id = 7 }, *bad;
	struct pollfd pfd;
	void *ev_ctx;
	struct ibv_wc wc;

	cr_assert_not_null(ch);
	cq = cq_new(16, ch);
	qp = qp_new(cq, IBV_QPT_RC, 4);
	to_init(qp);
	cr_assert_eq(ibv_post_recv(qp, &r, &bad), 0);
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	cr_assert_eq(poll(&pfd, 1, 0), 0, "nothing yet");
	cr_assert_eq(ibv_req_notify_cq(cq, 0), 0);
	cr_assert_eq(ibv_modify_qp(qp, &err, IBV_QP_STATE), 0);
	cr_assert_eq(poll(&pfd, 1, 5000), 1, "the channel fd wakes poll()");
	cr_assert_eq(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	cr_assert_eq(ev_cq, cq);
	cr_assert_eq(ibv_poll_cq(cq, 1, &wc), 1);
	cr_assert_eq(wc.wr_id, 7);
	cr_assert_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
	cr_assert_eq(ibv_destroy_comp_channel(ch), EBUSY, "CQ uses it");
	ibv_ack_cq_events(cq, 1);
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
	cr_assert_eq(ibv_destroy_comp_channel(ch), 0);
}

static void
expect_async(enum ibv_event_type type)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	cr_assert_eq(poll(&pfd, 1, 5000), 1, "async fd wakes poll()");
	cr_assert_eq(pfd.revents, POLLIN);
	cr_assert_eq(ibv_get_async_event(ctx, &ev), 0, "%s", strerror(errno));
	cr_assert_eq(ev.event_type, type, "got %s",
		     ibv_event_type_str(ev.event_type));
	ibv_ack_async_event(&ev);
}

Test(verbs, cq_overrun_raises_cq_err)
{
	struct ibv_cq *cq = cq_new(1, NULL);
	struct ibv_qp *qp = qp_new(cq, IBV_QPT_RC, 4);
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_recv_wr r = { .wr_id = 1 }, *bad;
	int i;

	to_init(qp);
	for (i = 0; i < 3; i++)
		cr_assert_eq(ibv_post_recv(qp, &r, &bad), 0);
	cr_assert_eq(ibv_modify_qp(qp, &err, IBV_QP_STATE), 0);
	expect_async(IBV_EVENT_CQ_ERR);
}

/* An event still queued when its QP is destroyed is taken back, as uverbs
 * drops a destroyed object's events: nobody is handed a freed QP (UCX's
 * async thread was, under ASan). */
Test(verbs, destroy_qp_takes_back_its_queued_events)
{
	struct ibv_cq *cq = cq_new(4, NULL);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	struct ibv_qp_init_attr a = { .send_cq = cq, .recv_cq = cq,
		.srq = srq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 } };
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	struct ibv_qp *qp;
	int fl = fcntl(ctx->async_fd, F_GETFL);

	cr_assert_not_null(srq);
	qp = ibv_create_qp(pd, &a);
	cr_assert_not_null(qp);
	to_init(qp);
	cr_assert_eq(ibv_modify_qp(qp, &err, IBV_QP_STATE), 0);
	cr_assert_eq(poll(&pfd, 1, 5000), 1, "LAST_WQE_REACHED queued");
	cr_assert_eq(ibv_destroy_qp(qp), 0);
	cr_assert_eq(fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	cr_assert_eq(ibv_get_async_event(ctx, &ev), -1, "no event of a freed QP");
	cr_assert_eq(errno, EAGAIN);
	cr_assert_eq(fcntl(ctx->async_fd, F_SETFL, fl), 0);
	cr_assert_eq(ibv_destroy_srq(srq), 0);
	cr_assert_eq(ibv_destroy_cq(cq), 0);
}

Test(verbs, port_down_and_up_events)
{
	cr_assert_eq(rte_eth_dev_set_link_down(ring_a), 0);
	expect_async(IBV_EVENT_PORT_ERR);
	cr_assert_eq(rte_eth_dev_set_link_up(ring_a), 0);
	expect_async(IBV_EVENT_PORT_ACTIVE);
}
