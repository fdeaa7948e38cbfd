/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN's reaction point (Zhu et al., "Congestion Control for Large-Scale
 * RDMA Deployments", SIGCOMM 2015): the rate of one QP, cut by alpha on a
 * CNP and recovered by timer and byte-counter events (fast recovery,
 * additive increase, hyper increase), and the token bucket that paces the
 * QP's frames at that rate.  Plain arithmetic on microseconds and bytes:
 * no DPDK, so the unit tests drive it with hand-made clocks.
 * With scaled set (the default) the law is scale-free: its increase steps
 * are a share of the QP's target rate and its periods stretch to the time
 * byte_reset bytes take at the current rate, so one set of defaults holds
 * a bottleneck of 1 Mbit/s and one of 100 Gbit/s (doc/congestion.md).
 */
#ifndef RXD_DCQCN_H
#define RXD_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

/** The parameters (doc/architecture.md cites where each default comes from). */
struct rxd_dcqcn_params {
	double line_mbps;        /**< the port's rate: a QP starts there,
				  *   and never goes faster */
	double min_mbps;         /**< never paced below this (mlx5 rpg_min_rate) */
	double g;                /**< alpha gain (paper: 1/256) */
	uint32_t alpha_us;       /**< alpha update period K (paper: 55 us) */
	uint32_t cut_gap_us;     /**< at most one cut per this (mlx5
				  *   rate_reduce_monitor_period: 4 us) */
	uint32_t timer_us;       /**< rate increase timer T (mlx5
				  *   rpg_time_reset: 300 us) */
	uint64_t byte_reset;     /**< byte counter B, bytes (mlx5
				  *   rpg_byte_reset: 32767) */
	uint32_t fr_steps;       /**< fast recovery steps F (paper: 5) */
	double ai_mbps;          /**< additive increase R_AI (paper: 40),
				  *   unless scaled */
	double hai_mbps;         /**< hyper increase R_HAI (10 x R_AI),
				  *   unless scaled */
	bool scaled;             /**< scale-free: R_AI = ai_share x target,
				  *   R_HAI = 10 R_AI, events only while the
				  *   QP uses its rate (rxd_dcqcn.c) */
	double ai_share;         /**< scale-free R_AI as a share of the
				  *   target rate */
	uint32_t burst_bytes;    /**< token bucket depth */
};

/** One QP's rate state. */
struct rxd_dcqcn {
	double rc;               /**< current rate, Mbit/s */
	double rt;               /**< target rate, Mbit/s */
	double alpha;
	uint64_t alpha_at;       /**< next alpha update, us */
	uint64_t timer_at;       /**< next timer increase event, us */
	uint64_t last_cut;       /**< us of the last cut */
	uint64_t bytes;          /**< sent since the last byte event */
	uint64_t since_cut;      /**< sent since the last cut */
	uint64_t since_timer;    /**< sent since the last timer event */
	uint64_t since_alpha;    /**< sent since the last alpha update */
	uint64_t timer_from;     /**< us of the last timer event (or skip) */
	uint64_t alpha_from;     /**< us of the last alpha update (or skip) */
	uint32_t t_events;       /**< timer events since the last cut */
	uint32_t b_events;       /**< byte events since the last cut */
	uint64_t cuts;           /**< rate cuts made */
};

/** The defaults of doc/congestion.md. */
void rxd_dcqcn_params_default(struct rxd_dcqcn_params *p);

/** Whether the law runs scale-free (steps and periods follow the rate). */
static inline bool
rxd_dcqcn_scaled(const struct rxd_dcqcn_params *p)
{
	return p->scaled;
}

/** Start a QP at line rate. */
void rxd_dcqcn_init(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p);

/** A CNP arrived at now_us: cut the rate (at most once per cut_gap_us
 * after the last cut). */
void rxd_dcqcn_cnp(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p,
		   uint64_t now_us);

/** Run the alpha and timer events due at now_us (none before a cut). */
void rxd_dcqcn_tick(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p,
		    uint64_t now_us);

/** bytes were sent: count them, with a byte event per byte_reset (none
 *  before a cut). */
void rxd_dcqcn_sent(struct rxd_dcqcn *d, const struct rxd_dcqcn_params *p,
		    uint32_t bytes);

/**
 * The notification point's limit: whether a QP whose next CNP may leave
 * at *next sends one at now; if so the next may leave gap later.
 */
static inline bool
rxd_cnp_due(uint64_t *next, uint64_t now, uint64_t gap)
{
	if (now < *next)
		return false;
	*next = now + gap;
	return true;
}

/** A token bucket of bytes, refilled at the QP's rate. */
struct rxd_pacer {
	double tokens;           /**< bytes; below zero after a frame that
				  *   took more than there was */
	uint64_t at;             /**< clock of the last refill */
	double mbps;             /**< the rate per_tick is for */
	double per_tick;         /**< bytes a clock tick brings at mbps */
};

/** Empty the bucket at clock now (a QP starts being paced). */
static inline void
rxd_pacer_start(struct rxd_pacer *b, uint64_t now)
{
	b->tokens = 0;
	b->at = now;
	b->mbps = 0;
	b->per_tick = 0;
}

/**
 * Refill the bucket for the time since the last refill (clock ticks,
 * ticks_per_us of them a microsecond) at mbps, up to burst bytes; a
 * clock behind the last refill adds nothing.
 * @return true if a frame may leave now (the bucket is not empty).
 * Inline: every frame of a QP DCQCN runs on passes here, so the division
 * is done only when the rate changes.
 */
static inline bool
rxd_pacer_ready(struct rxd_pacer *b, double mbps, uint32_t burst,
		uint64_t now, double ticks_per_us)
{
	if (mbps != b->mbps) {
		/* Mbit/s is bits per microsecond: mbps / 8 bytes per us */
		b->mbps = mbps;
		b->per_tick = mbps / 8 / ticks_per_us;
	}
	if (now > b->at) {
		b->tokens += (double)(now - b->at) * b->per_tick;
		b->at = now;
		if (b->tokens > burst)
			b->tokens = burst;
	}
	return b->tokens > 0;
}

/** A frame of len bytes left: take its bytes from the bucket. */
static inline void
rxd_pacer_charge(struct rxd_pacer *b, uint32_t len)
{
	b->tokens -= len;
}

#endif /* RXD_DCQCN_H */
