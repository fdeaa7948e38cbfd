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
 * Scale-free (scaled, the law's default, cc = ecn; cc = dcqcn configures
 * the fixed steps of the dcqcn keys): R_AI = ai_share x target and R_HAI = 10 R_AI; the byte
 * counter is at least what the QP sends in T at its rate (else at 50
 * Gbit/s it fired every 5 us and undid each cut within one CNP interval);
 * a timer event or alpha decay counts only if the QP sent at least half
 * what its rate allowed since the last one (a QP held by its window, or a
 * slow one between frames, earns no increase); and a cut needs burst_bytes
 * sent since the last (marks on frames queued before a cut cut again).
 * doc/congestion.md says where this holds and where it does not yet.
 */
#include "rxd_dcqcn.h"

/* Longest run of periods a tick replays; beyond it alpha and the rate
 * are where they settle anyway. */
#define MAX_CATCH_UP 4096

void
rxd_dcqcn_params_default(struct rxd_dcqcn_params *p)
{
	p->line_mbps = 100000;
	p->min_mbps = 0.01;
	p->g = 1.0 / 256;
	p->alpha_us = 55;
	p->cut_gap_us = 4;
	p->timer_us = 300;
	p->byte_reset = 32767;
	p->fr_steps = 5;
	p->ai_mbps = 40;
	p->hai_mbps = 400;
	p->scaled = true;
	p->ai_share = 1.0 / 256;
	p->burst_bytes = 16384;
}

void
rxd_dcqcn_init(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p)
{
	*d = (struct rxd_dcqcn){ .rc = p->line_mbps, .rt = p->line_mbps,
		.alpha = 1.0 };
}

static uint32_t
min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Scale-free, whether the QP sent at least half what its rate allowed
 * over the last us microseconds: a QP held back by its window (or with
 * nothing to send) is not using its rate, so neither raising it nor
 * forgetting the congestion (alpha) is earned. */
static bool
used(const struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p,
     uint64_t bytes, uint64_t us)
{
	return !rxd_dcqcn_scaled(p) || (double)bytes * 16 >= d->rc * (double)us;
}

/* Scale-free, the byte counter is at least what the QP sends in T. */
static uint64_t
byte_period(const struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p)
{
	uint64_t in_t = (uint64_t)(d->rc * p->timer_us / 8);

	return rxd_dcqcn_scaled(p) && in_t > p->byte_reset ? in_t :
		p->byte_reset;
}

static double
ai_step(const struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p)
{
	return rxd_dcqcn_scaled(p) ? d->rt * p->ai_share : p->ai_mbps;
}

static double
hai_step(const struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p)
{
	return rxd_dcqcn_scaled(p) ? 10 * ai_step(d, p) : p->hai_mbps;
}

static void
increase(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p)
{
	uint32_t lo = min_u32(d->t_events, d->b_events);
	uint32_t hi = d->t_events + d->b_events - lo;

	if (hi >= p->fr_steps) {
		if (lo > p->fr_steps)
			d->rt += (lo - p->fr_steps) * hai_step(d, p);
		else
			d->rt += ai_step(d, p);
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
	if (rxd_dcqcn_scaled(p) && d->cuts > 0 && d->since_cut < p->burst_bytes)
		return;
	d->since_cut = 0;
	d->last_cut = now_us;
	d->rt = d->rc;
	d->rc *= 1 - d->alpha / 2;
	if (d->rc < p->min_mbps)
		d->rc = p->min_mbps;
	d->alpha = (1 - p->g) * d->alpha + p->g;
	d->alpha_at = now_us + p->alpha_us;
	d->timer_at = now_us + p->timer_us;
	d->alpha_from = d->timer_from = now_us;
	d->since_alpha = d->since_timer = 0;
	d->bytes = 0;
	d->t_events = d->b_events = 0;
	d->cuts++;
}

/* Whether the period event due at *at is earned (the QP used its rate
 * since *from; always, unless scaled); an unearned one restarts the
 * period at now.  Either way the bytes counted towards it start over. */
static bool
earned(const struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p,
       uint64_t *since, uint64_t *from, uint64_t *at, uint32_t period,
       uint64_t now)
{
	bool ok = used(d, p, *since, now - *from);

	*since = 0;
	*from = now;
	if (!ok)
		*at = now + period;
	return ok;
}

void
rxd_dcqcn_tick(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p,
	       uint64_t now_us)
{
	unsigned int n;

	if (d->cuts == 0)      /* at line rate since the start: no events */
		return;
	for (n = 0; now_us >= d->alpha_at && n < MAX_CATCH_UP &&
	     earned(d, p, &d->since_alpha, &d->alpha_from, &d->alpha_at,
		    p->alpha_us, now_us); n++) {
		d->alpha *= 1 - p->g;
		d->alpha_at += p->alpha_us;
	}
	if (n == MAX_CATCH_UP)
		d->alpha_at = now_us + p->alpha_us;
	for (n = 0; now_us >= d->timer_at && n < MAX_CATCH_UP &&
	     earned(d, p, &d->since_timer, &d->timer_from, &d->timer_at,
		    p->timer_us, now_us); n++) {
		d->t_events++;
		increase(d, p);
		d->timer_at += p->timer_us;
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
	d->since_cut += bytes;
	d->since_timer += bytes;
	d->since_alpha += bytes;
	d->bytes += bytes;
	while (d->bytes >= byte_period(d, p)) {
		d->bytes -= byte_period(d, p);
		d->b_events++;
		increase(d, p);
	}
}
