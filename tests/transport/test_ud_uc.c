/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD and UC between two rxd ports in one process (net_ring pair): UD to
 * several QPs from one QP, Q_Key checks, the GRH area byte by byte, the
 * one-packet limit; UC under loss delivers whole messages or nothing.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define BUF (1u << 20)
#define QKEY 0x11111111

static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = BUF, .wr = 64,
	.access = IBV_ACCESS_REMOTE_WRITE, .timeout = 14, .retry_cnt = 7,
	.rnr_retry = 7, .min_rnr_timer = 1, .mtu = IBV_MTU_1024,
};

RC_PAIR_SUITE(ud_uc, opts, 120);

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

static void
ud_up(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qkey = QKEY };

	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_QKEY), 0);
	a.qp_state = IBV_QPS_RTR;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
}

static struct ibv_ah *
ah_to(struct rc_end *e, uint8_t octet)
{
	struct ibv_ah_attr a = { .is_global = 1, .port_num = 1,
		.grh = { .sgid_index = 1, .hop_limit = 64 } };
	struct ibv_ah *ah;

	a.grh.dgid.raw[10] = a.grh.dgid.raw[11] = 0xff;
	a.grh.dgid.raw[12] = 10;
	a.grh.dgid.raw[15] = octet;
	ah = ibv_create_ah(e->pd, &a);
	cr_assert_not_null(ah);
	return ah;
}

static int
ud_send(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey,
	uint64_t id, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)p.a.buf, len, p.a.mr->lkey };
	struct ibv_send_wr w = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;

	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = qpn;
	w.wr.ud.remote_qkey = qkey;
	return ibv_post_send(qp, &w, &bad);
}

static int
recv_on(struct ibv_qp *qp, uint64_t id, size_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)p.b.buf + off, len, p.b.mr->lkey };
	struct ibv_recv_wr r = { .wr_id = id, .sg_list = &sge, .num_sge = 1 },
		*bad;

	return ibv_post_recv(qp, &r, &bad);
}

Test(ud_uc, ud_to_several_qps_with_grh)
{
	struct ibv_qp *ua = new_qp(&p.a, IBV_QPT_UD);
	struct ibv_qp *ub[3];
	struct ibv_ah *ah = ah_to(&p.a, 2);
	struct ibv_wc wc[3];
	uint8_t *grh;
	int i;

	ud_up(ua);
	for (i = 0; i < 3; i++) {
		ub[i] = new_qp(&p.b, IBV_QPT_UD);
		ud_up(ub[i]);
		cr_assert_eq(recv_on(ub[i], (uint64_t)i, (size_t)i * 4096,
				     4096), 0);
	}
	for (i = 0; i < 3; i++) {
		memset(p.a.buf, 'a' + i, 512);
		cr_assert_eq(ud_send(ua, ah, ub[i]->qp_num, QKEY, (uint64_t)i,
				     512), 0);
		cr_assert_eq(rc_poll(p.a.cq, wc, 1, 5000), 1);
		cr_assert_eq(wc[0].status, IBV_WC_SUCCESS);
		cr_assert_eq(rc_poll(p.b.cq, wc, 1, 5000), 1);
		cr_assert_eq(wc[0].status, IBV_WC_SUCCESS);
		cr_assert_eq(wc[0].qp_num, ub[i]->qp_num, "to QP %d", i);
		cr_assert_eq(wc[0].src_qp, ua->qp_num);
		cr_assert_eq(wc[0].byte_len, 40 + 512);
		cr_assert(wc[0].wc_flags & IBV_WC_GRH);
		cr_assert_eq(wc[0].sl, 0xa, "SL = RoCEv2 over IPv4, as mlx5 "
			     "reports it (UCX's ud_verbs reads it)");
		grh = p.b.buf + (size_t)i * 4096;
		cr_assert_eq(grh[40], 'a' + i, "payload after the GRH area");
		cr_assert_eq(grh[40 + 511], 'a' + i);
	}
	/* GRH area for IPv4: 20 zero bytes, then the IPv4 header */
	grh = p.b.buf;
	for (i = 0; i < 20; i++)
		cr_assert_eq(grh[i], 0, "byte %d", i);
	cr_assert_eq(grh[20], 0x45, "IPv4, 20-byte header");
	cr_assert_eq(grh[22] << 8 | grh[23], 20 + 8 + 12 + 8 + 512 + 4,
		     "total length");
	cr_assert_eq(grh[29], 17, "UDP");
	cr_assert_eq(memcmp(grh + 32, "\x0a\x00\x00\x01", 4), 0, "source");
	cr_assert_eq(memcmp(grh + 36, "\x0a\x00\x00\x02", 4), 0, "dest");
	{
		uint32_t sum = 0;

		for (i = 0; i < 20; i += 2)
			sum += (uint32_t)(grh[20 + i] << 8 | grh[21 + i]);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		cr_assert_eq(sum, 0xffff, "the IPv4 checksum verifies");
	}
}

/* A reply to a received datagram: the AH comes from its completion. */
Test(ud_uc, ud_reply_with_ah_from_wc)
{
	struct ibv_qp *ua = new_qp(&p.a, IBV_QPT_UD);
	struct ibv_qp *ub = new_qp(&p.b, IBV_QPT_UD);
	struct ibv_ah *ah = ah_to(&p.a, 2), *back;
	struct ibv_sge sge = { (uintptr_t)p.a.buf + 8192, 4096, p.a.mr->lkey };
	struct ibv_recv_wr r = { .wr_id = 9, .sg_list = &sge, .num_sge = 1 },
		*rb;
	struct ibv_ah_attr attr;
	struct ibv_wc wc;

	ud_up(ua);
	ud_up(ub);
	cr_assert_eq(recv_on(ub, 1, 0, 4096), 0);
	cr_assert_eq(ibv_post_recv(ua, &r, &rb), 0);
	cr_assert_eq(ud_send(ua, ah, ub->qp_num, QKEY, 1, 100), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 5000), 1);
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 5000), 1);
	cr_assert_eq(ibv_init_ah_from_wc(p.b.ctx, 1, &wc,
					 (struct ibv_grh *)p.b.buf, &attr), 0);
	cr_assert_eq(attr.grh.dgid.raw[15], 1, "back to 10.0.0.1");
	cr_assert_eq(attr.grh.sgid_index, 1, "from our 10.0.0.2");
	back = ibv_create_ah_from_wc(p.b.pd, &wc, (struct ibv_grh *)p.b.buf, 1);
	cr_assert_not_null(back);
	{
		struct ibv_sge s2 = { (uintptr_t)p.b.buf + 4096, 50,
			p.b.mr->lkey };
		struct ibv_send_wr w = { .wr_id = 2, .sg_list = &s2,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED }, *bad;

		w.wr.ud.ah = back;
		w.wr.ud.remote_qpn = wc.src_qp;
		w.wr.ud.remote_qkey = QKEY;
		cr_assert_eq(ibv_post_send(ub, &w, &bad), 0);
	}
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 5000), 1, "reply sent");
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 5000), 1, "reply received");
	cr_assert_eq(wc.wr_id, 9);
	cr_assert_eq(wc.byte_len, 40 + 50);
}

Test(ud_uc, ud_wrong_qkey_is_dropped_and_counted)
{
	struct ibv_qp *ua = new_qp(&p.a, IBV_QPT_UD);
	struct ibv_qp *ub = new_qp(&p.b, IBV_QPT_UD);
	struct ibv_ah *ah = ah_to(&p.a, 2);
	struct ibv_port_attr pa;
	struct ibv_wc wc;

	ud_up(ua);
	ud_up(ub);
	cr_assert_eq(recv_on(ub, 1, 0, 4096), 0);
	cr_assert_eq(ud_send(ua, ah, ub->qp_num, QKEY + 1, 1, 64), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 5000), 1, "sent");
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 300), 0, "not received");
	cr_assert_eq(ibv_query_port(p.b.ctx, 1, &pa), 0);
	cr_assert_eq(pa.qkey_viol_cntr, 1);
	cr_assert_eq(ud_send(ua, ah, ub->qp_num, QKEY, 2, 64), 0);
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 5000), 1, "the right Q_Key works");
	cr_assert_eq(wc.wr_id, 1);
}

/* A receive WQE whose SGE names an MR of another PD is malformed: it
 * completes IBV_WC_LOC_QP_OP_ERR with nothing written, as on Soft-RoCE;
 * the next, good one takes the next message. */
Test(ud_uc, ud_receive_sge_of_another_pd)
{
	struct ibv_qp *ua = new_qp(&p.a, IBV_QPT_UD);
	struct ibv_qp *ub = new_qp(&p.b, IBV_QPT_UD);
	struct ibv_ah *ah = ah_to(&p.a, 2);
	struct ibv_pd *other = ibv_alloc_pd(p.b.ctx);
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct ibv_recv_wr r = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 },
		*bad;
	struct ibv_wc wc;
	uint8_t zero[256] = { 0 };

	cr_assert_not_null(other);
	mr = ibv_reg_mr(other, p.b.buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	cr_assert_not_null(mr);
	sge = (struct ibv_sge){ (uintptr_t)p.b.buf, 4096, mr->lkey };
	ud_up(ua);
	ud_up(ub);
	cr_assert_eq(ibv_post_recv(ub, &r, &bad), 0);
	memset(p.a.buf, 0x61, 64);
	cr_assert_eq(ud_send(ua, ah, ub->qp_num, QKEY, 1, 64), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 5000), 1, "sent");
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 5000), 1, "a completion");
	cr_assert_eq(wc.wr_id, 1);
	cr_assert_eq(wc.status, IBV_WC_LOC_QP_OP_ERR, "status %d", wc.status);
	cr_assert_arr_eq(p.b.buf, zero, sizeof(zero), "nothing written");
	cr_assert_eq(recv_on(ub, 2, 4096, 4096), 0);
	cr_assert_eq(ud_send(ua, ah, ub->qp_num, QKEY, 2, 64), 0);
	cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 5000), 1, "the next message");
	cr_assert_eq(wc.wr_id, 2);
	cr_assert_eq(wc.status, IBV_WC_SUCCESS);
	cr_assert_eq(ibv_dereg_mr(mr), 0);
	cr_assert_eq(ibv_dealloc_pd(other), 0);
}

Test(ud_uc, ud_message_above_mtu_refused_at_post)
{
	struct ibv_qp *ua = new_qp(&p.a, IBV_QPT_UD);
	struct ibv_ah *ah = ah_to(&p.a, 2);

	ud_up(ua);
	cr_assert_eq(ud_send(ua, ah, 0x20, QKEY, 1, 1025), EINVAL,
		     "1025 bytes above the 1024-byte IB MTU");
	cr_assert_eq(ud_send(ua, ah, 0x20, QKEY, 1, 1024), 0);
}

/* Drop CAP_NET_RAW from this (forked) test process. */
static void
drop_net_raw(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	cr_assert_eq(syscall(SYS_capget, &h, d), 0);
	d[CAP_NET_RAW / 32].effective &= ~(1u << (CAP_NET_RAW % 32));
	cr_assert_eq(syscall(SYS_capset, &h, d), 0);
}

Test(ud_uc, ud_privileged_qkey_needs_cap_net_raw)
{
	struct ibv_qp *ua = new_qp(&p.a, IBV_QPT_UD);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qkey = 0x80010000 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;

	drop_net_raw();
	cr_assert_eq(ibv_modify_qp(ua, &a, mask), EPERM,
		     "a privileged Q_Key without CAP_NET_RAW");
	cr_assert_eq(ua->state, IBV_QPS_RESET, "the QP did not move");
	a.qkey = 0x11111111;
	cr_assert_eq(ibv_modify_qp(ua, &a, mask), 0, "an ordinary Q_Key");
}

/* UC under 5% drop: every delivered message is whole and exact. */
static uint32_t
uc_len(uint32_t id)
{
	return 8 + (id * 997) % 6000;          /* 1..6 packets */
}

static uint8_t
uc_byte(uint32_t id, uint32_t i)
{
	return (uint8_t)(id * 7 + i * 13);
}

static unsigned int
uc_check(struct ibv_cq *cq, unsigned int ms)
{
	struct ibv_wc wc[64];
	unsigned int got = 0;
	int n, k;

	n = rc_poll(cq, wc, 64, ms);
	for (k = 0; k < n; k++) {
		const uint8_t *b = p.b.buf + wc[k].wr_id * 8192;
		uint32_t id, i;

		cr_assert_eq(wc[k].status, IBV_WC_SUCCESS);
		memcpy(&id, b, sizeof(id));
		cr_assert_eq(wc[k].byte_len, uc_len(id), "message %u whole", id);
		for (i = 4; i < uc_len(id); i++)
			cr_assert_eq(b[i], uc_byte(id, i), "message %u byte %u",
				     id, i);
		got++;
	}
	return got;
}

Test(ud_uc, uc_loss_delivers_whole_messages_only)
{
	struct rxd_conf_fault f = { .drop = 0.05, .drop_opcode = -1 };
	struct ibv_qp *ua = new_qp(&p.a, IBV_QPT_UC);
	struct ibv_qp *ub = new_qp(&p.b, IBV_QPT_UC);
	struct rc_opts o = opts;
	unsigned int id, got = 0, posted = 0, i;
	struct ibv_wc wc;

	o.access = 0;
	rc_connect_qp(ua, ub->qp_num, 2, 1, &o);
	rc_connect_qp(ub, ua->qp_num, 1, 1, &o);
	cr_assert_eq(rxd_fault_set(0, RXD_DIR_TX, &f, 5), 0);
	for (id = 0; id < 2000; id++) {
		uint32_t len = uc_len(id);
		struct ibv_sge sge = { (uintptr_t)p.a.buf, len, p.a.mr->lkey };
		struct ibv_send_wr w = { .wr_id = id, .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED }, *bad;

		/* a dropped message leaves its receive for the next one */
		while (posted - got < 16) {
			cr_assert_eq(recv_on(ub, posted % 32,
					     (size_t)(posted % 32) * 8192,
					     8192), 0);
			posted++;
		}
		for (i = 4; i < len; i++)
			p.a.buf[i] = uc_byte(id, i);
		memcpy(p.a.buf, &id, sizeof(id));
		cr_assert_eq(ibv_post_send(ua, &w, &bad), 0);
		cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 5000), 1);
		cr_assert_eq(wc.status, IBV_WC_SUCCESS);
		got += uc_check(p.b.cq, 1);
	}
	got += uc_check(p.b.cq, 300);
	cr_assert(got > 1000 && got < 2000, "%u of 2000 messages arrived", got);
	cr_log_info("UC at 5%% drop: %u of 2000 messages delivered whole", got);
}
