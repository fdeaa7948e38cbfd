/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What rxd-perf prints: perftest's banner, address lines and result tables
 * (same texts and columns), or with --json one JSON object per result row.
 * A quiet session (the --loopback server) prints nothing.
 */
#ifndef PERF_REPORT_H
#define PERF_REPORT_H

#include <stdbool.h>

#include "perf_result.h"
#include "perf_session.h"

/** Whose numbers a BW row shows. */
enum perf_source { PERF_SRC_LOCAL, PERF_SRC_REMOTE, PERF_SRC_BOTH };

/** "Waiting for client to connect..." (the server, before accept). */
void perf_report_waiting(const struct perf_session *s);

/** The test's banner: device, QPs, depths, MTU, GID index ... */
void perf_report_banner(const struct perf_session *s);

/** One QP's "local address" / "remote address" lines. */
void perf_report_dest(const struct perf_session *s, const struct perf_dest *d,
		      bool local);

/** A line of dashes, as perftest closes each part. */
void perf_report_rule(const struct perf_session *s);

/** The result table's column titles. */
void perf_report_header(const struct perf_session *s);

/** One BW row; PERF_SRC_BOTH adds @p peer to @p r (bidirectional). */
void perf_report_bw(const struct perf_session *s,
		    const struct perf_bw_result *r,
		    const struct perf_bw_result *peer, enum perf_source src);

/** One latency row. */
void perf_report_lat(const struct perf_session *s,
		     const struct perf_lat_result *r);

/**
 * With --stats (tables only): the counters of the side's rxd port
 * (rxd_port_counters()) and of its QPs (rxd_qp_stats(), summed).
 */
void perf_report_stats(const struct perf_session *s);

#endif /* PERF_REPORT_H */
