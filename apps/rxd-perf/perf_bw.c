/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The BW tests at one size: keep up to the TX depth of WRs outstanding on
 * every QP (lists of -l WRs, one signaled every -Q), receive and re-post
 * SENDs, for -n iterations per QP or -D seconds.  Times come from the TSC.
 *
 * Average BW is the bytes of every completed WR over the time from the
 * first post to the last completion.  Peak BW is, as perftest's, the best
 * rate of L WRs over the time from the post of the first to the completion
 * of the last (so a burst of completions cannot inflate it), but over the
 * window lengths L = W, 2W, 4W ... and all of them (W = QPs x TX depth),
 * not every length (perftest's O(n^2)); the longest window is the average,
 * so the peak is never below it.  A receiver reports no peak, as perftest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_session.h"

#define CQ_BURST 32
#define WR_QP_SHIFT 48
#define WR_IDX_MASK ((UINT64_C(1) << WR_QP_SHIFT) - 1)
#define PEAK_MAX_SAMPLES (UINT64_C(1) << 22)   /* 64 MiB of timestamps */
#define MB (1024.0 * 1024.0)
#define GBIT (1e9 / 8.0)
#define SIZE_ONE_CQE 8192                     /* perftest: -Q 1 above */

struct bw_qp {
	uint64_t posted, completed;
	bool last_signaled;
};

struct bw_run {
	struct perf_session *s;
	uint64_t iters;              /* per QP; UINT64_MAX with -D */
	uint32_t cq_mod;
	bool send, recv, timed, stopping;
	uint64_t deadline;
	uint64_t *tposted, *tcompleted; /* NULL: no peak */
	uint64_t n_posted, n_completed, n_received;
	uint64_t t_first_post, t_last_completion, t_start, t_last_recv;
	uint64_t last_progress;
	struct bw_qp qp[PERF_MAX_QPS];
};

uint32_t
perf_bw_cq_moderation(const struct perf_session *s)
{
	uint32_t m = s->o->cq_mod;

	if (m == 0)
		m = s->size > SIZE_ONE_CQE ? 1 : 100;
	return m < s->res.tx_depth ? m : s->res.tx_depth;
}

static bool
wr_signaled(const struct bw_run *b, uint64_t idx)
{
	return (idx + 1) % b->cq_mod == 0 || idx + 1 == b->iters ||
	       b->stopping;
}

static void
fill_wr(const struct bw_run *b, unsigned int q, uint64_t idx,
	struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	const struct perf_session *s = b->s;

	perf_res_fill_wr(&s->res, s->o, q, &s->remote[q], s->size, wr, sge);
	wr->wr_id = (uint64_t)q << WR_QP_SHIFT | idx;
	if (wr_signaled(b, idx))
		wr->send_flags |= IBV_SEND_SIGNALED;
}

/* Post up to one list of WRs on QP q; 0 when nothing fits. */
static int
post_list(struct bw_run *b, unsigned int q)
{
	struct ibv_send_wr wr[PERF_MAX_POST_LIST], *bad;
	struct ibv_sge sge[PERF_MAX_POST_LIST];
	struct bw_qp *p = &b->qp[q];
	uint64_t room = b->s->res.tx_depth - (p->posted - p->completed);
	uint64_t n = b->s->o->post_list, now, i;
	int rc;

	if (n > room)
		n = room;
	if (!b->timed && n > b->iters - p->posted)
		n = b->iters - p->posted;
	for (i = 0; i < n; i++) {
		fill_wr(b, q, p->posted + i, &wr[i], &sge[i]);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	if (n == 0)
		return 0;
	now = rte_rdtsc();
	rc = ibv_post_send(b->s->res.qp[q], wr, &bad);
	if (rc != 0) {
		fprintf(stderr, "rxd-perf: ibv_post_send on QP 0x%x: %s\n",
			b->s->res.qp[q]->qp_num, strerror(rc));
		return -1;
	}
	if (b->n_posted == 0)
		b->t_first_post = now;
	for (i = 0; i < n && b->tposted != NULL; i++)
		b->tposted[b->n_posted + i] = now;
	b->n_posted += n;
	p->posted += n;
	p->last_signaled = wr[n - 1].send_flags & IBV_SEND_SIGNALED;
	return 0;
}

static bool
qp_wants_post(const struct bw_run *b, const struct bw_qp *p)
{
	if (!b->timed)
		return p->posted < b->iters;
	return !b->stopping || (p->posted > 0 && !p->last_signaled);
}

static int
post_all(struct bw_run *b)
{
	unsigned int q;

	if (b->timed && !b->stopping && rte_rdtsc() >= b->deadline)
		b->stopping = true;
	for (q = 0; q < b->s->res.n_qps; q++)
		if (qp_wants_post(b, &b->qp[q]) && post_list(b, q) != 0)
			return -1;
	return 0;
}

static void
complete(struct bw_run *b, const struct ibv_wc *wc, uint64_t now)
{
	struct bw_qp *p = &b->qp[wc->wr_id >> WR_QP_SHIFT];
	uint64_t done = (wc->wr_id & WR_IDX_MASK) + 1;

	for (; p->completed < done; p->completed++, b->n_completed++)
		if (b->tcompleted != NULL)
			b->tcompleted[b->n_completed] = now;
	b->t_last_completion = now;
}

static int
poll_sends(struct bw_run *b)
{
	struct ibv_wc wc[CQ_BURST];
	int n = ibv_poll_cq(b->s->res.send_cq, CQ_BURST, wc), i;
	uint64_t now = rte_rdtsc();

	for (i = 0; i < n; i++) {
		if (!perf_res_wc_ok(&wc[i]))
			return -1;
		complete(b, &wc[i], now);
	}
	if (n > 0)
		b->last_progress = now;
	return n < 0 ? -1 : 0;
}

static int
poll_recvs(struct bw_run *b)
{
	struct perf_session *s = b->s;
	struct ibv_wc wc[CQ_BURST];
	int n = ibv_poll_cq(s->res.recv_cq, CQ_BURST, wc), i;
	unsigned int q;

	for (i = 0; i < n; i++) {
		if (!perf_res_wc_ok(&wc[i]))
			return -1;
		q = (unsigned int)wc[i].wr_id;
		b->n_received++;
		if (!b->timed && s->rx_posted[q] >= b->iters)
			continue;
		if (perf_res_post_recv(&s->res, q, (uint32_t)s->size, 1) != 0)
			return -1;
		s->rx_posted[q]++;
	}
	if (n > 0)
		b->last_progress = b->t_last_recv = rte_rdtsc();
	return n < 0 ? -1 : 0;
}

static bool
sends_done(const struct bw_run *b)
{
	unsigned int q;

	if (!b->send)
		return true;
	if (b->timed && !b->stopping)
		return false;
	for (q = 0; q < b->s->res.n_qps; q++)
		if (qp_wants_post(b, &b->qp[q]) ||
		    b->qp[q].completed < b->qp[q].posted)
			return false;
	return true;
}

/*
 * A receiver stops at its count; over UC, which loses what finds no
 * receive, also after a moment without SENDs; with -D after its deadline
 * and such a moment (the peer's deadline is not quite ours).
 */
static bool
recvs_done(const struct bw_run *b)
{
	if (!b->recv)
		return true;
	if (!b->timed)
		return b->n_received == b->iters * b->s->res.n_qps ||
		       (b->s->o->uc && b->n_received > 0 &&
			perf_elapsed_ms(b->t_last_recv, PERF_QUIET_MS));
	return rte_rdtsc() >= b->deadline &&
	       perf_elapsed_ms(b->t_last_recv > b->deadline ? b->t_last_recv :
			       b->deadline, PERF_QUIET_MS);
}

static int
run_loop(struct bw_run *b)
{
	b->t_start = b->last_progress = b->t_last_recv = rte_rdtsc();
	b->deadline = b->t_start + rte_get_tsc_hz() * b->s->o->duration;
	while (!sends_done(b) || !recvs_done(b)) {
		if (b->send && (post_all(b) != 0 || poll_sends(b) != 0))
			return -1;
		if (b->recv && poll_recvs(b) != 0)
			return -1;
		if (perf_stalled(b->s, b->last_progress))
			return -1;
	}
	return 0;
}

static double
unit_factor(const struct perf_opts *o)
{
	return o->gbits ? GBIT : MB;
}

/* The best rate (WRs per TSC cycle) of windows of len WRs. */
static double
best_window(const struct bw_run *b, uint64_t len)
{
	double best = 0;
	uint64_t j, dt;

	for (j = len - 1; j < b->n_completed; j++) {
		dt = b->tcompleted[j] - b->tposted[j + 1 - len];
		if (dt > 0 && (double)len / (double)dt > best)
			best = (double)len / (double)dt;
	}
	return best;
}

static double
peak_of(const struct bw_run *b)
{
	uint64_t len = b->s->res.n_qps * b->s->res.tx_depth;
	double best = 0, r;

	if (b->tcompleted == NULL || b->n_completed == 0)
		return 0;
	for (;; len *= 2) {
		if (len > b->n_completed)
			len = b->n_completed;
		r = best_window(b, len);
		best = r > best ? r : best;
		if (len == b->n_completed)
			break;
	}
	return best * (double)rte_get_tsc_hz() * (double)b->s->size /
	       unit_factor(b->s->o);
}

/* Fill the row from the sender's or the receiver's counts. */
static void
result_of(const struct bw_run *b, struct perf_bw_result *r)
{
	uint64_t msgs = b->send ? b->n_completed : b->n_received;
	uint64_t t0 = b->send ? b->t_first_post : b->t_start;
	uint64_t t1 = b->send ? b->t_last_completion : b->t_last_recv;
	double secs = (double)(t1 - t0) / (double)rte_get_tsc_hz();

	memset(r, 0, sizeof(*r));
	r->size = b->s->size;
	r->iters = msgs;
	if (secs <= 0)
		return;
	r->avg = (double)msgs * (double)r->size / secs / unit_factor(b->s->o);
	r->msg_rate = (double)msgs / secs / 1e6;
	r->peak = b->send ? peak_of(b) : 0;
}

static int
alloc_stamps(struct bw_run *b)
{
	uint64_t n = b->iters * b->s->res.n_qps;

	if (b->timed || !b->send || n > PEAK_MAX_SAMPLES)
		return 0;
	b->tposted = malloc(n * sizeof(uint64_t));
	b->tcompleted = malloc(n * sizeof(uint64_t));
	if (b->tposted != NULL && b->tcompleted != NULL)
		return 0;
	fprintf(stderr, "rxd-perf: cannot allocate timestamps\n");
	return -1;
}

int
perf_bw_run(struct perf_session *s)
{
	struct bw_run b = { .s = s, .send = perf_session_sends(s),
		.recv = perf_session_receives(s),
		.timed = s->o->duration != 0 };
	int rc;

	b.iters = b.timed ? UINT64_MAX : s->o->iters;
	b.cq_mod = perf_bw_cq_moderation(s);
	rc = alloc_stamps(&b);
	if (rc == 0)
		rc = run_loop(&b);
	if (rc == 0)
		result_of(&b, &s->bw);
	free(b.tposted);
	free(b.tcompleted);
	return rc;
}
