/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control of a QP (port key cc, doc/congestion.md).  As DCQCN's
 * notification point it answers CE-marked frames with at most one CNP per
 * cnp_gap, whatever the law.  As reaction point it feeds its rate law:
 * DCQCN (x.dcqcn, fixed or scale-free steps) takes CNPs and sent bytes,
 * the delay law (x.delay) round trips (rxd_rtt.c); and it holds the QP's
 * frames back while the token bucket, refilled at the law's rate, is
 * empty.  Unpaced (cc = off) a QP costs one test of paced per frame; paced
 * it starts at line rate.
 */
#include <rte_cycles.h>

#include "rxd_tqp.h"

void
rxd_cc_bind(struct rxd_tqp *t)
{
	t->tsc_per_us = (double)rte_get_tsc_hz() / 1e6;
	rxd_cc_reset(t);
}

/* A new connection starts paced at line rate with an empty bucket, free
 * to send a CNP at once, with no round trip known (an RC QP's probe,
 * struct rxd_rc, is dropped with it: rxd_rc_modify(), bind). */
void
rxd_cc_reset(struct rxd_tqp *t)
{
	t->cnp_next = 0;
	t->paced = t->x.dcqcn != NULL || t->x.delay != NULL;
	if (!t->paced)
		return;
	if (t->x.dcqcn != NULL)
		rxd_dcqcn_init(&t->dcqcn, t->x.dcqcn);
	else
		rxd_delay_init(&t->delay, t->x.delay);
	rxd_pacer_start(&t->pacer, rte_rdtsc());
}

static uint64_t
now_us(const struct rxd_tqp *t, uint64_t tsc)
{
	return (uint64_t)((double)tsc / t->tsc_per_us);
}

/* A CE-marked frame came for this connected QP. */
void
rxd_cc_ce(struct rxd_tqp *t)
{
	uint64_t now = rte_rdtsc();

	t->cnt.ce_rx++;
	if (rxd_cnp_due(&t->cnp_next, now, t->x.cnp_gap))
		rxd_tx_cnp(t);
}

void
rxd_cc_cnp(struct rxd_tqp *t)
{
	t->cnt.cnp_rx++;
	if (t->x.dcqcn == NULL)
		return;
	rxd_dcqcn_cnp(&t->dcqcn, t->x.dcqcn, now_us(t, rte_rdtsc()));
}

/* A round trip of rtt_us ended at TSC now (rxd_rtt.c). */
void
rxd_cc_rtt(struct rxd_tqp *t, uint64_t now, uint64_t rtt_us)
{
	if (t->x.delay != NULL)
		rxd_delay_sample(&t->delay, t->x.delay, now_us(t, now),
				 rtt_us);
}

/* Whether a paced QP's bucket lets a frame go now (DCQCN's timers run
 * first). */
bool
rxd_cc_may_send(struct rxd_tqp *t)
{
	/* the engine's clock of this pass, not a TSC read a frame; a pass
	 * that began before the bucket was started refills nothing */
	uint64_t now = rxd_tqp_clock(t);

	if (t->x.dcqcn != NULL && t->dcqcn.cuts > 0)
		rxd_dcqcn_tick(&t->dcqcn, t->x.dcqcn, now_us(t, now));
	return rxd_pacer_ready(&t->pacer, rxd_cc_rate(t), t->x.burst, now,
			       t->tsc_per_us);
}

void
rxd_cc_sent(struct rxd_tqp *t, uint32_t len)
{
	rxd_pacer_charge(&t->pacer, len);
	if (t->x.dcqcn != NULL && t->dcqcn.cuts > 0)
		rxd_dcqcn_sent(&t->dcqcn, t->x.dcqcn, len);
}

/*
 * A READ request asking for len bytes left.  Under the delay law its
 * round trip (request to first response) is what the requester samples,
 * and the responses are what queue: the requester's bucket pays for
 * them, so that READs are asked no faster than its rate.  Under DCQCN the
 * responder's QP is the one CNPs cut, and it pays as it sends.
 */
void
rxd_cc_read_asked(struct rxd_tqp *t, uint32_t len)
{
	if (t->x.delay != NULL)
		rxd_pacer_charge(&t->pacer, len);
}

/* Current rate in Mbit/s, 0 while the QP is not paced (cc = off). */
double
rxd_cc_rate(const struct rxd_tqp *t)
{
	if (!t->paced)
		return 0;
	return t->x.dcqcn != NULL ? t->dcqcn.rc : t->delay.rate;
}

/* Rate cuts the QP's law made. */
uint64_t
rxd_cc_cuts(const struct rxd_tqp *t)
{
	if (!t->paced)
		return 0;
	return t->x.dcqcn != NULL ? t->dcqcn.cuts : t->delay.cuts;
}
