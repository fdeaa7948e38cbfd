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

#include "rxd_tqp.h"

void
rxd_cc_bind(struct rxd_tqp *t)
{
	t->tsc_per_us = (double)rte_get_tsc_hz() / 1e6;
	rxd_cc_reset(t);
}

/* A new connection starts paced at line rate with an empty bucket, free
 * to send a CNP at once. */
void
rxd_cc_reset(struct rxd_tqp *t)
{
	t->cnp_next = 0;
	if (t->x.dcqcn == NULL)
		return;
	rxd_dcqcn_init(&t->dcqcn, t->x.dcqcn);
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

/* Whether a paced QP's bucket lets a frame go now (the rate machine's
 * timers run first). */
bool
rxd_cc_may_send(struct rxd_tqp *t)
{
	/* the engine's clock of this pass, not a TSC read a frame; a pass
	 * that began before the bucket was started refills nothing */
	uint64_t now = rxd_tqp_clock(t);

	if (t->dcqcn.cuts > 0)
		rxd_dcqcn_tick(&t->dcqcn, t->x.dcqcn, now_us(t, now));
	return rxd_pacer_ready(&t->pacer, t->dcqcn.rc,
			       t->x.dcqcn->burst_bytes, now, t->tsc_per_us);
}

void
rxd_cc_sent(struct rxd_tqp *t, uint32_t len)
{
	rxd_pacer_charge(&t->pacer, len);
	if (t->dcqcn.cuts > 0)
		rxd_dcqcn_sent(&t->dcqcn, t->x.dcqcn, len);
}

/* Current rate in Mbit/s, 0 while the QP is not paced (DCQCN off). */
double
rxd_cc_rate(const struct rxd_tqp *t)
{
	return t->dcqcn.limited ? t->dcqcn.rc : 0;
}
