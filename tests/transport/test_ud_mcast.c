/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD multicast between two rxd ports in one process (net_ring pair):
 * ibv_attach_mcast/ibv_detach_mcast errors and limits as ibv_query_device
 * gives them; a SEND to an IPv4 and an IPv6 group reaches each attached
 * QP once, byte-exact, with the group in the GRH area; a QP with another
 * Q_Key gets nothing (counted); a group nobody joined takes the SEND
 * (the sender completes) and delivers nothing (counted); after a detach
 * nothing more arrives; joins and leaves are reported (IGMP/MLD).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define BUF (1u << 20)
#define QKEY 0x01234567
#define SLOT 2048
#define MSGS 8
#define MSG_LEN 700
#define MCAST_QPN 0xFFFFFF

static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = BUF, .wr = 64,
	.access = IBV_ACCESS_REMOTE_WRITE, .timeout = 14, .retry_cnt = 7,
	.rnr_retry = 7, .min_rnr_timer = 1, .mtu = IBV_MTU_1024,
};

RC_PAIR_SUITE(ud_mcast, opts, 120);

/* 239.1.2.3 and ff0e::1:2:3 */
static const union ibv_gid group4 = { .raw = { [10] = 0xff, 0xff,
	239, 1, 2, 3 } };
static const union ibv_gid group6 = { .raw = { 0xff, 0x0e, [11] = 1,
	[13] = 2, [15] = 3 } };

static struct ibv_qp *
new_qp(struct rc_end *e, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = { .send_cq = e->cq, .recv_cq = e->cq,
		.qp_type = type, .cap = { .max_send_wr = 64,
		.max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *qp = ibv_create_qp(e->pd, &a);

	cr_assert_not_null(qp);
	return qp;
}

static struct ibv_qp *
ud_qp(struct rc_end *e, uint32_t qkey)
{
	struct ibv_qp *qp = new_qp(e, IBV_QPT_UD);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qkey = qkey };

	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_QKEY), 0);
	a.qp_state = IBV_QPS_RTR;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
	return qp;
}

static struct ibv_ah *
group_ah(const union ibv_gid *g)
{
	struct ibv_ah_attr a = { .is_global = 1, .port_num = 1,
		.grh = { .dgid = *g, .hop_limit = 1 } };
	struct ibv_ah *ah;

	/* GID 1 is 10.0.0.1; GID 0 the link-local address, for IPv6 */
	a.grh.sgid_index = (g->raw[0] == 0xff) ? 0 : 1;
	ah = ibv_create_ah(p.a.pd, &a);
	cr_assert_not_null(ah);
	return ah;
}

static void
pattern(uint8_t *b, uint32_t len, unsigned int seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static void
send_msg(struct ibv_qp *qp, struct ibv_ah *ah, unsigned int i)
{
	uint8_t *src = p.a.buf + (size_t)i * SLOT;
	struct ibv_sge sge = { (uintptr_t)src, MSG_LEN, p.a.mr->lkey };
	struct ibv_send_wr w = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	pattern(src, MSG_LEN, i);
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = MCAST_QPN;
	w.wr.ud.remote_qkey = QKEY;
	cr_assert_eq(ibv_post_send(qp, &w, &bad), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 5000), 1, "send %u completes", i);
	cr_assert_eq(wc.status, IBV_WC_SUCCESS);
}

/* Receive slots: QP r's message i lands at slot (r * MSGS + i). */
static void
post_recvs(struct ibv_qp *qp, unsigned int r)
{
	unsigned int i;

	for (i = 0; i < MSGS; i++) {
		size_t off = (size_t)(r * MSGS + i) * SLOT;
		struct ibv_sge sge = { (uintptr_t)p.b.buf + off, SLOT,
			p.b.mr->lkey };
		struct ibv_recv_wr w = { .wr_id = r * MSGS + i,
			.sg_list = &sge, .num_sge = 1 }, *bad;

		cr_assert_eq(ibv_post_recv(qp, &w, &bad), 0);
	}
}

static struct rxd_port_counters
counters_b(void)
{
	struct rxd_port_counters c;

	cr_assert_eq(rxd_port_counters(1, &c), 0);
	return c;
}

Test(ud_mcast, attach_errors_and_limits)
{
	struct ibv_qp *ud = new_qp(&p.b, IBV_QPT_UD), *more[17];
	union ibv_gid unicast = { .raw = { [10] = 0xff, 0xff, 10, 0, 0, 2 } };
	union ibv_gid g = group4;
	struct ibv_device_attr da;
	unsigned int i;

	cr_assert_eq(ibv_query_device(p.b.ctx, &da), 0);
	cr_assert_eq(da.max_mcast_grp, 64);
	cr_assert_eq(da.max_mcast_qp_attach, 16);
	cr_assert_eq(da.max_total_mcast_qp_attach, 64 * 16);

	cr_assert_eq(ibv_attach_mcast(p.b.qp, &g, 0), EINVAL, "RC QP");
	cr_assert_eq(ibv_attach_mcast(ud, &unicast, 0), EINVAL, "unicast");
	cr_assert_eq(ibv_detach_mcast(ud, &g, 0), EINVAL, "not attached");
	cr_assert_eq(ibv_attach_mcast(ud, &g, 0), 0);
	cr_assert_eq(ibv_attach_mcast(ud, &g, 0), 0, "twice: once");
	cr_assert_eq(ibv_destroy_qp(ud), EBUSY, "attached");
	cr_assert_eq(ibv_detach_mcast(ud, &g, 0), 0);
	cr_assert_eq(ibv_detach_mcast(ud, &g, 0), EINVAL, "detached once");

	/* max_mcast_grp groups on one QP, then no more */
	for (i = 0; i < (unsigned int)da.max_mcast_grp; i++) {
		g.raw[15] = (uint8_t)i;
		cr_assert_eq(ibv_attach_mcast(ud, &g, 0), 0, "group %u", i);
	}
	g.raw[14] = 9;
	cr_assert_eq(ibv_attach_mcast(ud, &g, 0), ENOMEM, "group table full");
	g.raw[14] = 2;
	for (i = 0; i < (unsigned int)da.max_mcast_grp; i++) {
		g.raw[15] = (uint8_t)i;
		cr_assert_eq(ibv_detach_mcast(ud, &g, 0), 0, "group %u", i);
	}

	/* max_mcast_qp_attach QPs on one group, then no more */
	g = group6;
	cr_assert_eq(ibv_attach_mcast(ud, &g, 0), 0);
	for (i = 0; i < 16; i++) {
		more[i] = new_qp(&p.b, IBV_QPT_UD);
		cr_assert_eq(ibv_attach_mcast(more[i], &g, 0),
			     i < 15 ? 0 : ENOMEM, "QP %u", i);
	}
	for (i = 0; i < 15; i++) {
		cr_assert_eq(ibv_detach_mcast(more[i], &g, 0), 0);
		cr_assert_eq(ibv_destroy_qp(more[i]), 0);
	}
	cr_assert_eq(ibv_destroy_qp(more[15]), 0);
	cr_assert_eq(ibv_detach_mcast(ud, &g, 0), 0);
	cr_assert_eq(ibv_destroy_qp(ud), 0);
}

/* Two receivers on rxd1 and one on rxd0's peer side with another Q_Key. */
static void
two_receivers(const union ibv_gid *g)
{
	struct ibv_qp *tx = ud_qp(&p.a, QKEY), *rx[2], *wrong;
	struct ibv_ah *ah = group_ah(g);
	struct rxd_port_counters before = counters_b(), after;
	unsigned int got[2][MSGS] = { { 0 } }, i, r, n = 0;
	struct ibv_wc wc[4];
	int k, c;

	for (r = 0; r < 2; r++) {
		rx[r] = ud_qp(&p.b, QKEY);
		post_recvs(rx[r], r);
		cr_assert_eq(ibv_attach_mcast(rx[r], g, 0), 0);
	}
	wrong = ud_qp(&p.b, QKEY + 1);
	post_recvs(wrong, 2);
	cr_assert_eq(ibv_attach_mcast(wrong, g, 0), 0);
	for (i = 0; i < MSGS; i++)
		send_msg(tx, ah, i);
	while (n < 2 * MSGS && (c = rc_poll(p.b.cq, wc, 4, 5000)) > 0) {
		for (k = 0; k < c; k++, n++) {
			uint8_t want[MSG_LEN], *grh;

			cr_assert_eq(wc[k].status, IBV_WC_SUCCESS);
			cr_assert_neq(wc[k].qp_num, wrong->qp_num,
				      "the other Q_Key gets nothing");
			r = wc[k].qp_num == rx[0]->qp_num ? 0 : 1;
			cr_assert_eq(wc[k].qp_num, rx[r]->qp_num);
			cr_assert_eq(wc[k].src_qp, tx->qp_num);
			cr_assert_eq(wc[k].byte_len, 40 + MSG_LEN);
			cr_assert_eq(wc[k].sl, g->raw[0] == 0xff ? 0x9 : 0xa,
				     "SL = RoCEv2 over IPv6 or IPv4 (mlx5's)");
			i = (unsigned int)wc[k].wr_id - r * MSGS;
			got[r][i]++;
			grh = p.b.buf + wc[k].wr_id * SLOT;
			pattern(want, MSG_LEN, i);
			cr_assert_arr_eq(grh + 40, want, MSG_LEN,
					 "QP %u message %u byte-exact", r, i);
			if (g->raw[0] == 0xff)
				cr_assert_arr_eq(grh + 24, g->raw, 16,
						 "group in the GRH");
			else
				cr_assert_arr_eq(grh + 36, g->raw + 12, 4,
						 "group in the IPv4 header");
		}
	}
	cr_assert_eq(n, 2 * MSGS, "each of two QPs gets each message");
	for (r = 0; r < 2; r++)
		for (i = 0; i < MSGS; i++)
			cr_assert_eq(got[r][i], 1, "QP %u message %u once", r,
				     i);
	cr_assert_eq(rc_poll(p.b.cq, wc, 1, 200), 0, "nothing more");
	after = counters_b();
	cr_assert_eq(after.qkey_viol - before.qkey_viol, MSGS,
		     "the other Q_Key's drops are counted");
	cr_assert_geq(after.group_reports_tx - before.group_reports_tx, 1,
		      "the join was reported");

	/* detached: nothing arrives, the frames are counted as such */
	before = counters_b();
	for (r = 0; r < 2; r++)
		cr_assert_eq(ibv_detach_mcast(rx[r], g, 0), 0);
	cr_assert_eq(ibv_detach_mcast(wrong, g, 0), 0);
	for (r = 0; r < 2; r++)
		post_recvs(rx[r], r);
	for (i = 0; i < 3; i++)
		send_msg(tx, ah, i);
	cr_assert_eq(rc_poll(p.b.cq, wc, 1, 300), 0, "no member, no data");
	after = counters_b();
	cr_assert_eq(after.roce_mcast_no_member - before.roce_mcast_no_member,
		     3);
	cr_assert_geq(after.group_reports_tx - before.group_reports_tx, 1,
		      "the leave was reported");
	for (r = 0; r < 2; r++)
		ibv_destroy_qp(rx[r]);
	ibv_destroy_qp(wrong);
	ibv_destroy_qp(tx);
	ibv_destroy_ah(ah);
}

Test(ud_mcast, ipv4_group_two_receivers)
{
	two_receivers(&group4);
}

Test(ud_mcast, ipv6_group_two_receivers)
{
	two_receivers(&group6);
}

/* A group nobody joined: the sender completes, nothing is delivered. */
Test(ud_mcast, send_to_group_without_member)
{
	struct ibv_qp *tx = ud_qp(&p.a, QKEY), *rx = ud_qp(&p.b, QKEY);
	struct ibv_ah *ah = group_ah(&group4);
	struct rxd_port_counters before = counters_b(), after;
	struct ibv_wc wc;

	post_recvs(rx, 0);
	send_msg(tx, ah, 0);
	send_msg(tx, ah, 1);
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 300), 0);
	after = counters_b();
	cr_assert_eq(after.roce_mcast_no_member - before.roce_mcast_no_member,
		     2);
	cr_assert_eq(ibv_destroy_qp(rx), 0);
	cr_assert_eq(ibv_destroy_qp(tx), 0);
	cr_assert_eq(ibv_destroy_ah(ah), 0);
}
