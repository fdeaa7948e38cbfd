/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results rxd-perf measures, one table row each: bandwidth (perftest's
 * BW columns) and latency (perftest's latency columns).
 */
#ifndef PERF_RESULT_H
#define PERF_RESULT_H

#include <stdbool.h>
#include <stdint.h>

/** One BW row; peak and avg in the run's unit (MB/s or Gb/s). */
struct perf_bw_result {
	uint64_t size;
	uint64_t iters;        /**< messages, all QPs together */
	double peak;           /**< 0 when not measured (-D, receiver) */
	double avg;
	double msg_rate;       /**< Mpps */
};

/** One latency row, in microseconds. */
struct perf_lat_result {
	uint64_t size;
	uint64_t iters;
	bool duration;         /**< -D: only avg and tps are set */
	double min, max, typical, avg, stdev, p99, p999;
	double tps;            /**< transactions per second (-D) */
};

#endif /* PERF_RESULT_H */
