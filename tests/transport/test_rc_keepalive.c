/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC keepalive (port key keepalive_ms): a QP that heard its peer and then
 * hears nothing probes it; a live peer answers each probe and nothing
 * changes, a silent one (its port cut both ways, as a killed process is)
 * gets the QP to ERR with IBV_EVENT_QP_FATAL and its receives flushed,
 * after exactly retry_cnt + 1 probes.  A QP that never heard its peer
 * does not probe.
 */
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define KEEPALIVE_MS "200"

static struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = 65536, .wr = 16,
	.access = IBV_ACCESS_REMOTE_WRITE,
	.timeout = 12, .retry_cnt = 3, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

static struct rc_pair p;

static void
start(void)
{
	/* port 0 (a) only: b keeps the default 5 s, longer than a test */
	setenv("RXD_KEEPALIVE_MS", KEEPALIVE_MS, 1);
	rc_pair_start(&p, &opts);
}

static void
stop(void)
{
	rc_pair_stop(&p);
}

TestSuite(rc_keepalive, .init = start, .fini = stop, .timeout = 120);

static struct rxd_qp_stats
stats(unsigned int port, const struct ibv_qp *qp)
{
	struct rxd_qp_stats s;

	cr_assert_eq(rxd_qp_stats(port, qp->qp_num, &s), 0);
	return s;
}

static enum ibv_qp_state
state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	cr_assert_eq(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia), 0);
	return a.qp_state;
}

/* A SEND from a to b: both QPs have now heard each other. */
static void
exchange(void)
{
	struct ibv_wc wc;

	cr_assert_eq(rc_recv(&p.b, 1, 0, 64), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_SEND, 2, 0, 64, 0, 0,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 5000), 1);
	cr_assert_eq(wc.status, IBV_WC_SUCCESS);
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 5000), 1);
	cr_assert_eq(wc.status, IBV_WC_SUCCESS);
}

/* Whether an async event waits on a's context within ms. */
static bool
async_pending(unsigned int ms)
{
	struct pollfd pfd = { .fd = p.a.ctx->async_fd, .events = POLLIN };

	return poll(&pfd, 1, (int)ms) == 1;
}

Test(rc_keepalive, never_heard_no_probe)
{
	usleep(1000 * 1000);
	cr_assert_eq(stats(0, p.a.qp).keepalives, 0,
		     "a QP that never heard its peer probed it");
	cr_assert_eq(state(p.a.qp), IBV_QPS_RTS);
}

Test(rc_keepalive, live_peer_answers)
{
	struct rxd_qp_stats a0, b0, a1, b1;
	struct ibv_wc wc;

	exchange();
	a0 = stats(0, p.a.qp);
	b0 = stats(1, p.b.qp);
	usleep(1500 * 1000);
	a1 = stats(0, p.a.qp);
	b1 = stats(1, p.b.qp);
	cr_assert_geq(a1.keepalives, 2, "%lu probes in 1.5 s idle",
		      (unsigned long)a1.keepalives);
	/* each probe is a duplicate at b, answered by an ACK */
	cr_assert_geq(b1.duplicates - b0.duplicates, a1.keepalives - 1);
	cr_assert_geq(a1.rx_pkts - a0.rx_pkts, a1.keepalives - 1);
	cr_assert_eq(state(p.a.qp), IBV_QPS_RTS);
	cr_assert_eq(state(p.b.qp), IBV_QPS_RTS);
	cr_assert_eq(ibv_poll_cq(p.a.cq, 1, &wc), 0, "a completion appeared");
	cr_assert(!async_pending(0), "an async event on a live connection");
	exchange();                     /* and the connection still works */
}

Test(rc_keepalive, dead_peer_flushes)
{
	struct rxd_conf_fault cut = { .cut = true, .drop_opcode = -1 };
	struct ibv_async_event ev;
	struct ibv_wc wc[2];

	exchange();
	cr_assert_eq(rc_recv(&p.a, 10, 0, 64), 0);
	cr_assert_eq(rc_recv(&p.a, 11, 64, 64), 0);
	cr_assert_eq(rxd_fault_set(p.port_b, RXD_DIR_RX, &cut, 1), 0);
	cr_assert_eq(rxd_fault_set(p.port_b, RXD_DIR_TX, &cut, 2), 0);
	/* 200 ms idle, then 4 probes an ACK timeout (16.8 ms) apart, each
	 * looked at once per sweep (100 ms): about 0.7 s */
	cr_assert_eq(rc_poll(p.a.cq, wc, 2, 20000), 2,
		     "the receives of a QP whose peer went silent not flushed");
	cr_assert_eq(wc[0].status, IBV_WC_WR_FLUSH_ERR);
	cr_assert_eq(wc[0].wr_id, 10);
	cr_assert_eq(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	cr_assert_eq(wc[1].wr_id, 11);
	cr_assert_eq(state(p.a.qp), IBV_QPS_ERR);
	cr_assert_eq(stats(0, p.a.qp).keepalives, opts.retry_cnt + 1u);
	cr_assert(async_pending(5000), "no async event");
	cr_assert_eq(ibv_get_async_event(p.a.ctx, &ev), 0);
	cr_assert_eq(ev.event_type, IBV_EVENT_QP_FATAL);
	cr_assert_eq(ev.element.qp, p.a.qp);
	ibv_ack_async_event(&ev);
}
