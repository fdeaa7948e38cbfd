/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulated bottleneck of cc_sim.h.  The queue is a fluid of bytes
 * drained at C; a frame enqueued behind q bytes leaves q x 8 / C later,
 * its ACK (with a CNP if it was marked and the flow's interval passed)
 * reaches the sender a propagation delay after that, in order, through
 * one FIFO; a dropped frame's loss reaches its sender one propagation
 * delay after the drop (as a NAK would) through another.  The buffer and
 * the marking thresholds are bytes: 128, 16 and 64 frames of 4 KiB, the
 * depth and RED ramp of the congestion test's switch.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cc_sim.h"
#include "rxd_dcqcn.h"
#include "rxd_delay.h"

#define FRAME_TIMES 20000u         /* run length, in frames of C ... */
#define MIN_RUN_NS 100000000u      /* ... and at least 100 ms */
#define QUEUE_BYTES (128u * 4096)  /* drop-tail limit */
#define KMIN_BYTES (16u * 4096)    /* RED: marking from here */
#define KMAX_BYTES (64u * 4096)    /* ... up to PMAX here, all above */
#define PMAX 0.2
#define PROP_NS 5000u              /* one way, sender to receiver */
#define CNP_GAP_NS 50000u          /* cnp_interval_us */
#define WINDOW_BYTES (512u * 1024) /* outstanding per flow (32 x 16 KiB) */
#define RING 16384u                /* > flows x window / smallest frame */

struct event {
	uint64_t at;               /* ns it reaches the sender */
	uint64_t sent;             /* ns the frame left the sender */
	uint8_t flow;
	bool cnp;
};

struct fifo {
	struct event ev[RING];
	uint32_t head, tail;
};

struct flow {
	struct rxd_dcqcn dcqcn;
	struct rxd_delay delay;
	struct rxd_pacer pacer;
	uint64_t inflight;         /* bytes */
	uint64_t cnp_next;         /* receiver: ns of the next CNP allowed */
	uint64_t bytes;            /* served in the second half */
};

struct sim {
	const struct cc_sim_cfg *cfg;
	struct rxd_dcqcn_params dp;
	struct rxd_delay_params lp;
	struct flow f[CC_SIM_MAX_FLOWS];
	struct fifo acks, losses;
	double q;                  /* bytes queued at q_at */
	uint64_t q_at;
	double bits_per_ns;
	uint64_t half, end;
	uint64_t rng;
	double *qdelay;            /* second half's queueing delays, us */
	uint64_t n_qdelay, cap_qdelay;
	struct cc_sim_result *r;
};

static double
uniform(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (double)(s->rng >> 11) / (double)(UINT64_C(1) << 53);
}

static bool
marked(struct sim *s, double q)
{
	if (s->cfg->mode != CC_SIM_ECN || q < KMIN_BYTES)
		return false;
	if (q >= KMAX_BYTES)
		return true;
	return uniform(s) < PMAX * (q - KMIN_BYTES) / (KMAX_BYTES - KMIN_BYTES);
}

static void
push(struct fifo *q, struct event e)
{
	q->ev[q->tail++ % RING] = e;
}

static double
rate_of(const struct sim *s, const struct flow *f)
{
	return s->cfg->mode == CC_SIM_ECN ? f->dcqcn.rc : f->delay.rate;
}

static void
record(struct sim *s, unsigned int i, uint64_t dep, double wait_ns)
{
	if (dep < s->half || dep >= s->end)
		return;
	s->f[i].bytes += s->cfg->mtu;
	s->r->frames++;
	if (s->n_qdelay < s->cap_qdelay)
		s->qdelay[s->n_qdelay++] = wait_ns / 1000;
}

/* Flow i's frame reaches the queue at t. */
static void
enqueue(struct sim *s, unsigned int i, uint64_t t)
{
	struct flow *f = &s->f[i];
	double wait;
	uint64_t dep;
	bool ce;

	s->q -= (double)(t - s->q_at) * s->bits_per_ns / 8;
	if (s->q < 0)
		s->q = 0;
	s->q_at = t;
	f->inflight += s->cfg->mtu;
	if (s->q + s->cfg->mtu > QUEUE_BYTES) {
		s->r->drops_all++;
		s->r->drops += t >= s->half;
		push(&s->losses, (struct event){ t + PROP_NS, t, (uint8_t)i, 0 });
		return;
	}
	ce = marked(s, s->q);
	if (s->q / s->cfg->mtu > s->r->q_max_frames && t >= s->half)
		s->r->q_max_frames = s->q / s->cfg->mtu;
	s->q += s->cfg->mtu;
	wait = s->q * 8 / s->bits_per_ns;
	dep = t + (uint64_t)wait;
	record(s, i, dep, wait - s->cfg->mtu * 8 / s->bits_per_ns);
	ce = ce && dep >= f->cnp_next;
	if (ce)
		f->cnp_next = dep + CNP_GAP_NS;
	push(&s->acks, (struct event){ dep + PROP_NS, t, (uint8_t)i, ce });
}

static void
feedback(struct sim *s, const struct event *e, uint64_t now)
{
	struct flow *f = &s->f[e->flow];

	f->inflight -= s->cfg->mtu;
	if (s->cfg->mode == CC_SIM_ECN) {
		if (e->cnp)
			rxd_dcqcn_cnp(&f->dcqcn, &s->dp, now / 1000);
		return;
	}
	rxd_delay_sample(&f->delay, &s->lp, now / 1000,
			 (e->at - e->sent) / 1000);
}

static void
drain(struct sim *s, struct fifo *q, uint64_t now, bool feed)
{
	while (q->head != q->tail && q->ev[q->head % RING].at <= now) {
		struct event *e = &q->ev[q->head++ % RING];

		if (feed)
			feedback(s, e, now);
		else
			s->f[e->flow].inflight -= s->cfg->mtu;
	}
}

/* Flow i sends what its pacer and window let go at now. */
static void
send(struct sim *s, unsigned int i, uint64_t now)
{
	struct flow *f = &s->f[i];
	uint32_t burst = s->dp.burst_bytes;

	if (s->cfg->mode == CC_SIM_ECN)
		rxd_dcqcn_tick(&f->dcqcn, &s->dp, now / 1000);
	while (f->inflight + s->cfg->mtu <= WINDOW_BYTES &&
	       rxd_pacer_ready(&f->pacer, rate_of(s, f), burst, now, 1000)) {
		rxd_pacer_charge(&f->pacer, s->cfg->mtu);
		if (s->cfg->mode == CC_SIM_ECN)
			rxd_dcqcn_sent(&f->dcqcn, &s->dp, s->cfg->mtu);
		enqueue(s, i, now + PROP_NS);
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
summarise(struct sim *s)
{
	double sum = 0, sq = 0, served = 0;
	unsigned int i, n = s->cfg->flows;

	for (i = 0; i < n; i++) {
		double b = (double)s->f[i].bytes;

		sum += b;
		sq += b * b;
		served += b;
	}
	s->r->jain = sq > 0 ? sum * sum / (n * sq) : 0;
	s->r->util = served * 8 / ((double)(s->end - s->half) *
				   s->bits_per_ns);
	qsort(s->qdelay, s->n_qdelay, sizeof(double), cmp_double);
	s->r->q_p99_us = s->n_qdelay ?
		s->qdelay[(uint64_t)(s->n_qdelay * 0.99)] : 0;
}

static void
start(struct sim *s, const struct cc_sim_cfg *cfg, struct cc_sim_result *r)
{
	double frame_ns = cfg->mtu * 8 / (cfg->rate_mbps / 1000);
	unsigned int i;

	memset(s, 0, sizeof(*s));
	memset(r, 0, sizeof(*r));
	s->cfg = cfg;
	s->r = r;
	s->rng = cfg->seed | 1;
	s->bits_per_ns = cfg->rate_mbps / 1000;
	s->end = (uint64_t)(frame_ns * FRAME_TIMES);
	if (s->end < MIN_RUN_NS)
		s->end = MIN_RUN_NS;
	s->half = s->end / 2;
	s->cap_qdelay = (uint64_t)(s->end / frame_ns) + 16;
	s->qdelay = calloc(s->cap_qdelay, sizeof(double));
	rxd_dcqcn_params_default(&s->dp);
	rxd_delay_params_default(&s->lp);
	/* a port that reports no speed: the ceiling, whatever C is */
	for (i = 0; i < cfg->flows; i++) {
		rxd_dcqcn_init(&s->f[i].dcqcn, &s->dp);
		rxd_delay_init(&s->f[i].delay, &s->lp);
		rxd_pacer_start(&s->f[i].pacer, 0);
	}
}

void
cc_sim_run(const struct cc_sim_cfg *cfg, struct cc_sim_result *r)
{
	struct sim *s = malloc(sizeof(*s));
	double frame_ns = cfg->mtu * 8 / (cfg->rate_mbps / 1000);
	uint64_t step = frame_ns > 2 ? (uint64_t)(frame_ns / 2) : 1, t;
	unsigned int i;

	start(s, cfg, r);
	for (t = 0; t < s->end; t += step) {
		drain(s, &s->losses, t, false);
		drain(s, &s->acks, t, true);
		for (i = 0; i < cfg->flows; i++)
			send(s, (i + (unsigned int)(t / step)) % cfg->flows, t);
	}
	summarise(s);
	free(s->qdelay);
	free(s);
}
