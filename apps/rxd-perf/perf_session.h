/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One side (server or client) of a run: its resources, the peer's QPs,
 * the current message size and the last results; and the test engines
 * that run one size on it (perf_bw.c, perf_lat.c).
 */
#ifndef PERF_SESSION_H
#define PERF_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>

#include "perf_opts.h"
#include "perf_res.h"
#include "perf_result.h"
#include "perf_xchg.h"

#define PERF_STALL_SECONDS 10      /**< no completion this long: give up */
#define PERF_QUIET_MS 50           /**< -D receivers stop after this silence */

struct perf_session {
	const struct perf_opts *o;
	bool client;
	bool quiet;                  /**< print nothing (--loopback server) */
	int sock;
	struct perf_res res;
	struct perf_dest local[PERF_MAX_QPS], remote[PERF_MAX_QPS];
	uint64_t rx_posted[PERF_MAX_QPS]; /**< receives posted at this size */
	uint64_t size;               /**< the current message size */
	struct perf_bw_result bw;    /**< this side's last BW row */
	struct perf_lat_result lat;  /**< this side's last latency row */
};

/**
 * Start one side on device @p dev (NULL = the first), so that a bad
 * device shows before any connection.  @return 0, or -1 (said why).
 */
int perf_session_open(struct perf_session *s, const struct perf_opts *o,
		      bool client, const char *dev, bool quiet);

/**
 * Talk to the peer over @p sock and run the test at every size.
 * @return 0 when everything completed.
 */
int perf_session_run(struct perf_session *s, int sock);

/** Release what perf_session_open() and run made. */
void perf_session_close(struct perf_session *s);

/** True when this side posts the test's sends, READs or atomics. */
bool perf_session_sends(const struct perf_session *s);

/** True when this side receives the test's SENDs. */
bool perf_session_receives(const struct perf_session *s);

/** Post the receives of the current size (send tests). */
int perf_session_post_recvs(struct perf_session *s);

/** Run the BW test at s->size; fills s->bw. */
int perf_bw_run(struct perf_session *s);

/** The -Q in use at s->size (perftest's default: 100, 1 above 8 KiB). */
uint32_t perf_bw_cq_moderation(const struct perf_session *s);

/** Run the latency test at s->size; fills s->lat. */
int perf_lat_run(struct perf_session *s);

/** TSC cycles since @p since exceed @p ms milliseconds. */
static inline bool
perf_elapsed_ms(uint64_t since, unsigned int ms)
{
	return rte_rdtsc() - since > rte_get_tsc_hz() / 1000 * ms;
}

/** No progress since @p last for PERF_STALL_SECONDS: say so. */
bool perf_stalled(const struct perf_session *s, uint64_t last);

#endif /* PERF_SESSION_H */
