/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The delay law of rxd_delay.h.  Rates are Mbit/s, which are bits per
 * microsecond: a window of W bytes over an RTT of R us is 8 W / R Mbit/s,
 * and growing W by ai_bytes per RTT grows the rate by 8 ai_bytes / R per
 * R microseconds.  The target's allowance is the longer of target_us and
 * the time target_bytes take at the QP's rate: a slow QP (a slow
 * bottleneck, or many flows sharing it) queues frames that take long to
 * drain, and a fixed target would be below one frame's time there.  As a
 * side effect a QP slower than its peers aims higher than they do, which
 * pulls the rates together.
 */
#include "rxd_delay.h"

void
rxd_delay_params_default(struct rxd_delay_params *p)
{
	p->line_mbps = 100000;
	p->min_mbps = 0.01;
	p->target_us = 20;
	p->target_bytes = 16384;
	p->ai_bytes = 1024;
	p->beta = 0.8;
	p->max_cut = 0.5;
}

void
rxd_delay_init(struct rxd_delay *d, const struct rxd_delay_params *p)
{
	*d = (struct rxd_delay){ .rate = p->line_mbps };
}

uint64_t
rxd_delay_target(const struct rxd_delay *d, const struct rxd_delay_params *p)
{
	double by_bytes = (double)p->target_bytes * 8 / d->rate;
	double allow = by_bytes > p->target_us ? by_bytes : p->target_us;

	return d->base_us == 0 ? 0 : d->base_us + (uint64_t)allow;
}

static void
clamp(struct rxd_delay *d, const struct rxd_delay_params *p)
{
	if (d->rate > p->line_mbps)
		d->rate = p->line_mbps;
	if (d->rate < p->min_mbps)
		d->rate = p->min_mbps;
}

/* Additive increase for the dt microseconds since the last sample (at most
 * one round trip: a sample after an idle spell grows one RTT's worth). */
static void
grow(struct rxd_delay *d, const struct rxd_delay_params *p, uint64_t dt,
     double rtt)
{
	if ((double)dt > rtt)
		dt = (uint64_t)rtt;
	d->rate += 8.0 * p->ai_bytes * (double)dt / (rtt * rtt);
}

static void
cut(struct rxd_delay *d, const struct rxd_delay_params *p, uint64_t now,
    double rtt, uint64_t target)
{
	double f = p->beta * (rtt - (double)target) / rtt;

	if (d->cuts > 0 && now - d->cut_at < (uint64_t)rtt)
		return;
	d->rate *= 1 - (f < p->max_cut ? f : p->max_cut);
	d->cut_at = now;
	d->cuts++;
}

void
rxd_delay_sample(struct rxd_delay *d, const struct rxd_delay_params *p,
		 uint64_t now_us, uint64_t rtt_us)
{
	uint64_t dt = d->last_us == 0 ? 0 : now_us - d->last_us;
	double rtt = rtt_us > 0 ? (double)rtt_us : 1;
	uint64_t target;

	if (d->base_us == 0 || rtt_us < d->base_us)
		d->base_us = rtt_us > 0 ? rtt_us : 1;
	d->rtt_us = rtt_us;
	d->last_us = now_us;
	target = rxd_delay_target(d, p);
	if (rtt_us <= target)
		grow(d, p, dt, rtt);
	else
		cut(d, p, now_us, rtt, target);
	clamp(d, p);
}
