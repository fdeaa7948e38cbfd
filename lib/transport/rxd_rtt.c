/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The round-trip sampler of an RC QP: one probe at a time, a new PSN and
 * the engine's pass clock when it left, ended by the first ACK or
 * response that covers that PSN (a READ's probe is its request, ended by
 * its first response).  A rewind (a NAK, an RNR NAK or a timeout) drops
 * the probe, and frames sent again are never probed (Karn's rule): their
 * round trip would count the wait for the loss.  Each sample goes to the
 * QP's counters (rtt_us, rtt_samples) and to its delay law (cc = delay).
 * The probe is RC's (struct rxd_rc: UC and UD have no ACKs to time); the
 * rate law it feeds is every paced QP's (struct rxd_tqp, rxd_cc.c).
 */
#include "rxd_rc.h"

/* A frame of PSN psn of an RC QP left while no probe runs (rxd_rtt_sent()):
 * probe it if it is new. */
void
rxd_rtt_probe(struct rxd_rc *rc, uint32_t psn)
{
	if (rxd_psn_diff(psn, rc->t.snd_nxt) < 0)
		return;
	rc->probe_on = true;
	rc->probe_psn = psn;
	rc->probe_at = rxd_tqp_clock(&rc->t);
}

/* PSNs up to psn are acknowledged (or answered). */
void
rxd_rtt_acked(struct rxd_rc *rc, uint32_t psn)
{
	struct rxd_tqp *t = &rc->t;
	uint64_t now, rtt_us;

	if (!rc->probe_on || rxd_psn_diff(psn, rc->probe_psn) < 0)
		return;
	rc->probe_on = false;
	now = rxd_tqp_clock(t);
	/* whole microseconds begun: a round trip within one engine pass
	 * counts 1 us, not 0 (a QP not bound to an engine reads the TSC) */
	rtt_us = now > rc->probe_at ?
		(uint64_t)((double)(now - rc->probe_at) / t->tsc_per_us) + 1 :
		1;
	t->cnt.rtt_us = rtt_us;
	t->cnt.rtt_samples++;
	rxd_cc_rtt(t, now, rtt_us);
}
