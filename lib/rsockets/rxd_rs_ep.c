/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: an rsocket's endpoint.  Creates and destroys its CQ, RC QP,
 * send and receive buffers and target buffer list (the SGL slots the peer
 * writes credits into, then its iomap slots), posts the receives that
 * immediate data consumes, and turns the connection data of either side
 * into the first credits.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "rxd_rs.h"

#define RBUF_MIN 4096u

static uint16_t
clamp_depth(uint16_t want, int max)
{
	int top = max < RXD_RS_QP_MAX ? max : RXD_RS_QP_MAX;

	if (want > top)
		return (uint16_t)top;
	return want < RXD_RS_QP_MIN ? RXD_RS_QP_MIN : want;
}

static size_t
target_len(const struct rxd_rs *rs)
{
	return RXD_RS_SGL_SIZE * RXD_RS_SGE_LEN +
		(size_t)rs->tun.iomap_size * RXD_RS_IOMAP_LEN;
}

static int
post_recvs(struct rxd_rs *rs, unsigned int n)
{
	struct ibv_recv_wr wr = { .wr_id = 0 }, *bad;

	while (n-- > 0)
		if (ibv_post_recv(rs->id->qp, &wr, &bad) != 0)
			return errno ? errno : ENOMEM;
	return 0;
}

static int
create_qp(struct rxd_rs *rs)
{
	struct ibv_device_attr dev;
	struct ibv_qp_init_attr a;

	if (ibv_query_device(rs->id->verbs, &dev) != 0)
		return EIO;
	rs->tun.sq_size = clamp_depth(rs->tun.sq_size, dev.max_qp_wr);
	rs->tun.rq_size = clamp_depth(rs->tun.rq_size, dev.max_qp_wr);
	rs->cq = ibv_create_cq(rs->id->verbs,
			       rs->tun.sq_size + rs->tun.rq_size, rs, NULL, 0);
	if (rs->cq == NULL)
		return ENOMEM;
	memset(&a, 0, sizeof(a));
	a.qp_context = rs;
	a.send_cq = rs->cq;
	a.recv_cq = rs->cq;
	a.qp_type = IBV_QPT_RC;
	a.sq_sig_all = 1;
	a.cap.max_send_wr = rs->tun.sq_size;
	a.cap.max_recv_wr = rs->tun.rq_size;
	a.cap.max_send_sge = 2;
	a.cap.max_recv_sge = 1;
	/* SGL and iomap records always go inline, whatever RDMA_INLINE says */
	a.cap.max_inline_data = rs->tun.sq_inline > RXD_RS_IOMAP_LEN ?
		rs->tun.sq_inline : RXD_RS_IOMAP_LEN;
	if (rdma_create_qp(rs->id, NULL, &a) != 0)
		return errno ? errno : ENOMEM;
	return 0;
}

static int
create_bufs(struct rxd_rs *rs)
{
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_pd *pd = rs->id->qp->pd;

	if (rs->tun.rbuf_size < RBUF_MIN)
		rs->tun.rbuf_size = RBUF_MIN;
	rs->tun.rbuf_size &= ~1u;
	if (rs->tun.sbuf_size < 2 * RXD_RS_SNDLOWAT)
		rs->tun.sbuf_size = 2 * RXD_RS_SNDLOWAT;
	rs->rmsg = calloc(rs->tun.rq_size + 1u, sizeof(*rs->rmsg));
	rs->sbuf = malloc(rs->tun.sbuf_size);
	rs->rbuf = malloc(rs->tun.rbuf_size);
	rs->target = calloc(1, target_len(rs));
	if (rs->rmsg == NULL || rs->sbuf == NULL || rs->rbuf == NULL ||
	    rs->target == NULL)
		return ENOMEM;
	rs->smr = ibv_reg_mr(pd, rs->sbuf, rs->tun.sbuf_size,
			     IBV_ACCESS_LOCAL_WRITE);
	rs->rmr = ibv_reg_mr(pd, rs->rbuf, rs->tun.rbuf_size, rw);
	rs->tmr = ibv_reg_mr(pd, rs->target, target_len(rs), rw);
	if (rs->smr == NULL || rs->rmr == NULL || rs->tmr == NULL)
		return ENOMEM;
	return 0;
}

/* Credits before the peer's first word: half of rbuf is advertised in
 * the connection data, the other half follows as the first SGL update. */
static void
init_credits(struct rxd_rs *rs)
{
	rs->rbuf_free_offset = rs->tun.rbuf_size / 2;
	rs->rbuf_avail = rs->tun.rbuf_size / 2;
	rs->sqe_avail = rs->tun.sq_size - RXD_RS_CTRL_SLOTS;
	rs->ctrl_max_seqno = RXD_RS_CTRL_SLOTS;
	rs->rseq_comp = rs->tun.rq_size / 2;
	rs->sbuf_avail = rs->tun.sbuf_size;
	rs->last_activity_ns = rxd_rs_now_ns();
}

int
rxd_rs_ep_create(struct rxd_rs *rs)
{
	int rc = create_qp(rs);

	if (rc == 0)
		rc = create_bufs(rs);
	if (rc == 0)
		rc = post_recvs(rs, rs->tun.rq_size);
	if (rc == 0)
		init_credits(rs);
	return rc;
}

void
rxd_rs_ep_conn_data(const struct rxd_rs *rs, uint8_t *out)
{
	struct rxd_rs_conn c = {
		.version = RXD_RS_VERSION,
		.flags = rxd_rs_conn_flags(),
		.credits = rs->tun.rq_size,
		.iomap_scaled = rxd_rs_scale_encode(rs->tun.iomap_size),
		.target_sgl = {
			.addr = (uintptr_t)rs->target,
			.key = rs->tmr->rkey,
			.length = RXD_RS_SGL_SIZE,
		},
		.data_buf = {
			.addr = (uintptr_t)rs->rbuf,
			.key = rs->rmr->rkey,
			.length = rs->tun.rbuf_size / 2,
		},
	};

	rxd_rs_conn_pack(&c, out);
}

int
rxd_rs_ep_peer_data(struct rxd_rs *rs, const void *pdata, uint8_t len)
{
	struct rxd_rs_conn c;
	int rc = rxd_rs_conn_unpack(pdata, len, &c);

	if (rc != 0)
		return rc;
	if (c.target_sgl.length == 0)
		return EPROTO;
	rs->remote_sgl = c.target_sgl;
	rs->remote_sge = 1 % c.target_sgl.length;
	rs->swap = rxd_rs_conn_swap(c.flags);
	if (c.flags & RXD_RS_CONN_FLAG_IOMAP) {
		rs->remote_iomap.addr = c.target_sgl.addr +
			(uint64_t)RXD_RS_SGE_LEN * c.target_sgl.length;
		rs->remote_iomap.length = rxd_rs_scale_decode(c.iomap_scaled);
		rs->remote_iomap.key = c.target_sgl.key;
	}
	rxd_rs_sge_pack(&c.data_buf, false, rs->target);
	rs->sseq_comp = c.credits;
	return 0;
}

void
rxd_rs_ep_destroy(struct rxd_rs *rs)
{
	if (rs->id != NULL && rs->id->qp != NULL)
		rdma_destroy_qp(rs->id);
	if (rs->smr != NULL)
		ibv_dereg_mr(rs->smr);
	if (rs->rmr != NULL)
		ibv_dereg_mr(rs->rmr);
	if (rs->tmr != NULL)
		ibv_dereg_mr(rs->tmr);
	if (rs->cq != NULL)
		ibv_destroy_cq(rs->cq);
	if (rs->id != NULL)
		rdma_destroy_id(rs->id);
	free(rs->rmsg);
	free(rs->sbuf);
	free(rs->rbuf);
	free(rs->target);
	rs->id = NULL;
	rs->smr = rs->rmr = rs->tmr = NULL;
	rs->cq = NULL;
	rs->rmsg = NULL;
	rs->sbuf = rs->rbuf = rs->target = NULL;
}
