/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two engines on each port (engines_per_port = 2, net_ring pair with a
 * queue per engine: RXD_STEERING=none, no lanes, so that the hand-off is
 * what brings frames to their QP's engine): 16 RC QP pairs sharing one CQ
 * per side.  Every QP is
 * owned by the engine its QPN names (QP1 by the first), no QP by two;
 * frames that reached the other engine were handed off and counted, none
 * dropped; every message arrives, in order within its QP.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define PAIRS 16
#define MSGS 64
#define SLOT 64

static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = PAIRS * MSGS * SLOT, .wr = 512,
	.access = IBV_ACCESS_REMOTE_WRITE, .timeout = 14, .retry_cnt = 7,
	.rnr_retry = 7, .min_rnr_timer = 1, .mtu = IBV_MTU_1024,
};

static struct rc_pair p;
static struct ibv_qp *qa[PAIRS], *qb[PAIRS], *spare;

static void
shard_start(void)
{
	setenv("RXD_ENGINES_PER_PORT", "2", 1);
	setenv("RXD_STEERING", "none", 1);
	rc_pair_start(&p, &opts);
}

static void
shard_stop(void)
{
	unsigned int i;

	if (spare != NULL)
		ibv_destroy_qp(spare);
	for (i = 0; i < PAIRS; i++) {
		if (qa[i] != NULL)
			ibv_destroy_qp(qa[i]);
		if (qb[i] != NULL)
			ibv_destroy_qp(qb[i]);
	}
	rc_pair_stop(&p);
}

TestSuite(shard, .init = shard_start, .fini = shard_stop, .timeout = 240);

/*
 * Each port numbers its QPs alike, and queue q of one port reaches queue
 * q of the other: the first half of the pairs have QPNs of the same
 * parity (their frames reach the owner directly), a spare QP on b shifts
 * the second half's (every frame of theirs needs a hand-off).
 */
static void
connect_pairs(void)
{
	unsigned int i;

	for (i = 0; i < PAIRS; i++) {
		if (i == PAIRS / 2)
			spare = rc_create_qp(&p.b, &opts);
		qa[i] = rc_create_qp(&p.a, &opts);
		qb[i] = rc_create_qp(&p.b, &opts);
		rc_connect_qp(qa[i], qb[i]->qp_num, 2, 1, &opts);
		rc_connect_qp(qb[i], qa[i]->qp_num, 1, 1, &opts);
	}
}

static int
pair_of(uint32_t qpn)
{
	int i;

	for (i = 0; i < PAIRS; i++)
		if (qb[i]->qp_num == qpn)
			return i;
	return -1;
}

static void
post_recvs(void)
{
	unsigned int i, k;

	for (i = 0; i < PAIRS; i++)
		for (k = 0; k < MSGS; k++) {
			struct ibv_sge sge = { .lkey = p.b.mr->lkey,
				.addr = (uintptr_t)(p.b.buf +
					(i * MSGS + k) * SLOT),
				.length = SLOT };
			struct ibv_recv_wr r = { .wr_id = k, .sg_list = &sge,
				.num_sge = 1 }, *bad;

			cr_assert_eq(ibv_post_recv(qb[i], &r, &bad), 0);
		}
}

static void
post_sends(void)
{
	struct ibv_sge sge = { .addr = (uintptr_t)p.a.buf, .length = 8,
		.lkey = p.a.mr->lkey };
	unsigned int i, k;

	for (k = 0; k < MSGS; k++)
		for (i = 0; i < PAIRS; i++) {
			struct ibv_send_wr w = { .wr_id = k, .sg_list = &sge,
				.num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM,
				.send_flags = IBV_SEND_SIGNALED,
				.imm_data = htonl(i << 16 | k) }, *bad;

			cr_assert_eq(ibv_post_send(qa[i], &w, &bad), 0);
		}
}

/* Every receive completes, in order within its QP. */
static void
check_receives(void)
{
	unsigned int next[PAIRS] = { 0 }, got = 0;
	struct ibv_wc wc[32];
	int n, j, i;

	while (got < PAIRS * MSGS) {
		n = rc_poll(p.b.cq, wc, 32, 20000);
		cr_assert_gt(n, 0, "%u of %u messages arrived", got,
			     PAIRS * MSGS);
		for (j = 0; j < n; j++) {
			cr_assert_eq(wc[j].status, IBV_WC_SUCCESS, "%s",
				     ibv_wc_status_str(wc[j].status));
			i = pair_of(wc[j].qp_num);
			cr_assert_geq(i, 0);
			cr_assert_eq(ntohl(wc[j].imm_data),
				     (uint32_t)i << 16 | next[i],
				     "QP pair %d: message out of order", i);
			next[i]++;
		}
		got += (unsigned int)n;
	}
	for (got = 0; got < PAIRS * MSGS; got += (unsigned int)n) {
		n = rc_poll(p.a.cq, wc, 32, 20000);
		cr_assert_gt(n, 0, "send completions missing");
		for (j = 0; j < n; j++)
			cr_assert_eq(wc[j].status, IBV_WC_SUCCESS);
	}
}

/* Engine e owns qpn on port: listed by it, by no other. */
static bool
owns(unsigned int e, unsigned int port, uint32_t qpn)
{
	uint32_t qpns[128];
	int n = rxd_engine_qps(e, port, qpns, 128), i;

	cr_assert_geq(n, 0);
	for (i = 0; i < n && i < 128; i++)
		if (qpns[i] == qpn)
			return true;
	return false;
}

static void
check_owner(unsigned int port, uint32_t qpn)
{
	/* port 0 is served by engines 0 then 1, port 1 by 1 then 0 */
	unsigned int shard = qpn == 1 ? 0 : qpn % 2;
	unsigned int want = (port + shard) % 2;

	cr_assert(owns(want, port, qpn), "port %u QP 0x%x not on engine %u",
		  port, qpn, want);
	cr_assert(!owns(1 - want, port, qpn), "port %u QP 0x%x on both",
		  port, qpn);
}

Test(shard, owner_only_handoffs_counted_in_order)
{
	struct rxd_engine_info e0, e1;
	unsigned int i;

	cr_assert_eq(rxd_engine_count(), 2);
	connect_pairs();
	post_recvs();
	post_sends();
	check_receives();
	for (i = 0; i < PAIRS; i++) {
		check_owner(0, qa[i]->qp_num);
		check_owner(1, qb[i]->qp_num);
	}
	cr_assert_eq(rxd_engine_info(0, &e0), 0);
	cr_assert_eq(rxd_engine_info(1, &e1), 0);
	cr_assert_gt(e0.qps, 0);
	cr_assert_gt(e1.qps, 0);
	cr_assert_eq(e0.handoff_dropped + e1.handoff_dropped, 0);
	/* at least one frame of each message of the shifted half */
	cr_assert_geq(e0.handoff_sent + e1.handoff_sent, PAIRS / 2 * MSGS,
		      "too few frames reached the other engine");
	cr_assert_eq(e0.handoff_sent + e1.handoff_sent,
		     e0.handoff_received + e1.handoff_received);
	cr_assert_gt(e0.busy_cycles, 0);
	cr_assert_gt(e1.busy_cycles, 0);
	cr_log_info("hand-offs: engine 0 sent %lu, engine 1 sent %lu",
		    (unsigned long)e0.handoff_sent,
		    (unsigned long)e1.handoff_sent);
}
