/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control of a QP, both roles of DCQCN: as notification point
 * it answers CE-marked frames with at most one CNP per cnp_gap; as
 * reaction point it feeds CNPs and sent bytes to its rate machine
 * (rxd_dcqcn.c) and holds its frames back while the token bucket is
 * empty.  With DCQCN off a QP costs one test of dcqcn.limited per frame;
 * with it on every QP is paced, at line rate until a CNP comes.
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
 * to send a CNP at once. */
void
rxd_cc_reset(struct rxd_rc *rc)
{
	rc->cnp_next = 0;
	rxd_rtt_drop(rc);
	if (rc->x.dcqcn == NULL)
		return;
	rxd_dcqcn_init(&rc->dcqcn, rc->x.dcqcn);
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

/* Whether a paced QP's bucket lets a frame go now (the rate machine's
 * timers run first). */
bool
rxd_cc_may_send(struct rxd_rc *rc)
{
	/* the engine's clock of this pass, not a TSC read a frame; a pass
	 * that began before the bucket was started refills nothing */
	uint64_t now = rxd_rc_clock(rc);

	if (rc->dcqcn.cuts > 0)
		rxd_dcqcn_tick(&rc->dcqcn, rc->x.dcqcn, now_us(rc, now));
	return rxd_pacer_ready(&rc->pacer, rc->dcqcn.rc,
			       rc->x.dcqcn->burst_bytes, now, rc->tsc_per_us);
}

void
rxd_cc_sent(struct rxd_rc *rc, uint32_t len)
{
	rxd_pacer_charge(&rc->pacer, len);
	if (rc->dcqcn.cuts > 0)
		rxd_dcqcn_sent(&rc->dcqcn, rc->x.dcqcn, len);
}

/* Current rate in Mbit/s, 0 while the QP is not paced (DCQCN off). */
double
rxd_cc_rate(const struct rxd_rc *rc)
{
	return rc->dcqcn.limited ? rc->dcqcn.rc : 0;
}
