/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The latency tests at one size, one WR at a time.  send_lat and write_lat
 * are ping-pongs: one side starts (the client for SENDs, the server for
 * WRITEs, as in perftest), the other answers each message it sees (a
 * receive completion, or for WRITEs the last byte of the message changing
 * to the iteration's count); read_lat and atomic_lat are the client alone,
 * waiting for each completion.
 *
 * Each side stamps the TSC when it posts; a sample is the time between two
 * posts, halved for the ping-pongs (one way), as perftest reports.  With
 * -D only the count and the total time are kept.
 */
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_pause.h>

#include "perf_session.h"
#include "rxd/rxd.h"

#define SPINS_PER_YIELD 256

struct lat_run {
	struct perf_session *s;
	bool pingpong, initiator, timed;
	uint64_t iters, deadline, count;
	uint64_t *stamps;            /* NULL with -D */
	uint64_t t_first, t_last, last_progress;
	unsigned int spins;
};

/* A memory poll that found nothing: let the engine (or others) run. */
static void
idle(struct lat_run *l)
{
	if (rxd_inline_progress()) {
		rxd_poll();
		return;
	}
	rte_pause();
	if (++l->spins % SPINS_PER_YIELD == 0)
		sched_yield();
}

/*
 * Nothing arrived yet: 1 = keep waiting, 0 = stop (a -D responder past
 * its deadline and a moment of silence), -1 = the peer is gone.
 */
static int
keep_waiting(const struct lat_run *l, bool may_stop)
{
	if (may_stop && perf_elapsed_ms(l->last_progress, PERF_QUIET_MS) &&
	    rte_rdtsc() >= l->deadline)
		return 0;
	return perf_stalled(l->s, l->last_progress) ? -1 : 1;
}

/* Wait for one completion on cq; 1 = got it, 0 = stop (-D), -1 error. */
static int
wait_cq(struct lat_run *l, struct ibv_cq *cq, bool may_stop)
{
	struct ibv_wc wc;
	int n, rc = 1;

	while (rc == 1) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0 || (n == 1 && !perf_res_wc_ok(&wc)))
			return -1;
		if (n == 1)
			return 1;
		rc = keep_waiting(l, may_stop);
	}
	return rc;
}

/* The peer's WRITE number count+1 has landed: its last byte says so. */
static int
wait_write(struct lat_run *l, bool may_stop)
{
	volatile uint8_t *last = perf_res_recv_area(&l->s->res, 0) +
				 l->s->size - 1;
	uint8_t want = (uint8_t)(l->count + 1);
	int rc = 1;

	while (*last != want && rc == 1) {
		idle(l);
		rc = keep_waiting(l, may_stop);
	}
	return rc;
}

/* The peer's message of this iteration: 1 arrived, 0 stop, -1 error. */
static int
wait_incoming(struct lat_run *l)
{
	struct perf_session *s = l->s;
	bool may_stop = l->timed && !l->initiator;
	int rc;

	if (s->o->test->verb == PERF_WRITE)
		return wait_write(l, may_stop);
	rc = wait_cq(l, s->res.recv_cq, may_stop);
	if (rc != 1 || (!l->timed && s->rx_posted[0] >= l->iters))
		return rc;
	s->rx_posted[0]++;
	return perf_res_post_recv(&s->res, 0, (uint32_t)s->size, 1) == 0 ?
	       1 : -1;
}

/* Stamp, post this iteration's WR and wait for its completion. */
static int
post_one(struct lat_run *l)
{
	struct perf_session *s = l->s;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint64_t now;
	int rc;

	perf_res_fill_wr(&s->res, s->o, 0, &s->remote[0], s->size, &wr, &sge);
	wr.send_flags |= IBV_SEND_SIGNALED;
	if (s->o->test->verb == PERF_WRITE)  /* what the peer polls for */
		perf_res_send_area(&s->res, 0)[s->size - 1] =
			(uint8_t)(l->count + 1);
	now = rte_rdtsc();
	if (l->stamps != NULL)
		l->stamps[l->count] = now;
	if (l->count == 0)
		l->t_first = now;
	rc = ibv_post_send(s->res.qp[0], &wr, &bad);
	if (rc != 0) {
		fprintf(stderr, "rxd-perf: ibv_post_send on QP 0x%x: %s\n",
			s->res.qp[0]->qp_num, strerror(rc));
		return -1;
	}
	return wait_cq(l, s->res.send_cq, false) == 1 ? 0 : -1;
}

/* One iteration; 1 = done, 0 = the run is over (-D), -1 = error. */
static int
iteration(struct lat_run *l)
{
	int rc;

	if (l->initiator && l->timed && rte_rdtsc() >= l->deadline)
		return 0;
	if (!l->initiator) {
		rc = wait_incoming(l);
		if (rc != 1)
			return rc;
	}
	if (post_one(l) != 0)
		return -1;
	if (l->initiator && l->pingpong) {
		rc = wait_incoming(l);
		if (rc != 1)
			return rc;
	}
	l->count++;
	l->t_last = l->last_progress = rte_rdtsc();
	return 1;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample at or above fraction p of them. */
static double
percentile(const double *sorted, uint64_t n, double p)
{
	uint64_t rank = (uint64_t)ceil(p * (double)n);

	return sorted[rank > 0 ? rank - 1 : 0];
}

static void
stats_of(const struct lat_run *l, double *us, struct perf_lat_result *r)
{
	uint64_t n = l->count - 1, i;
	double sum = 0, sq = 0;

	for (i = 0; i < n; i++)
		sum += us[i];
	r->avg = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += (us[i] - r->avg) * (us[i] - r->avg);
	r->stdev = sqrt(sq / (double)n);
	r->min = us[0];
	r->max = us[n - 1];
	r->typical = us[n / 2];
	r->p99 = percentile(us, n, 0.99);
	r->p999 = percentile(us, n, 0.999);
}

/* Samples from the stamps: gaps between posts, in microseconds. */
static int
result_of(const struct lat_run *l, struct perf_lat_result *r)
{
	double cyc_us = (double)rte_get_tsc_hz() / 1e6 *
			(l->pingpong ? 2.0 : 1.0);
	uint64_t n = l->count - 1, i;
	double *us;

	memset(r, 0, sizeof(*r));
	r->size = l->s->size;
	r->iters = l->count;
	r->duration = l->timed;
	if (l->count < 2)
		return 0;
	if (l->timed) {
		r->avg = (double)(l->t_last - l->t_first) / cyc_us /
			 (double)n;
		r->tps = (double)n * (double)rte_get_tsc_hz() /
			 (double)(l->t_last - l->t_first);
		return 0;
	}
	us = malloc(n * sizeof(double));
	if (us == NULL)
		return -1;
	for (i = 0; i < n; i++)
		us[i] = (double)(l->stamps[i + 1] - l->stamps[i]) / cyc_us;
	qsort(us, n, sizeof(double), cmp_double);
	stats_of(l, us, r);
	free(us);
	return 0;
}

int
perf_lat_run(struct perf_session *s)
{
	struct lat_run l = { .s = s, .pingpong = perf_pingpong(s->o->test),
		.timed = s->o->duration != 0 };
	int rc = 0;

	l.iters = l.timed ? UINT64_MAX : s->o->iters;
	l.initiator = s->o->test->verb == PERF_WRITE ? !s->client : s->client;
	if (!l.timed) {
		l.stamps = malloc(l.iters * sizeof(uint64_t));
		if (l.stamps == NULL) {
			fprintf(stderr, "rxd-perf: cannot allocate %" PRIu64
				" timestamps\n", l.iters);
			return -1;
		}
	}
	l.last_progress = rte_rdtsc();
	l.deadline = l.last_progress + rte_get_tsc_hz() * s->o->duration;
	while (l.count < l.iters && (rc = iteration(&l)) == 1)
		;
	if (rc >= 0)
		rc = result_of(&l, &s->lat);
	free(l.stamps);
	return rc;
}
