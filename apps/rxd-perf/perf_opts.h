/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-perf's tests and options: the table of the eight tests and the
 * options a run takes (perftest's flags plus --json and --loopback), and
 * the parser that fills them from the command line.
 */
#ifndef PERF_OPTS_H
#define PERF_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/** What a test's work requests do. */
enum perf_verb { PERF_WRITE, PERF_READ, PERF_SEND, PERF_ATOMIC };

/** Bandwidth (streams of WRs) or latency (one WR at a time). */
enum perf_kind { PERF_BW, PERF_LAT };

/** One of the eight tests. */
struct perf_test {
	const char *name;          /**< "write_bw" */
	enum perf_verb verb;
	enum perf_kind kind;
	const char *title;         /**< banner title without "BW Test" */
};

#define PERF_MAX_QPS 64
#define PERF_MAX_POST_LIST 64
#define PERF_ALL_MIN_SHIFT 1       /**< -a: 2 B ... */
#define PERF_ALL_MAX_SHIFT 23      /**< ... 8 MiB, as perftest */

/** A run's options; names follow perftest's flags. */
struct perf_opts {
	const struct perf_test *test;
	const char *dev_name;      /**< -d, NULL = first device */
	uint32_t ib_port;          /**< -i: rxd devices have port 1 only */
	int32_t gid_index;         /**< -x, -1 = first IPv4 GID, else 0 */
	uint64_t size;             /**< -s */
	bool all_sizes;            /**< -a */
	uint64_t iters;            /**< -n, per QP */
	uint32_t duration;         /**< -D seconds, 0 = count iterations */
	uint32_t num_qps;          /**< -q */
	uint32_t tx_depth;         /**< -t */
	uint32_t rx_depth;         /**< -r */
	uint32_t cq_mod;           /**< -Q, 0 = perftest's default */
	uint32_t post_list;        /**< -l */
	uint32_t inline_size;      /**< -I */
	uint32_t mtu;              /**< -m bytes, 0 = the port's active MTU */
	bool bidir;                /**< -b */
	bool uc;                   /**< -c UC (else RC) */
	bool gbits;                /**< --report_gbits */
	uint32_t tcp_port;         /**< -p */
	uint32_t qp_timeout;       /**< -u */
	uint32_t outs;             /**< -o, 0 = the device's maximum */
	bool cmp_swap;             /**< -A CMP_AND_SWAP (else FETCH_AND_ADD) */
	bool json;                 /**< --json: JSON lines instead of tables */
	bool stats;                /**< --stats: rxd counters after the tables */
	bool loopback;             /**< --loopback: both sides in-process */
	const char *server;        /**< the server's host (client side) */
};

/**
 * Parse rxd-perf's arguments (argv[0] is the program name; rxd's own
 * options already removed).  On error prints why on stderr.
 *
 * @return 0, 1 when --help was shown, -1 on a bad command line.
 */
int perf_args_parse(struct perf_opts *o, int argc, char **argv);

/** Print the usage text on stdout. */
void perf_args_usage(void);

/** True when argv[1..argc) asks for --loopback (before rxd_start()). */
bool perf_args_want_loopback(int argc, char **argv);

/** The sizes a run covers: -a's list or just -s.  Returns the count. */
unsigned int perf_sizes(const struct perf_opts *o, uint64_t *sizes,
			unsigned int max);

/** True for the latency tests whose both sides send (send/write _lat). */
bool perf_pingpong(const struct perf_test *t);

#endif /* PERF_OPTS_H */
