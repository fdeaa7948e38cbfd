/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN's rate machine, the token bucket and the CNP limit (lib/transport/
 * rxd_dcqcn.c) against sequences computed by hand from the paper's rules:
 * cut by alpha, alpha decay, fast recovery, additive and hyper increase,
 * recovery to line rate; the pacer's refill, debt and depth; one CNP per
 * interval per QP.  Every expected value is a binary fraction, so the
 * comparisons are exact.
 */
#include <criterion/criterion.h>

#include "rxd_dcqcn.h"

/* Round numbers instead of the defaults, so the sequences can be checked
 * on paper: g = 1/4, F = 2, R_AI = 10, R_HAI = 100, line 1000 Mbit/s. */
static struct rxd_dcqcn_params
params(void)
{
	struct rxd_dcqcn_params p;

	rxd_dcqcn_params_default(&p);
	p.line_mbps = 1000;
	p.min_mbps = 10;
	p.g = 0.25;
	p.alpha_us = 50;
	p.cut_gap_us = 4;
	p.timer_us = 100;
	p.byte_reset = 1000;
	p.fr_steps = 2;
	p.ai_mbps = 10;
	p.hai_mbps = 100;
	p.scaled = false;
	return p;
}

Test(dcqcn, defaults_are_the_documented_ones)
{
	struct rxd_dcqcn_params p;

	rxd_dcqcn_params_default(&p);
	cr_assert_eq(p.g, 1.0 / 256);
	cr_assert_eq(p.alpha_us, 55);
	cr_assert_eq(p.timer_us, 300);
	cr_assert_eq(p.byte_reset, 32767);
	cr_assert_eq(p.fr_steps, 5);
	cr_assert_eq(p.ai_mbps, 40);
	cr_assert_eq(p.cut_gap_us, 4);
	cr_assert(p.scaled);
	cr_assert_eq(p.ai_share, 1.0 / 256);
}

Test(dcqcn, starts_paced_at_line_rate_and_stays_there)
{
	struct rxd_dcqcn_params p = params();
	struct rxd_dcqcn d;

	rxd_dcqcn_init(&d, &p);
	cr_assert_eq(d.rc, 1000);
	cr_assert_eq(d.alpha, 1);
	rxd_dcqcn_sent(&d, &p, 100000);   /* no events before a cut */
	rxd_dcqcn_tick(&d, &p, 100000);
	cr_assert_eq(d.b_events, 0);
	cr_assert_eq(d.t_events, 0);
	cr_assert_eq(d.rc, 1000);
	cr_assert_eq(d.rt, 1000);
}

Test(dcqcn, cut_by_alpha_once_per_gap)
{
	struct rxd_dcqcn_params p = params();
	struct rxd_dcqcn d;

	rxd_dcqcn_init(&d, &p);
	rxd_dcqcn_cnp(&d, &p, 0);
	/* rt = 1000, rc = 1000 (1 - 1/2), alpha = 3/4 + 1/4 */
	cr_assert_eq(d.rt, 1000);
	cr_assert_eq(d.rc, 500);
	cr_assert_eq(d.alpha, 1);
	rxd_dcqcn_cnp(&d, &p, 2);          /* within 4 us: ignored */
	cr_assert_eq(d.rc, 500);
	cr_assert_eq(d.cuts, 1);
	rxd_dcqcn_cnp(&d, &p, 10);
	cr_assert_eq(d.rt, 500);
	cr_assert_eq(d.rc, 250);
	cr_assert_eq(d.cuts, 2);
}

Test(dcqcn, alpha_decays_without_cnp)
{
	struct rxd_dcqcn_params p = params();
	struct rxd_dcqcn d;

	p.timer_us = 1000000;               /* no increase events here */
	rxd_dcqcn_init(&d, &p);
	rxd_dcqcn_cnp(&d, &p, 0);
	rxd_dcqcn_tick(&d, &p, 49);
	cr_assert_eq(d.alpha, 1);
	rxd_dcqcn_tick(&d, &p, 50);
	cr_assert_eq(d.alpha, 0.75);
	rxd_dcqcn_tick(&d, &p, 100);
	cr_assert_eq(d.alpha, 0.5625);
	rxd_dcqcn_tick(&d, &p, 149);
	cr_assert_eq(d.alpha, 0.5625);
	/* the next cut: rc = 500 (1 - 0.5625 / 2), alpha = 3/4 a + 1/4 */
	rxd_dcqcn_cnp(&d, &p, 150);
	cr_assert_eq(d.rc, 359.375);
	cr_assert_eq(d.alpha, 0.671875);
}

Test(dcqcn, fast_recovery_then_additive_then_hyper)
{
	struct rxd_dcqcn_params p = params();
	struct rxd_dcqcn d;

	rxd_dcqcn_init(&d, &p);
	rxd_dcqcn_cnp(&d, &p, 0);
	rxd_dcqcn_cnp(&d, &p, 10);         /* rt 500, rc 250, timer at 110 */
	rxd_dcqcn_tick(&d, &p, 109);
	cr_assert_eq(d.rc, 250);
	rxd_dcqcn_tick(&d, &p, 110);       /* T = 1 < F: fast recovery */
	cr_assert_eq(d.rt, 500);
	cr_assert_eq(d.rc, 375);
	rxd_dcqcn_tick(&d, &p, 210);       /* T = 2 = F: additive */
	cr_assert_eq(d.rt, 510);
	cr_assert_eq(d.rc, 442.5);
	rxd_dcqcn_tick(&d, &p, 310);       /* T = 3, B = 0: additive */
	cr_assert_eq(d.rt, 520);
	cr_assert_eq(d.rc, 481.25);
	rxd_dcqcn_sent(&d, &p, 999);
	cr_assert_eq(d.b_events, 0);
	rxd_dcqcn_sent(&d, &p, 1);         /* B = 1: additive */
	cr_assert_eq(d.rt, 530);
	cr_assert_eq(d.rc, 505.625);
	rxd_dcqcn_sent(&d, &p, 1000);      /* B = 2, min = F: additive */
	cr_assert_eq(d.rt, 540);
	cr_assert_eq(d.rc, 522.8125);
	rxd_dcqcn_sent(&d, &p, 1000);      /* B = 3, T = 3 > F: hyper x1 */
	cr_assert_eq(d.rt, 640);
	cr_assert_eq(d.rc, 581.40625);
	rxd_dcqcn_tick(&d, &p, 410);       /* T = 4, B = 3: hyper x1 */
	cr_assert_eq(d.rt, 740);
	cr_assert_eq(d.rc, 660.703125);
}

Test(dcqcn, recovers_to_line_rate_and_stays_paced)
{
	struct rxd_dcqcn_params p = params();
	struct rxd_dcqcn d;
	unsigned int i;

	rxd_dcqcn_init(&d, &p);
	rxd_dcqcn_cnp(&d, &p, 0);
	for (i = 0; i < 200 && d.rc < 1000; i++)
		rxd_dcqcn_sent(&d, &p, 1000);
	cr_assert_eq(d.rc, 1000, "still at %f Mbit/s", d.rc);
	cr_assert_eq(d.rt, 1000);
	rxd_dcqcn_sent(&d, &p, 100000);   /* never above line rate */
	cr_assert_eq(d.rc, 1000);
}

Test(dcqcn, cut_never_below_min_rate)
{
	struct rxd_dcqcn_params p = params();
	struct rxd_dcqcn d;
	uint64_t t;

	rxd_dcqcn_init(&d, &p);
	for (t = 0; t < 1000; t += 5)
		rxd_dcqcn_cnp(&d, &p, t);
	cr_assert_eq(d.rc, 10);
}

Test(dcqcn, a_long_idle_catches_up_in_bounded_work)
{
	struct rxd_dcqcn_params p = params();
	struct rxd_dcqcn d;

	rxd_dcqcn_init(&d, &p);
	rxd_dcqcn_cnp(&d, &p, 0);
	rxd_dcqcn_tick(&d, &p, UINT64_C(1) << 40);
	cr_assert(d.alpha < 1e-9);
	cr_assert_eq(d.rc, 1000);
}

Test(pacer, refills_at_the_rate_and_owes_a_big_frame)
{
	struct rxd_pacer b;

	/* clock in microseconds; 8 Mbit/s is one byte per microsecond */
	rxd_pacer_start(&b, 0);
	cr_assert(!rxd_pacer_ready(&b, 8, 4096, 0, 1));
	cr_assert(rxd_pacer_ready(&b, 8, 4096, 100, 1));
	cr_assert_eq(b.tokens, 100);
	rxd_pacer_charge(&b, 1000);         /* a frame bigger than the tokens */
	cr_assert(!rxd_pacer_ready(&b, 8, 4096, 500, 1));
	cr_assert(!rxd_pacer_ready(&b, 8, 4096, 1000, 1));
	cr_assert(rxd_pacer_ready(&b, 8, 4096, 1001, 1));
	cr_assert_eq(b.tokens, 1);
}

Test(pacer, never_holds_more_than_its_depth)
{
	struct rxd_pacer b;

	rxd_pacer_start(&b, 0);
	cr_assert(rxd_pacer_ready(&b, 800, 4096, 1000000, 1));
	cr_assert_eq(b.tokens, 4096);
	/* ticks_per_us scales the clock: 2000 ticks are 1 us at 2 GHz */
	rxd_pacer_start(&b, 0);
	cr_assert(rxd_pacer_ready(&b, 800, 4096, 2000, 2000));
	cr_assert_eq(b.tokens, 100);
}

/* The engine's pass clock may be older than the bucket's start: nothing
 * is added then; a new rate applies from the last refill on. */
Test(pacer, a_clock_behind_its_start_adds_nothing)
{
	struct rxd_pacer b;

	rxd_pacer_start(&b, 1000);
	cr_assert(!rxd_pacer_ready(&b, 8, 4096, 500, 1));
	cr_assert_eq(b.tokens, 0);
	cr_assert_eq(b.at, 1000);
	cr_assert(rxd_pacer_ready(&b, 8, 4096, 1100, 1));
	cr_assert_eq(b.tokens, 100);
	cr_assert(rxd_pacer_ready(&b, 16, 4096, 1200, 1));
	cr_assert_eq(b.tokens, 300);
	cr_assert(rxd_pacer_ready(&b, 8, 4096, 1300, 1));
	cr_assert_eq(b.tokens, 400);
}

Test(cnp, one_per_interval_per_qp)
{
	uint64_t a = 0, b = 0;
	unsigned int sent_a = 0, sent_b = 0;
	uint64_t t;

	/* QP a hears a CE mark every microsecond for 1000 us, QP b every
	 * 7 us: with a 50 us interval each sends one CNP per 50 us */
	for (t = 0; t < 1000; t++) {
		sent_a += rxd_cnp_due(&a, t, 50);
		if (t % 7 == 0)
			sent_b += rxd_cnp_due(&b, t, 50);
	}
	cr_assert_eq(sent_a, 20);
	cr_assert_eq(sent_b, 18);  /* at 0, 56, 112, ..., 952: 7-us grid */
	cr_assert(rxd_cnp_due(&a, 1000, 50));
	cr_assert(!rxd_cnp_due(&a, 1049, 50));
}
