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

#include "rxd_rc.h"

void
rxd_cc_bind(struct rxd_rc *rc)
{
	rc->tsc_per_us = (double)rte_get_tsc_hz() / 1e6;
	rxd_cc_reset(rc);
}

/* A new connection starts paced at line rate with an empty bucket, free
 * to send a CNP at once, with no round trip known. */
void
rxd_cc_reset(struct rxd_rc *rc)
{
	rc->cnp_next = 0;
	rxd_rtt_drop(rc);
	rc->paced = rc->x.dcqcn != NULL || rc->x.delay != NULL;
	if (!rc->paced)
		return;
	if (rc->x.dcqcn != NULL)
		rxd_dcqcn_init(&rc->dcqcn, rc->x.dcqcn);
	else
		rxd_delay_init(&rc->delay, rc->x.delay);
	rxd_pacer_start(&rc->pacer, rte_rdtsc());
}

static uint64_t
now_us(const struct rxd_rc *rc, uint64_t tsc)
{
	return (uint64_t)((double)tsc / rc->tsc_per_us);
}

/* A CE-marked frame came for this connected QP. */
void
rxd_cc_ce(struct rxd_rc *rc)
{
	uint64_t now = rte_rdtsc();

	rc->cnt.ce_rx++;
	if (rxd_cnp_due(&rc->cnp_next, now, rc->x.cnp_gap))
		rxd_tx_cnp(rc);
}

void
rxd_cc_cnp(struct rxd_rc *rc)
{
	rc->cnt.cnp_rx++;
	if (rc->x.dcqcn == NULL)
		return;
	rxd_dcqcn_cnp(&rc->dcqcn, rc->x.dcqcn, now_us(rc, rte_rdtsc()));
}

/* A round trip of rtt_us ended at TSC now (rxd_rtt.c). */
void
rxd_cc_rtt(struct rxd_rc *rc, uint64_t now, uint64_t rtt_us)
{
	if (rc->x.delay != NULL)
		rxd_delay_sample(&rc->delay, rc->x.delay, now_us(rc, now),
				 rtt_us);
}

/* Whether a paced QP's bucket lets a frame go now (DCQCN's timers run
 * first). */
bool
rxd_cc_may_send(struct rxd_rc *rc)
{
	/* the engine's clock of this pass, not a TSC read a frame; a pass
	 * that began before the bucket was started refills nothing */
	uint64_t now = rxd_rc_clock(rc);

	if (rc->x.dcqcn != NULL && rc->dcqcn.cuts > 0)
		rxd_dcqcn_tick(&rc->dcqcn, rc->x.dcqcn, now_us(rc, now));
	return rxd_pacer_ready(&rc->pacer, rxd_cc_rate(rc), rc->x.burst, now,
			       rc->tsc_per_us);
}

void
rxd_cc_sent(struct rxd_rc *rc, uint32_t len)
{
	rxd_pacer_charge(&rc->pacer, len);
	if (rc->x.dcqcn != NULL && rc->dcqcn.cuts > 0)
		rxd_dcqcn_sent(&rc->dcqcn, rc->x.dcqcn, len);
}

/*
 * A READ request asking for len bytes left.  Under the delay law its
 * round trip (request to first response) is what the requester samples,
 * and the responses are what queue: the requester's bucket pays for
 * them, so that READs are asked no faster than its rate.  Under DCQCN the
 * responder's QP is the one CNPs cut, and it pays as it sends.
 */
void
rxd_cc_read_asked(struct rxd_rc *rc, uint32_t len)
{
	if (rc->x.delay != NULL)
		rxd_pacer_charge(&rc->pacer, len);
}

/* Current rate in Mbit/s, 0 while the QP is not paced (cc = off). */
double
rxd_cc_rate(const struct rxd_rc *rc)
{
	if (!rc->paced)
		return 0;
	return rc->x.dcqcn != NULL ? rc->dcqcn.rc : rc->delay.rate;
}

/* Rate cuts the QP's law made. */
uint64_t
rxd_cc_cuts(const struct rxd_rc *rc)
{
	if (!rc->paced)
		return 0;
	return rc->x.dcqcn != NULL ? rc->dcqcn.cuts : rc->delay.cuts;
}
