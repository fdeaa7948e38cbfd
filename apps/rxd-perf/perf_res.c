/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Verbs resources of one side (see perf_res.h).  Only verbs calls here,
 * plus rte_rand() for PSNs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <rte_random.h>

#include "perf_res.h"

#define PSN_MASK 0xffffffu
#define HOP_LIMIT 64
#define MIN_RNR_TIMER 12           /* 0.64 ms, as perftest */
#define RETRY_CNT 7
#define RNR_RETRY_FOREVER 7

static struct ibv_context *
open_named(const char *name, char *found, size_t len)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (list == NULL || n == 0) {
		fprintf(stderr, "rxd-perf: no verbs device (no DPDK port?)\n");
		ibv_free_device_list(list);
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (name == NULL ||
		    strcmp(ibv_get_device_name(list[i]), name) == 0)
			break;
	if (i == n)
		fprintf(stderr, "rxd-perf: no device %s\n", name);
	else
		ctx = ibv_open_device(list[i]);
	if (ctx != NULL)
		snprintf(found, len, "%s", ibv_get_device_name(list[i]));
	else if (i < n)
		fprintf(stderr, "rxd-perf: cannot open %s: %s\n",
			ibv_get_device_name(list[i]), strerror(errno));
	ibv_free_device_list(list);
	return ctx;
}

static bool
gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(g->raw, prefix, sizeof(prefix)) == 0;
}

/* An entry beyond the port's addresses reads as zeros. */
static bool
gid_is_unused(const union ibv_gid *g)
{
	return g->global.subnet_prefix == 0 && g->global.interface_id == 0;
}

/* -x, or the first IPv4-mapped GID, or 0. */
static int
pick_gid(struct perf_res *r, int want)
{
	union ibv_gid g;
	int i;

	if (want >= 0) {
		if (ibv_query_gid(r->ctx, r->ib_port, want, &r->gid) == 0 &&
		    !gid_is_unused(&r->gid)) {
			r->gid_index = want;
			return 0;
		}
		fprintf(stderr, "rxd-perf: %s has no GID %d\n", r->dev_name,
			want);
		return -1;
	}
	for (i = 0; i < r->port.gid_tbl_len; i++)
		if (ibv_query_gid(r->ctx, r->ib_port, i, &g) == 0 &&
		    gid_is_v4(&g))
			break;
	r->gid_index = i < r->port.gid_tbl_len ? i : 0;
	return ibv_query_gid(r->ctx, r->ib_port, r->gid_index, &r->gid);
}

int
perf_res_open(struct perf_res *r, const char *name, const struct perf_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->ib_port = (uint8_t)o->ib_port;
	r->ctx = open_named(name, r->dev_name, sizeof(r->dev_name));
	if (r->ctx == NULL)
		return -1;
	if (sscanf(r->dev_name, "rxd%u", &r->rxd_port) != 1 ||
	    ibv_query_device(r->ctx, &r->dev) != 0 ||
	    ibv_query_port(r->ctx, r->ib_port, &r->port) != 0) {
		fprintf(stderr, "rxd-perf: cannot query %s\n", r->dev_name);
		return -1;
	}
	if (pick_gid(r, o->gid_index) != 0)
		return -1;
	r->mtu = o->mtu != 0 ? (unsigned int)ffs((int)(o->mtu >> 8))
			     : (unsigned int)r->port.active_mtu;
	if (r->mtu > (unsigned int)r->port.max_mtu) {
		fprintf(stderr, "rxd-perf: MTU %u is above %s's maximum\n",
			o->mtu, r->dev_name);
		return -1;
	}
	return 0;
}

/* Depths as perftest uses them, checked against the device. */
static int
set_depths(struct perf_res *r, const struct perf_opts *o)
{
	bool counted = o->duration == 0;
	uint32_t cqe = (uint32_t)r->dev.max_cqe;

	r->tx_depth = o->tx_depth;
	r->rx_depth = o->test->verb == PERF_SEND ? o->rx_depth : 1;
	if (counted && o->test->kind == PERF_BW && r->tx_depth > o->iters)
		r->tx_depth = (uint32_t)o->iters;
	if (counted && r->rx_depth > o->iters)
		r->rx_depth = (uint32_t)o->iters;
	if (r->tx_depth > (uint32_t)r->dev.max_qp_wr ||
	    r->rx_depth > (uint32_t)r->dev.max_qp_wr) {
		fprintf(stderr, "rxd-perf: queue depth %u is above %s's "
			"max_qp_wr %d\n", r->tx_depth > r->rx_depth ?
			r->tx_depth : r->rx_depth, r->dev_name,
			r->dev.max_qp_wr);
		return -1;
	}
	if (o->num_qps * r->tx_depth > cqe || o->num_qps * r->rx_depth > cqe) {
		fprintf(stderr, "rxd-perf: %u QPs x depth %u need more CQ "
			"entries than %s's max_cqe %u\n", o->num_qps,
			r->tx_depth > r->rx_depth ? r->tx_depth : r->rx_depth,
			r->dev_name, cqe);
		return -1;
	}
	return 0;
}

static int
create_buffer(struct perf_res *r, const struct perf_opts *o, uint64_t max)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t half = max > page ? (size_t)max : page;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	if (!o->uc)
		access |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	r->region = 2 * ((half + page - 1) & ~(page - 1));
	r->buf = aligned_alloc(page, r->region * o->num_qps);
	if (r->buf == NULL) {
		fprintf(stderr, "rxd-perf: cannot allocate %zu bytes\n",
			r->region * o->num_qps);
		return -1;
	}
	memset(r->buf, 0, r->region * o->num_qps);
	r->mr = ibv_reg_mr(r->pd, r->buf, r->region * o->num_qps, access);
	if (r->mr == NULL) {
		fprintf(stderr, "rxd-perf: ibv_reg_mr: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static struct ibv_qp *
create_qp(struct perf_res *r, const struct perf_opts *o)
{
	struct ibv_qp_init_attr a = {
		.send_cq = r->send_cq, .recv_cq = r->recv_cq,
		.qp_type = o->uc ? IBV_QPT_UC : IBV_QPT_RC,
		.cap = { .max_send_wr = r->tx_depth,
			 .max_recv_wr = r->rx_depth, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = o->inline_size },
	};
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT,
		.port_num = r->ib_port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE };
	struct ibv_qp *qp = ibv_create_qp(r->pd, &a);

	if (qp == NULL) {
		fprintf(stderr, "rxd-perf: ibv_create_qp (depths %u/%u, inline "
			"%u): %s\n", r->tx_depth, r->rx_depth, o->inline_size,
			strerror(errno));
		return NULL;
	}
	if (!o->uc)
		init.qp_access_flags |= IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
		fprintf(stderr, "rxd-perf: QP to INIT failed\n");
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

int
perf_res_create(struct perf_res *r, const struct perf_opts *o,
		uint64_t max_size)
{
	unsigned int i;

	if (set_depths(r, o) != 0)
		return -1;
	r->out_reads = o->outs != 0 ? o->outs :
		       (uint32_t)r->dev.max_qp_rd_atom;
	r->pd = ibv_alloc_pd(r->ctx);
	if (r->pd == NULL || create_buffer(r, o, max_size) != 0)
		return -1;
	r->send_cq = ibv_create_cq(r->ctx, (int)(o->num_qps * r->tx_depth),
				   NULL, NULL, 0);
	r->recv_cq = ibv_create_cq(r->ctx, (int)(o->num_qps * r->rx_depth),
				   NULL, NULL, 0);
	if (r->send_cq == NULL || r->recv_cq == NULL) {
		fprintf(stderr, "rxd-perf: ibv_create_cq: %s\n",
			strerror(errno));
		return -1;
	}
	for (i = 0; i < o->num_qps; i++) {
		r->qp[i] = create_qp(r, o);
		if (r->qp[i] == NULL)
			return -1;
		r->n_qps++;
	}
	return 0;
}

void
perf_res_dest(const struct perf_res *r, const struct perf_opts *o,
	      unsigned int i, struct perf_dest *d)
{
	bool rd = o->test->verb == PERF_READ || o->test->verb == PERF_ATOMIC;

	memset(d, 0, sizeof(*d));
	d->lid = r->port.lid;
	d->out_reads = rd ? r->out_reads : 1;
	d->qpn = r->qp[i]->qp_num;
	d->psn = (uint32_t)rte_rand() & PSN_MASK;
	d->rkey = r->mr->rkey;
	d->vaddr = (uintptr_t)perf_res_recv_area(r, i);
	memcpy(d->gid, r->gid.raw, sizeof(d->gid));
}

static int
to_rtr(struct perf_res *r, struct ibv_qp *qp, const struct perf_dest *rem,
       bool rc)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = (enum ibv_mtu)r->mtu,
		.dest_qp_num = rem->qpn, .rq_psn = rem->psn,
		.max_dest_rd_atomic = (uint8_t)r->out_reads,
		.min_rnr_timer = MIN_RNR_TIMER,
		.ah_attr = { .is_global = 1, .port_num = r->ib_port,
			     .grh = { .sgid_index = (uint8_t)r->gid_index,
				      .hop_limit = HOP_LIMIT } },
	};

	memcpy(a.ah_attr.grh.dgid.raw, rem->gid, sizeof(rem->gid));
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
		IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		(rc ? IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0));
}

static int
to_rts(struct ibv_qp *qp, const struct perf_opts *o,
       const struct perf_dest *loc, const struct perf_dest *rem,
       const struct perf_res *r, bool rc)
{
	uint32_t rd = rem->out_reads < r->out_reads ? rem->out_reads :
						      r->out_reads;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .sq_psn = loc->psn,
		.timeout = (uint8_t)o->qp_timeout, .retry_cnt = RETRY_CNT,
		.rnr_retry = RNR_RETRY_FOREVER,
		.max_rd_atomic = (uint8_t)(rd != 0 ? rd : 1),
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
		(rc ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		 IBV_QP_MAX_QP_RD_ATOMIC : 0));
}

int
perf_res_connect(struct perf_res *r, const struct perf_opts *o,
		 const struct perf_dest *local, const struct perf_dest *remote)
{
	unsigned int i;
	int rc;

	for (i = 0; i < r->n_qps; i++) {
		rc = to_rtr(r, r->qp[i], &remote[i], !o->uc);
		if (rc == 0)
			rc = to_rts(r->qp[i], o, &local[i], &remote[i], r,
				    !o->uc);
		if (rc != 0) {
			fprintf(stderr, "rxd-perf: connecting QP 0x%x to 0x%x "
				"failed: %s\n", r->qp[i]->qp_num,
				remote[i].qpn, strerror(rc));
			return -1;
		}
	}
	return 0;
}

uint8_t *
perf_res_recv_area(const struct perf_res *r, unsigned int i)
{
	return r->buf + r->region * i;
}

uint8_t *
perf_res_send_area(const struct perf_res *r, unsigned int i)
{
	return r->buf + r->region * i + r->region / 2;
}

static enum ibv_wr_opcode
opcode_of(const struct perf_opts *o)
{
	static const enum ibv_wr_opcode ops[] = {
		[PERF_WRITE] = IBV_WR_RDMA_WRITE,
		[PERF_READ] = IBV_WR_RDMA_READ,
		[PERF_SEND] = IBV_WR_SEND,
		[PERF_ATOMIC] = IBV_WR_ATOMIC_FETCH_AND_ADD,
	};

	if (o->test->verb == PERF_ATOMIC && o->cmp_swap)
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	return ops[o->test->verb];
}

void
perf_res_fill_wr(const struct perf_res *r, const struct perf_opts *o,
		 unsigned int q, const struct perf_dest *rem, uint64_t size,
		 struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	*sge = (struct ibv_sge){ (uintptr_t)perf_res_send_area(r, q),
				 (uint32_t)size, r->mr->lkey };
	*wr = (struct ibv_send_wr){ .sg_list = sge, .num_sge = 1,
				    .opcode = opcode_of(o) };
	if (size <= o->inline_size &&
	    (wr->opcode == IBV_WR_RDMA_WRITE || wr->opcode == IBV_WR_SEND))
		wr->send_flags = IBV_SEND_INLINE;
	if (o->test->verb == PERF_ATOMIC) {
		wr->wr.atomic.remote_addr = rem->vaddr;
		wr->wr.atomic.rkey = rem->rkey;
		wr->wr.atomic.compare_add = 1;
	} else {
		wr->wr.rdma.remote_addr = rem->vaddr;
		wr->wr.rdma.rkey = rem->rkey;
	}
}

int
perf_res_post_recv(struct perf_res *r, unsigned int i, uint32_t len,
		   uint64_t n)
{
	struct ibv_sge sge = { (uintptr_t)perf_res_recv_area(r, i), len,
			       r->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 },
			   *bad;
	int rc;

	for (; n > 0; n--) {
		rc = ibv_post_recv(r->qp[i], &wr, &bad);
		if (rc != 0) {
			fprintf(stderr, "rxd-perf: ibv_post_recv on QP 0x%x: "
				"%s\n", r->qp[i]->qp_num, strerror(rc));
			return -1;
		}
	}
	return 0;
}

bool
perf_res_wc_ok(const struct ibv_wc *wc)
{
	if (wc->status == IBV_WC_SUCCESS)
		return true;
	fprintf(stderr, "rxd-perf: completion error on QP 0x%x: %s (%d), "
		"vendor error 0x%x\n", wc->qp_num,
		ibv_wc_status_str(wc->status), wc->status, wc->vendor_err);
	return false;
}

void
perf_res_close(struct perf_res *r)
{
	unsigned int i;

	for (i = 0; i < r->n_qps; i++)
		ibv_destroy_qp(r->qp[i]);
	if (r->send_cq != NULL)
		ibv_destroy_cq(r->send_cq);
	if (r->recv_cq != NULL)
		ibv_destroy_cq(r->recv_cq);
	if (r->mr != NULL)
		ibv_dereg_mr(r->mr);
	free(r->buf);
	if (r->pd != NULL)
		ibv_dealloc_pd(r->pd);
	if (r->ctx != NULL)
		ibv_close_device(r->ctx);
	memset(r, 0, sizeof(*r));
}
