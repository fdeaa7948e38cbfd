/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The delay-based rate law of a QP (cc = delay), for fabrics that mark no
 * ECN: like TIMELY and Swift it reads the round trip of acknowledged
 * frames against a target delay, the base round trip (the least seen)
 * plus an allowance for the queue.  Below the target the rate grows by
 * ai_bytes per round trip (a window of rate x RTT gaining ai_bytes each
 * RTT, so the step follows the path: large on a fast short one, small on
 * a slow one); above it the rate is cut, at most once per round trip, by
 * beta times the excess over the round trip, at most max_cut.  Plain
 * arithmetic on microseconds and bytes: no DPDK (doc/congestion.md).
 */
#ifndef RXD_DELAY_H
#define RXD_DELAY_H

#include <stdint.h>

/** The parameters (doc/congestion.md gives the defaults and why). */
struct rxd_delay_params {
	double line_mbps;        /**< a QP starts there, never goes faster */
	double min_mbps;         /**< never paced below this */
	uint32_t target_us;      /**< least queueing allowance over the
				  *   base RTT, microseconds */
	uint32_t target_bytes;   /**< allowance: the time this many bytes
				  *   take at the QP's rate, when longer */
	uint32_t ai_bytes;       /**< window growth per round trip */
	double beta;             /**< cut per unit of relative excess */
	double max_cut;          /**< largest cut per round trip (0..1) */
};

/** One QP's delay-law state. */
struct rxd_delay {
	double rate;             /**< current rate, Mbit/s */
	uint64_t base_us;        /**< least RTT seen (0: none yet) */
	uint64_t rtt_us;         /**< last RTT sample */
	uint64_t last_us;        /**< clock of the last sample */
	uint64_t cut_at;         /**< clock of the last cut */
	uint64_t cuts;           /**< rate cuts made */
};

/** The defaults of doc/congestion.md. */
void rxd_delay_params_default(struct rxd_delay_params *p);

/** Start a QP at line rate, with no RTT known. */
void rxd_delay_init(struct rxd_delay *d, const struct rxd_delay_params *p);

/** The RTT a QP aims at, microseconds (0 before the first sample). */
uint64_t rxd_delay_target(const struct rxd_delay *d,
			  const struct rxd_delay_params *p);

/**
 * A frame sent rtt_us before now_us was acknowledged: grow the rate for
 * the time since the last sample if the RTT is within the target, cut it
 * if it is above (once per round trip).
 */
void rxd_delay_sample(struct rxd_delay *d, const struct rxd_delay_params *p,
		      uint64_t now_us, uint64_t rtt_us);

#endif /* RXD_DELAY_H */
