/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A simulated bottleneck for the rate laws (rxd_dcqcn.c, rxd_delay.c):
 * N window-limited senders, each paced by its law through rxd_pacer,
 * into one drop-tail FIFO served at C, with RED ECN marking (as
 * tests/congestion/cc_switch.c) in ecn mode and none in delay mode; the
 * receiver ACKs every frame and sends at most one CNP per interval per
 * flow.  Time-stepped, deterministic (seeded), no DPDK.
 */
#ifndef CC_SIM_H
#define CC_SIM_H

#include <stdint.h>

#define CC_SIM_MAX_FLOWS 8

/** Which law the senders run. */
enum cc_sim_mode { CC_SIM_ECN, CC_SIM_DELAY };

/** One run's setting. */
struct cc_sim_cfg {
	enum cc_sim_mode mode;
	double rate_mbps;        /**< bottleneck C */
	unsigned int flows;
	unsigned int mtu;        /**< frame bytes */
	uint64_t seed;
};

/** What the second half of a run measured (and the drops of all of it). */
struct cc_sim_result {
	double util;             /**< bytes served / (C x time) */
	double jain;             /**< Jain's index of the flows' bytes */
	double q_max_frames;     /**< most frames queued */
	double q_p99_us;         /**< p99 queueing delay */
	uint64_t drops;          /**< frames dropped, second half */
	uint64_t drops_all;      /**< frames dropped, whole run */
	uint64_t frames;         /**< frames served, second half */
};

/** Run the simulation of cfg for its fixed number of frame times. */
void cc_sim_run(const struct cc_sim_cfg *cfg, struct cc_sim_result *r);

#endif /* CC_SIM_H */
