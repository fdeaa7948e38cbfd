/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN's rate machine and the token bucket pacing a QP at its rate (see
 * rxd_dcqcn.h).  On a CNP: target = current, current *= 1 - alpha / 2,
 * alpha = (1 - g) alpha + g.  Every alpha period without a CNP:
 * alpha = (1 - g) alpha.  Every timer period and every byte_reset bytes an
 * increase event: fast recovery (current = (target + current) / 2) while
 * both event counts are below F, hyper increase (target += (min - F) R_HAI)
 * when both are above F, additive increase (target += R_AI) otherwise.
 * A QP starts at line rate and is paced from its first frame, as a NIC's
 * QP never leaves faster than its port: a QP that ran unpaced until its
 * first CNP, or again once recovered, would send a window's burst into a
 * queue that was already full (doc/performance.md, "Congestion").
 */
#include "rxd_dcqcn.h"

/* Longest run of periods a tick replays; beyond it alpha and the rate
 * are where they settle anyway. */
#define MAX_CATCH_UP 4096

void
rxd_dcqcn_params_default(struct rxd_dcqcn_params *p)
{
	p->line_mbps = 100000;
	p->min_mbps = 1;
	p->g = 1.0 / 256;
	p->alpha_us = 55;
	p->cut_gap_us = 4;
	p->timer_us = 300;
	p->byte_reset = 32767;
	p->fr_steps = 5;
	p->ai_mbps = 40;
	p->hai_mbps = 400;
	p->burst_bytes = 16384;
}

void
rxd_dcqcn_init(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p)
{
	*d = (struct rxd_dcqcn){ .limited = true, .rc = p->line_mbps,
		.rt = p->line_mbps, .alpha = 1.0 };
}

static uint32_t
min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static void
increase(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p)
{
	uint32_t lo = min_u32(d->t_events, d->b_events);
	uint32_t hi = d->t_events + d->b_events - lo;

	if (hi >= p->fr_steps) {
		if (lo > p->fr_steps)
			d->rt += (lo - p->fr_steps) * p->hai_mbps;
		else
			d->rt += p->ai_mbps;
	}
	if (d->rt > p->line_mbps)
		d->rt = p->line_mbps;
	d->rc = (d->rt + d->rc) / 2;
	if (d->rc >= p->line_mbps * 0.999)   /* recovered */
		d->rc = p->line_mbps;
}

void
rxd_dcqcn_cnp(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p,
	      uint64_t now_us)
{
	if (d->cuts > 0 && now_us - d->last_cut < p->cut_gap_us)
		return;
	d->last_cut = now_us;
	d->rt = d->rc;
	d->rc *= 1 - d->alpha / 2;
	if (d->rc < p->min_mbps)
		d->rc = p->min_mbps;
	d->alpha = (1 - p->g) * d->alpha + p->g;
	d->alpha_at = now_us + p->alpha_us;
	d->timer_at = now_us + p->timer_us;
	d->bytes = 0;
	d->t_events = d->b_events = 0;
	d->cuts++;
}

void
rxd_dcqcn_tick(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p,
	       uint64_t now_us)
{
	unsigned int n;

	if (d->cuts == 0)      /* at line rate since the start: no events */
		return;
	for (n = 0; now_us >= d->alpha_at && n < MAX_CATCH_UP; n++) {
		d->alpha *= 1 - p->g;
		d->alpha_at += p->alpha_us;
	}
	if (n == MAX_CATCH_UP)
		d->alpha_at = now_us + p->alpha_us;
	for (n = 0; now_us >= d->timer_at && n < MAX_CATCH_UP; n++) {
		d->t_events++;
		d->timer_at += p->timer_us;
		increase(d, p);
	}
	if (n == MAX_CATCH_UP)
		d->timer_at = now_us + p->timer_us;
}

void
rxd_dcqcn_sent(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p,
	       uint32_t bytes)
{
	if (d->cuts == 0)
		return;
	d->bytes += bytes;
	while (d->bytes >= p->byte_reset) {
		d->bytes -= p->byte_reset;
		d->b_events++;
		increase(d, p);
	}
}
