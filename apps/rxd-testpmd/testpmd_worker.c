/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The traffic thread: one worker drives every connection while the prompt
 * stays usable.  It keeps up to DEPTH send WRs posted per QP (SEND, RDMA
 * WRITE with immediate, or RDMA READ), polls the QPs' CQs, checks every
 * SEND and WRITE received against the pattern, reposts the receives, and
 * prints a traffic line every stats-period seconds.
 *
 * A WRITE's immediate is its offset / 64 in the receiver's buffer, whose
 * message header gives the length.  The receive a WRITE consumes is
 * reposted only once its data is checked, so the sender, which reuses a
 * write slot only after DEPTH + TP_RECV_DEPTH later messages, never
 * overwrites a slot that is being checked.
 */
#include <endian.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testpmd.h"

#define RECV_TAG (1ull << 63)        /* wr_id of receives */
#define POLL_BATCH 32
#define POST_BUDGET 32
#define IDLE_POLLS 200               /* empty loops before sleeping */
#define IDLE_SLEEP_US 50
#define MAX_ERR_REPORTS 5            /* data errors printed per QP */

static pthread_t worker;
static bool worker_running;
static uint32_t worker_stop;

/* The worker is the only writer of a counter; others read tp_load(). */
static void
bump(uint64_t *p, uint64_t n)
{
	__atomic_store_n(p, *p + n, __ATOMIC_RELAXED);
}

static int
post_recv(struct tp_conn *c, uint32_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf + TP_RECV_OFF + slot * TP_RECV_SLOT),
		.length = TP_RECV_SLOT, .lkey = c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = RECV_TAG | slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(c->qp, &wr, &bad);
}

int
tp_flow_init(struct tp_conn *c)
{
	uint32_t i;
	int rc;

	for (i = 0; i < TP_RECV_DEPTH; i++) {
		rc = post_recv(c, i);
		if (rc != 0) {
			fprintf(stderr, "cannot post receives: %s\n",
				strerror(rc));
			return -1;
		}
	}
	return 0;
}

static void
fail_flow(struct tp_conn *c, const char *what, const char *why)
{
	if (__atomic_exchange_n(&c->flow.broken, 1, __ATOMIC_ACQ_REL) == 0)
		printf("qp 0x%06x: %s: %s; the QP is unusable now\n",
		       c->qp->qp_num, what, why);
	__atomic_store_n(&c->flow.active, 0, __ATOMIC_RELEASE);
}

/* Fill in what differs between the three operations. */
static void
build_wr(struct tp_conn *c, struct ibv_send_wr *wr, uint8_t *src)
{
	struct tp_flow *f = &c->flow;
	uint32_t size = f->cfg.size, slot = tp_slot_size(size);
	uint64_t off;

	if (f->cfg.op == TP_OP_READ) {
		off = TP_WRITE_OFF + (f->posted % tp_write_slots(size)) * slot;
		wr->opcode = IBV_WR_RDMA_READ;
	} else {
		off = TP_WRITE_OFF + (f->tx_seq % tp_write_slots(size)) * slot;
		tp_pattern_fill(src, size, f->tx_seq);
		wr->opcode = f->cfg.op == TP_OP_SEND ? IBV_WR_SEND :
			IBV_WR_RDMA_WRITE_WITH_IMM;
		wr->imm_data = htobe32((uint32_t)(off / TP_SLOT_ALIGN));
	}
	wr->wr.rdma.remote_addr = c->remote.addr + off;
	wr->wr.rdma.rkey = c->remote.rkey;
}

static bool
post_one(struct tp_conn *c)
{
	struct tp_flow *f = &c->flow;
	uint8_t *src = c->buf + (f->posted % f->cfg.depth) *
		tp_slot_size(f->cfg.size);
	struct ibv_sge sge = { .addr = (uintptr_t)src,
			       .length = f->cfg.size, .lkey = c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = f->posted, .sg_list = &sge,
				  .num_sge = f->cfg.size ? 1 : 0,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int rc;

	build_wr(c, &wr, src);
	rc = ibv_post_send(c->qp, &wr, &bad);
	if (rc != 0) {
		fail_flow(c, "ibv_post_send", strerror(rc));
		return false;
	}
	bump(&f->posted, 1);
	bump(&f->outstanding, 1);
	if (f->cfg.op != TP_OP_READ)
		f->tx_seq++;
	return true;
}

static unsigned int
post_more(struct tp_conn *c)
{
	struct tp_flow *f = &c->flow;
	unsigned int n = 0;

	while (n < POST_BUDGET &&
	       __atomic_load_n(&f->active, __ATOMIC_ACQUIRE) &&
	       f->outstanding < f->cfg.depth &&
	       (f->cfg.count == 0 || f->posted < f->cfg.count) &&
	       post_one(c))
		n++;
	return n;
}

static void
data_error(struct tp_conn *c, const char *why, uint32_t at)
{
	struct tp_flow *f = &c->flow;

	if (f->cnt.data_errors < MAX_ERR_REPORTS)
		printf("qp 0x%06x: message %" PRIu64 ": %s at byte %u\n",
		       c->qp->qp_num, f->rx_seq, why, at);
	bump(&f->cnt.data_errors, 1);
}

/* Where a received message is, and its length; false if out of bounds. */
static bool
received_at(struct tp_conn *c, const struct ibv_wc *wc, const uint8_t **msg,
	    uint32_t *len)
{
	uint64_t off, seq;

	if (wc->opcode == IBV_WC_RECV) {
		*msg = c->buf + TP_RECV_OFF +
			(wc->wr_id & ~RECV_TAG) * TP_RECV_SLOT;
		*len = wc->byte_len;
		return true;
	}
	off = (uint64_t)be32toh(wc->imm_data) * TP_SLOT_ALIGN;
	if (off < TP_WRITE_OFF || off + TP_HEADER_LEN > TP_BUF_SIZE)
		return false;
	*msg = c->buf + off;
	return tp_pattern_header(*msg, &seq, len) &&
		off + *len <= TP_BUF_SIZE;
}

static void
on_recv(struct tp_conn *c, const struct ibv_wc *wc)
{
	struct tp_flow *f = &c->flow;
	const uint8_t *msg;
	uint32_t len = 0, at = 0;
	int rc;

	if (!received_at(c, wc, &msg, &len))
		data_error(c, "bad WRITE immediate or header", 0);
	else if (!tp_pattern_check(msg, len, f->rx_seq, &at))
		data_error(c, "data differs", at);
	f->rx_seq++;
	bump(&f->cnt.msgs_rx, 1);
	bump(&f->cnt.bytes_rx, len);
	rc = post_recv(c, (uint32_t)(wc->wr_id & ~RECV_TAG));
	if (rc != 0)
		fail_flow(c, "ibv_post_recv", strerror(rc));
}

static void
on_send_done(struct tp_conn *c)
{
	struct tp_flow *f = &c->flow;
	uint32_t one = 1;

	bump(&f->outstanding, -1ull);
	bump(&f->completed, 1);
	bump(&f->cnt.msgs_done, 1);
	bump(&f->cnt.bytes_done, f->cfg.size);
	if (f->cfg.count != 0 && f->completed == f->cfg.count &&
	    __atomic_compare_exchange_n(&f->active, &one, 0, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		tp_report_run(c, "done");
}

static void
on_wc(struct tp_conn *c, const struct ibv_wc *wc)
{
	if (wc->status == IBV_WC_SUCCESS) {
		if (wc->wr_id & RECV_TAG)
			on_recv(c, wc);
		else
			on_send_done(c);
		return;
	}
	bump(&c->flow.cnt.wc_errors, 1);
	if (!(wc->wr_id & RECV_TAG))
		bump(&c->flow.outstanding, -1ull);
	fail_flow(c, "completion error", ibv_wc_status_str(wc->status));
}

static unsigned int
progress(struct tp_conn *c)
{
	struct ibv_wc wc[POLL_BATCH];
	unsigned int work = post_more(c);
	int n = ibv_poll_cq(c->cq, POLL_BATCH, wc), i;

	for (i = 0; i < n; i++)
		on_wc(c, &wc[i]);
	return work + (n > 0 ? (unsigned int)n : 0);
}

/* Every stats-period seconds, a line per QP with traffic running. */
static void
periodic(uint64_t *last, struct tp_counts *prev)
{
	unsigned int period = __atomic_load_n(&tp.stats_period,
					      __ATOMIC_ACQUIRE);
	uint64_t now = tp_now_ns();
	unsigned int i;
	struct tp_conn *c;

	if (period == 0 || now - *last < period * 1000000000ull)
		return;
	for (i = 0; i < tp_conn_count(); i++) {
		c = tp_conn_get(i);
		if (__atomic_load_n(&c->flow.active, __ATOMIC_ACQUIRE))
			tp_stats_line(c, (now - *last) / 1e9, &prev[i]);
		prev[i] = c->flow.cnt;
	}
	*last = now;
}

static void *
worker_main(void *arg)
{
	struct tp_counts prev[TP_MAX_CONNS];
	uint64_t last = tp_now_ns();
	unsigned int idle = 0, work, i;

	(void)arg;
	memset(prev, 0, sizeof(prev));
	while (!__atomic_load_n(&worker_stop, __ATOMIC_ACQUIRE)) {
		work = 0;
		for (i = 0; i < tp_conn_count(); i++)
			work += progress(tp_conn_get(i));
		periodic(&last, prev);
		if (work != 0)
			idle = 0;
		else if (++idle > IDLE_POLLS)
			usleep(IDLE_SLEEP_US);
	}
	return NULL;
}

int
tp_worker_start(void)
{
	int rc;

	if (worker_running)
		return 0;
	tp_hold_signals(true);
	rc = pthread_create(&worker, NULL, worker_main, NULL);
	tp_hold_signals(false);
	if (rc != 0) {
		fprintf(stderr, "cannot start the traffic thread: %s\n",
			strerror(rc));
		return -1;
	}
	worker_running = true;
	return 0;
}

void
tp_worker_stop(void)
{
	if (!worker_running)
		return;
	__atomic_store_n(&worker_stop, 1, __ATOMIC_RELEASE);
	pthread_join(worker, NULL);
	worker_running = false;
}
