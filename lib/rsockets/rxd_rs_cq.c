/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: the data path's engine room.  Polls an rsocket's CQ and
 * applies each completion (data queued, credits granted, control
 * messages, sends retired), grants credits back to the peer (an SGL
 * update naming the free half of the receive buffer, or a bare credit
 * message), probes a peer idle for a second with a 0-byte RDMA WRITE so
 * a dead peer surfaces as an error, and waits with back-off.
 */
#include <endian.h>
#include <sched.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "rxd_rs.h"

#define WR_RECV (1ull << 63)
#define POLL_BATCH 32

static uint64_t
wr_id_of(unsigned int kind, uint32_t bytes)
{
	return (uint64_t)kind << 32 | bytes;
}

int
rxd_rs_post_write(struct rxd_rs *rs, struct ibv_sge *sge, int nsge,
		  bool inl, uint64_t addr, uint32_t rkey, bool with_imm,
		  uint32_t imm, unsigned int kind, uint32_t bytes)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id_of(kind, bytes),
		.sg_list = sge,
		.num_sge = nsge,
		.opcode = with_imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
			IBV_WR_RDMA_WRITE,
		.send_flags = inl ? IBV_SEND_INLINE : 0,
		.imm_data = htobe32(imm),
	}, *bad;
	int rc;

	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	rc = ibv_post_send(rs->id->qp, &wr, &bad);
	return rc == 0 ? 0 : (errno ? errno : rc);
}

int
rxd_rs_post_msg(struct rxd_rs *rs, uint32_t imm, unsigned int kind)
{
	return rxd_rs_post_write(rs, NULL, 0, false, 0, 0, true, imm, kind, 0);
}

bool
rxd_rs_ctrl_avail(const struct rxd_rs *rs)
{
	return rs->ctrl_seqno != rs->ctrl_max_seqno;
}

static uint32_t
target_left(const struct rxd_rs *rs)
{
	struct rxd_rs_sge s;

	rxd_rs_sge_unpack(rs->target + rs->target_sge * RXD_RS_SGE_LEN,
			  false, &s);
	return s.length;
}

bool
rxd_rs_can_send(const struct rxd_rs *rs)
{
	return rs->phase == RXD_RS_CONNECTED && rs->writable &&
		rs->sqe_avail > 0 && rs->sbuf_avail >= RXD_RS_SNDLOWAT &&
		rs->sseq_no != rs->sseq_comp && target_left(rs) != 0;
}

bool
rxd_rs_sends_done(const struct rxd_rs *rs)
{
	return (int)(rs->ctrl_max_seqno - rs->ctrl_seqno) + rs->sqe_avail ==
		rs->tun.sq_size;
}

bool
rxd_rs_have_data(const struct rxd_rs *rs)
{
	return rs->rmsg != NULL && rs->rmsg_head != rs->rmsg_tail;
}

void
rxd_rs_close_with(struct rxd_rs *rs, int err)
{
	rs->readable = false;
	rs->writable = false;
	if (rs->phase != RXD_RS_CONNECT_ERROR)
		rs->phase = RXD_RS_CLOSED;
	if (err != 0 && rs->err == 0)
		rs->err = err;
}

static void
on_control(struct rxd_rs *rs, uint32_t what)
{
	if (what == RXD_RS_CTRL_DISCONNECT)
		rxd_rs_close_with(rs, 0);
	else if (what == RXD_RS_CTRL_SHUTDOWN && rs->writable)
		rs->readable = false;
	else if (what == RXD_RS_CTRL_SHUTDOWN)
		rxd_rs_close_with(rs, 0);
}

static void
on_recv(struct rxd_rs *rs, const struct ibv_wc *wc)
{
	uint32_t imm;

	if (!(wc->wc_flags & IBV_WC_WITH_IMM))
		return;
	imm = be32toh(wc->imm_data);
	switch (rxd_rs_imm_op(imm)) {
	case RXD_RS_OP_SGL:
		rs->sseq_comp = (uint16_t)rxd_rs_imm_data(imm);
		break;
	case RXD_RS_OP_CTRL:
		on_control(rs, rxd_rs_imm_data(imm));
		break;
	case RXD_RS_OP_DATA:
		rs->rmsg[rs->rmsg_tail] = rxd_rs_imm_data(imm);
		rs->rmsg_tail = (rs->rmsg_tail + 1) % (rs->tun.rq_size + 1u);
		break;
	default:   /* an iomap slot was written: nothing to do */
		break;
	}
}

static void
on_send(struct rxd_rs *rs, const struct ibv_wc *wc)
{
	unsigned int kind = (unsigned int)(wc->wr_id >> 32);
	uint32_t bytes = (uint32_t)wc->wr_id;

	switch (kind) {
	case RXD_RS_WR_DISCONNECT:
		rs->ctrl_max_seqno++;
		rxd_rs_close_with(rs, 0);
		break;
	case RXD_RS_WR_PROBE:
		rs->probe_out = false;
		rs->ctrl_max_seqno++;
		break;
	case RXD_RS_WR_CTRL:
		rs->ctrl_max_seqno++;
		break;
	default:
		rs->sqe_avail++;
		rs->sbuf_avail += bytes;
		break;
	}
	if (wc->status != IBV_WC_SUCCESS &&
	    (rs->phase == RXD_RS_CONNECTED || rs->phase == RXD_RS_ACCEPTING))
		rxd_rs_close_with(rs, ECONNRESET);
}

static void
repost_recvs(struct rxd_rs *rs, unsigned int n)
{
	struct ibv_recv_wr wr = { .wr_id = WR_RECV }, *bad;

	if (rs->phase != RXD_RS_CONNECTED && rs->phase != RXD_RS_ACCEPTING)
		return;
	while (n-- > 0)
		if (ibv_post_recv(rs->id->qp, &wr, &bad) != 0) {
			rxd_rs_close_with(rs, ECONNRESET);
			return;
		}
}

void
rxd_rs_poll_cq(struct rxd_rs *rs)
{
	struct ibv_wc wc[POLL_BATCH];
	unsigned int recvs = 0;
	int n, i;

	while ((n = ibv_poll_cq(rs->cq, POLL_BATCH, wc)) > 0) {
		rs->last_activity_ns = rxd_rs_now_ns();
		for (i = 0; i < n; i++) {
			if (wc[i].opcode & IBV_WC_RECV) {
				if (wc[i].status != IBV_WC_SUCCESS)
					continue;
				recvs++;
				on_recv(rs, &wc[i]);
			} else {
				on_send(rs, &wc[i]);
			}
		}
	}
	repost_recvs(rs, recvs);
}

static bool
owe_credits(const struct rxd_rs *rs)
{
	return (rs->rbuf_avail >= rs->tun.rbuf_size / 2 ||
		(int16_t)(rs->rseq_no - rs->rseq_comp) >= 0) &&
		rxd_rs_ctrl_avail(rs) && rs->phase == RXD_RS_CONNECTED;
}

/* The free half of rbuf goes to the peer's next SGL slot, with the
 * sequence number it may send up to; without a free half, only that. */
static void
send_credits(struct rxd_rs *rs)
{
	uint32_t half = rs->tun.rbuf_size / 2;
	uint32_t imm = rxd_rs_imm(RXD_RS_OP_SGL,
				  (uint16_t)(rs->rseq_no + rs->tun.rq_size));
	struct rxd_rs_sge s;
	uint8_t rec[RXD_RS_SGE_LEN];
	struct ibv_sge sge = { .addr = (uintptr_t)rec, .length = sizeof(rec) };
	int rc;

	rs->ctrl_seqno++;
	rs->rseq_comp = (uint16_t)(rs->rseq_no + rs->tun.rq_size / 2);
	if (rs->rbuf_avail < half) {
		rc = rxd_rs_post_msg(rs, imm, RXD_RS_WR_CTRL);
	} else {
		s.addr = (uintptr_t)rs->rbuf + rs->rbuf_free_offset;
		s.key = rs->rmr->rkey;
		s.length = half;
		rxd_rs_sge_pack(&s, rs->swap, rec);
		rc = rxd_rs_post_write(rs, &sge, 1, true, rs->remote_sgl.addr +
				       (uint64_t)rs->remote_sge * RXD_RS_SGE_LEN,
				       rs->remote_sgl.key, true, imm,
				       RXD_RS_WR_CTRL, 0);
		rs->rbuf_avail -= half;
		rs->rbuf_free_offset = (rs->rbuf_free_offset + half) %
			rs->tun.rbuf_size;
		rs->remote_sge = (rs->remote_sge + 1) % rs->remote_sgl.length;
	}
	if (rc != 0)
		rxd_rs_close_with(rs, ECONNRESET);
}

/* A 0-byte RDMA WRITE (rsockets' keepalive): a dead peer fails it. */
static void
probe_idle_peer(struct rxd_rs *rs)
{
	uint64_t now = rxd_rs_now_ns();

	if (rs->phase != RXD_RS_CONNECTED || rs->probe_out ||
	    !rxd_rs_ctrl_avail(rs) ||
	    now - rs->last_activity_ns < RXD_RS_PROBE_NS)
		return;
	rs->ctrl_seqno++;
	rs->probe_out = true;
	rs->last_activity_ns = now;
	if (rxd_rs_post_write(rs, NULL, 0, false, 0, 0, false, 0,
			      RXD_RS_WR_PROBE, 0) != 0)
		rxd_rs_close_with(rs, ECONNRESET);
}

void
rxd_rs_progress(struct rxd_rs *rs)
{
	if (rs->cq != NULL)
		rxd_rs_poll_cq(rs);
	if (rs->phase == RXD_RS_CONNECTED && owe_credits(rs))
		send_credits(rs);
	probe_idle_peer(rs);
	rxd_rs_conn_progress(rs);
}

void
rxd_rs_pause(struct rxd_rs *rs, unsigned int round)
{
	struct timespec ts = { 0, 0 };
	unsigned int shift = round < 8 ? 0 : round - 8;

	pthread_mutex_unlock(&rs->lock);
	if (round < 8) {
		sched_yield();
	} else {
		ts.tv_nsec = 20000L << (shift < 6 ? shift : 6);
		nanosleep(&ts, NULL);
	}
	pthread_mutex_lock(&rs->lock);
}
