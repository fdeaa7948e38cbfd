/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The extended work-request API (ibv_wr_start ... ibv_wr_complete) on QPs
 * created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS.  Each ibv_wr_<opcode> call
 * opens a WQE in a per-QP batch, the ibv_wr_set_* calls complete it, and
 * ibv_wr_complete posts the whole batch or nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxd/rxd_flush.h"
#include "rxd_qp.h"

_Static_assert(offsetof(struct rxd_qp, wr_flush) ==
	       offsetof(struct rxd_qp_ex_flush, wr_flush),
	       "wr_flush must follow struct ibv_qp_ex as in rdma-core v45");

struct wr_batch {
	uint32_t n;
	int err;                     /**< first error, reported by complete */
	struct rxd_send_wqe w[];
};

static struct wr_batch *
batch(struct rxd_qp *qp)
{
	return qp->wr_batch;
}

static struct rxd_qp *
qp_of(struct ibv_qp_ex *x)
{
	return (struct rxd_qp *)x;
}

/* Open a new WQE of the batch for opcode op. */
static struct rxd_send_wqe *
open_wqe(struct ibv_qp_ex *x, enum ibv_wr_opcode op)
{
	struct rxd_qp *qp = qp_of(x);
	struct wr_batch *b = batch(qp);
	struct rxd_send_wqe *w;

	if (b->n >= qp->cap.max_send_wr ||
	    !rxd_wr_allowed(qp->qpx.qp_base.qp_type, op)) {
		b->err = b->err ? b->err :
			b->n >= qp->cap.max_send_wr ? ENOMEM : EINVAL;
		return NULL;
	}
	w = &b->w[b->n++];
	memset(w, 0, offsetof(struct rxd_send_wqe, sge));
	w->wr_id = x->wr_id;
	w->opcode = (uint8_t)op;
	w->flags = (uint16_t)x->wr_flags;
	if (qp->core.sq_sig_all)
		w->flags |= IBV_SEND_SIGNALED;
	return w;
}

static struct rxd_send_wqe *
cur_wqe(struct ibv_qp_ex *x)
{
	struct wr_batch *b = batch(qp_of(x));

	return b->n ? &b->w[b->n - 1] : NULL;
}

static void
wr_start(struct ibv_qp_ex *x)
{
	struct rxd_qp *qp = qp_of(x);

	pthread_spin_lock(&qp->sq_lock);
	batch(qp)->n = 0;
	batch(qp)->err = 0;
}

static int
wr_complete(struct ibv_qp_ex *x)
{
	struct rxd_qp *qp = qp_of(x);
	struct wr_batch *b = batch(qp);
	uint32_t i, busy = __atomic_load_n(&qp->sq_outstanding,
					   __ATOMIC_ACQUIRE);
	int rc = rxd_verbs_sq_open(qp) ? b->err : EINVAL;

	if (rc == 0 && busy + b->n > qp->cap.max_send_wr)
		rc = ENOMEM;
	for (i = 0; rc == 0 && i < b->n; i++)
		rc = rxd_verbs_sq_post(qp, &b->w[i]);
	pthread_spin_unlock(&qp->sq_lock);
	if (b->n)
		rxd_qp_doorbell(&qp->core);
	return rc;
}

static void
wr_abort(struct ibv_qp_ex *x)
{
	pthread_spin_unlock(&qp_of(x)->sq_lock);
}

static void
rdma(struct ibv_qp_ex *x, enum ibv_wr_opcode op, uint32_t rkey,
     uint64_t addr, __be32 imm)
{
	struct rxd_send_wqe *w = open_wqe(x, op);

	if (w == NULL)
		return;
	w->rkey = rkey;
	w->remote_addr = addr;
	w->imm_or_rkey = imm;
}

/* Applied by wr_complete (rxd_verbs_sq_post), in batch order. */
static void
wr_bind_mw(struct ibv_qp_ex *x, struct ibv_mw *mw, uint32_t rkey,
	   const struct ibv_mw_bind_info *info)
{
	struct rxd_send_wqe *w = open_wqe(x, IBV_WR_BIND_MW);

	if (w == NULL)
		return;
	w->rkey = rkey;
	w->bind.mw = mw;
	w->bind.info = *info;
}

static void
wr_local_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	struct rxd_send_wqe *w = open_wqe(x, IBV_WR_LOCAL_INV);

	if (w != NULL)
		w->imm_or_rkey = rkey;
}

static void
wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	rdma(x, IBV_WR_RDMA_WRITE, rkey, addr, 0);
}

static void
wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
		  __be32 imm)
{
	rdma(x, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void
wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	rdma(x, IBV_WR_RDMA_READ, rkey, addr, 0);
}

static void
wr_send(struct ibv_qp_ex *x)
{
	open_wqe(x, IBV_WR_SEND);
}

static void
wr_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	struct rxd_send_wqe *w = open_wqe(x, IBV_WR_SEND_WITH_IMM);

	if (w != NULL)
		w->imm_or_rkey = imm;
}

static void
wr_send_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	struct rxd_send_wqe *w = open_wqe(x, IBV_WR_SEND_WITH_INV);

	if (w != NULL)
		w->imm_or_rkey = rkey;
}

static void
atomic(struct ibv_qp_ex *x, enum ibv_wr_opcode op, uint32_t rkey,
       uint64_t addr, uint64_t compare_add, uint64_t swap)
{
	struct rxd_send_wqe *w = open_wqe(x, op);

	if (w == NULL)
		return;
	w->rkey = rkey;
	w->remote_addr = addr;
	w->compare_add = compare_add;
	w->swap = swap;
}

static void
wr_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
	   uint64_t compare, uint64_t swap)
{
	atomic(x, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

static void
wr_fetch_add(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t add)
{
	atomic(x, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

/* ATOMIC WRITE: the 8 bytes at atomic_wr travel inline in the WQE. */
static void
wr_atomic_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr,
		const void *atomic_wr)
{
	struct rxd_send_wqe *w = open_wqe(x, IBV_WR_ATOMIC_WRITE);

	if (w == NULL)
		return;
	w->rkey = rkey;
	w->remote_addr = addr;
	memcpy(w->inline_data, atomic_wr, 8);
	w->length = 8;
	w->flags |= IBV_SEND_INLINE;
}

static void set_error(struct ibv_qp_ex *x, int err);

/* FLUSH: placement type(s) and selectivity level as rdma-core v45 has. */
static void
wr_flush(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, size_t len,
	 uint8_t type, uint8_t level)
{
	struct rxd_send_wqe *w = open_wqe(x, (enum ibv_wr_opcode)RXD_WR_FLUSH);

	if (w == NULL)
		return;
	if (type == 0 || (type & ~(RXD_FLUSH_GLOBAL | RXD_FLUSH_PERSISTENT)) ||
	    level > RXD_FLUSH_MR || len > 0x80000000u) {
		set_error(x, EINVAL);
		return;
	}
	w->rkey = rkey;
	w->remote_addr = addr;
	w->length = (uint32_t)len;
	w->flush_type = type;
	w->flush_level = level;
}

static void
set_error(struct ibv_qp_ex *x, int err)
{
	struct wr_batch *b = batch(qp_of(x));

	if (b->err == 0)
		b->err = err;
}

/* Check the finished WQE as ibv_post_send would. */
static void
seal(struct ibv_qp_ex *x, struct rxd_send_wqe *w)
{
	struct rxd_qp *qp = qp_of(x);
	struct ibv_send_wr wr;
	struct ibv_sge sge[RXD_MAX_SGE];
	struct rxd_send_wqe copy;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = w->wr_id;
	wr.opcode = w->opcode;
	wr.send_flags = w->flags;
	if (w->num_sge) {
		memcpy(sge, w->sge, sizeof(sge[0]) * w->num_sge);
		wr.sg_list = sge;
		wr.num_sge = w->num_sge;
	}
	wr.wr.atomic.remote_addr = w->remote_addr;
	wr.wr.atomic.rkey = w->rkey;
	wr.wr.atomic.compare_add = w->compare_add;
	wr.wr.atomic.swap = w->swap;
	if (qp->qpx.qp_base.qp_type == IBV_QPT_UD)
		return; /* checked by open_wqe and wr_set_ud_addr */
	if (rxd_verbs_send_wqe(qp, &wr, &copy) != 0)
		set_error(x, EINVAL);
	else
		w->length = copy.length;
}

static void
wr_set_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *sg)
{
	struct rxd_send_wqe *w = cur_wqe(x);
	size_t i;

	if (w == NULL)
		return;
	if (n > qp_of(x)->cap.max_send_sge) {
		set_error(x, EINVAL);
		return;
	}
	w->num_sge = (uint8_t)n;
	w->length = 0;
	for (i = 0; i < n; i++) {
		w->sge[i] = sg[i];
		w->length += sg[i].length;
	}
	seal(x, w);
}

static void
wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr,
	   uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(x, 1, &sge);
}

static void
wr_set_inline_data_list(struct ibv_qp_ex *x, size_t n,
			const struct ibv_data_buf *buf)
{
	struct rxd_send_wqe *w = cur_wqe(x);
	size_t i, len = 0;

	if (w == NULL)
		return;
	for (i = 0; i < n; i++)
		len += buf[i].length;
	if (len > qp_of(x)->cap.max_inline_data) {
		set_error(x, EINVAL);
		return;
	}
	for (len = 0, i = 0; i < n; i++) {
		memcpy(w->inline_data + len, buf[i].addr, buf[i].length);
		len += buf[i].length;
	}
	w->num_sge = 0;
	w->length = (uint32_t)len;
	w->flags |= IBV_SEND_INLINE;
}

static void
wr_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t length)
{
	struct ibv_data_buf b = { .addr = addr, .length = length };

	wr_set_inline_data_list(x, 1, &b);
}

static void
wr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah, uint32_t remote_qpn,
	       uint32_t remote_qkey)
{
	struct rxd_send_wqe *w = cur_wqe(x);
	const struct rxd_ah *a = (const struct rxd_ah *)ah;

	if (w == NULL)
		return;
	if (ah == NULL) {
		set_error(x, EINVAL);
		return;
	}
	memcpy(w->ud.dgid, a->attr.grh.dgid.raw, sizeof(w->ud.dgid));
	w->ud.sgid_index = a->attr.grh.sgid_index;
	w->ud.hop_limit = a->attr.grh.hop_limit;
	w->ud.traffic_class = a->attr.grh.traffic_class;
	w->ud.flow_label = a->attr.grh.flow_label;
	w->ud.remote_qpn = remote_qpn;
	w->ud.remote_qkey = remote_qkey;
}

size_t
rxd_verbs_wr_batch_size(uint32_t max_send_wr)
{
	return sizeof(struct wr_batch) +
		max_send_wr * sizeof(struct rxd_send_wqe);
}

int
rxd_verbs_qp_ex_init(struct rxd_qp *qp)
{
	struct ibv_qp_ex *x = &qp->qpx;
	uint64_t f = qp->send_ops_flags;

	qp->wr_batch = calloc(1, rxd_verbs_wr_batch_size(qp->cap.max_send_wr));
	if (qp->wr_batch == NULL)
		return ENOMEM;
	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	x->wr_set_ud_addr = wr_set_ud_addr;
	if (f & IBV_QP_EX_WITH_RDMA_WRITE)
		x->wr_rdma_write = wr_rdma_write;
	if (f & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		x->wr_rdma_write_imm = wr_rdma_write_imm;
	if (f & IBV_QP_EX_WITH_RDMA_READ)
		x->wr_rdma_read = wr_rdma_read;
	if (f & IBV_QP_EX_WITH_SEND)
		x->wr_send = wr_send;
	if (f & IBV_QP_EX_WITH_SEND_WITH_IMM)
		x->wr_send_imm = wr_send_imm;
	if (f & IBV_QP_EX_WITH_SEND_WITH_INV)
		x->wr_send_inv = wr_send_inv;
	if (f & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		x->wr_atomic_cmp_swp = wr_cmp_swp;
	if (f & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		x->wr_atomic_fetch_add = wr_fetch_add;
	if (f & IBV_QP_EX_WITH_ATOMIC_WRITE)
		x->wr_atomic_write = wr_atomic_write;
	if (f & RXD_QP_EX_WITH_FLUSH)
		qp->wr_flush = wr_flush;
	if (f & IBV_QP_EX_WITH_BIND_MW)
		x->wr_bind_mw = wr_bind_mw;
	if (f & IBV_QP_EX_WITH_LOCAL_INV)
		x->wr_local_inv = wr_local_inv;
	return 0;
}
