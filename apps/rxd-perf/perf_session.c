/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One side of a run, step by step.  Which exchanges happen when is
 * perftest 6.06's (observed on the wire, so that either side can be
 * Debian's perftest), written per test as scripts of steps:
 *
 *   Q  exchange every QP's message     S  exchange QP 0's message (barrier)
 *   C  connect the QPs, post receives  T  run the test at the current size
 *   R  exchange BW reports             D  send "done"
 *
 * "setup" runs once, "first" for the first size, "next" for every later
 * size (-a), "tail" after the last.
 */
#include <stdio.h>
#include <string.h>

#include "perf_report.h"
#include "perf_session.h"

struct script {
	enum perf_kind kind;
	int verb;                 /* enum perf_verb, or -1: any other */
	int bidir, all;           /* 0, 1, or -1: either */
	const char *setup, *first, *next, *tail;
};

#define ANY (-1)

/* First match wins; "any other verb" rows come after the specific ones. */
static const struct script scripts[] = {
	{ PERF_BW, PERF_SEND, 1, ANY, "QSQCS", "TR", "SSTR", "SD" },
	{ PERF_BW, PERF_SEND, 0, 1, "QSQCS", "TS", "STS", "SD" },
	{ PERF_BW, PERF_SEND, 0, 0, "QSQCS", "T", "T", "SD" },
	{ PERF_BW, ANY, 1, 1, "QQCS", "SSTR", "SSTR", "SD" },
	{ PERF_BW, ANY, 1, 0, "QQCS", "STR", "STR", "SD" },
	{ PERF_BW, ANY, 0, ANY, "QQCS", "T", "T", "SRSD" },
	{ PERF_LAT, PERF_SEND, ANY, ANY, "QSQCS", "T", "ST", "SD" },
	{ PERF_LAT, PERF_WRITE, ANY, ANY, "QSQCS", "T", "T", "" },
	{ PERF_LAT, ANY, ANY, ANY, "QSQCS", "T", "T", "SD" },
};

static bool
matches(int want, int have)
{
	return want == ANY || want == have;
}

static const struct script *
script_of(const struct perf_opts *o)
{
	const struct script *sc;

	for (sc = scripts; ; sc++)
		if (sc->kind == o->test->kind &&
		    matches(sc->verb, (int)o->test->verb) &&
		    matches(sc->bidir, o->bidir) &&
		    matches(sc->all, o->all_sizes))
			return sc;
}

bool
perf_session_sends(const struct perf_session *s)
{
	if (s->o->test->kind == PERF_LAT)
		return s->client || perf_pingpong(s->o->test);
	return s->client || s->o->bidir;
}

bool
perf_session_receives(const struct perf_session *s)
{
	if (s->o->test->verb != PERF_SEND)
		return false;
	return s->o->test->kind == PERF_LAT || !s->client || s->o->bidir;
}

bool
perf_stalled(const struct perf_session *s, uint64_t last)
{
	if (!perf_elapsed_ms(last, PERF_STALL_SECONDS * 1000))
		return false;
	fprintf(stderr, "rxd-perf: no completion on %s for %d s (is the peer "
		"still there?)\n", s->res.dev_name, PERF_STALL_SECONDS);
	return true;
}

int
perf_session_post_recvs(struct perf_session *s)
{
	uint64_t n = s->o->duration != 0 || s->o->iters > s->res.rx_depth ?
		     s->res.rx_depth : s->o->iters;
	unsigned int i;

	if (!perf_session_receives(s))
		return 0;
	for (i = 0; i < s->res.n_qps; i++) {
		if (perf_res_post_recv(&s->res, i, (uint32_t)s->size, n) != 0)
			return -1;
		s->rx_posted[i] = n;
	}
	return 0;
}

static int
step_keys(struct perf_session *s, unsigned int n_qps)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	bool first = s->remote[0].qpn == 0;
	unsigned int i;

	for (i = 0; i < n_qps; i++)
		if (perf_xchg_dest(s->sock, s->client, &s->local[i],
				   &s->remote[i]) != 0)
			return -1;
	if (!first)
		return 0;
	for (i = 0; i < n_qps; i++)
		perf_report_dest(s, &s->remote[i], false);
	if ((memcmp(s->local[0].gid, v4, 12) == 0) !=
	    (memcmp(s->remote[0].gid, v4, 12) == 0)) {
		fprintf(stderr, "rxd-perf: one side uses an IPv4 GID and the "
			"other an IPv6 one; pick GIDs of one kind (-x)\n");
		return -1;
	}
	return 0;
}

/* A barrier: QP 0's message once more, the answer ignored. */
static int
step_sync(struct perf_session *s)
{
	struct perf_dest ignored;

	return perf_xchg_dest(s->sock, s->client, &s->local[0], &ignored);
}

static int
step_connect(struct perf_session *s)
{
	if (perf_res_connect(&s->res, s->o, s->local, s->remote) != 0 ||
	    perf_session_post_recvs(s) != 0)
		return -1;
	perf_report_rule(s);
	return 0;
}

/* Does this side print its own row right after the test? */
static bool
prints_own_row(const struct perf_session *s)
{
	if (s->o->test->kind == PERF_LAT)
		return s->client || perf_pingpong(s->o->test);
	return !s->o->bidir && (s->client || perf_session_receives(s));
}

static int
step_test(struct perf_session *s)
{
	bool bw = s->o->test->kind == PERF_BW;
	int rc;

	if (!perf_session_sends(s) && !perf_session_receives(s))
		return 0;
	rc = bw ? perf_bw_run(s) : perf_lat_run(s);
	if (rc != 0 || !prints_own_row(s))
		return rc;
	if (bw)
		perf_report_bw(s, &s->bw, NULL, PERF_SRC_LOCAL);
	else
		perf_report_lat(s, &s->lat);
	return 0;
}

/* BW reports: bidirectional rows add both; a passive server shows the
 * client's. */
static int
step_report(struct perf_session *s)
{
	struct perf_bw_result peer;

	if (perf_xchg_report(s->sock, s->client, &s->bw, &peer) != 0)
		return -1;
	if (s->o->bidir)
		perf_report_bw(s, &s->bw, &peer, PERF_SRC_BOTH);
	else if (!s->client && !perf_session_sends(s))
		perf_report_bw(s, &peer, NULL, PERF_SRC_REMOTE);
	return 0;
}

static int
step(struct perf_session *s, char c)
{
	switch (c) {
	case 'Q':
		return step_keys(s, s->res.n_qps);
	case 'S':
		return step_sync(s);
	case 'C':
		return step_connect(s);
	case 'T':
		return step_test(s);
	case 'R':
		return step_report(s);
	case 'D':
		perf_xchg_done(s->sock);
		return 0;
	default:
		return -1;
	}
}

static int
run_steps(struct perf_session *s, const char *steps)
{
	for (; *steps != '\0'; steps++)
		if (step(s, *steps) != 0)
			return -1;
	return 0;
}

/* Does this side print any result row? */
static bool
prints_rows(const struct perf_session *s)
{
	return prints_own_row(s) || s->o->bidir ||
	       (s->o->test->kind == PERF_BW && !s->client);
}

static int
run_sizes(struct perf_session *s, const struct script *sc)
{
	uint64_t sizes[PERF_ALL_MAX_SHIFT + 1];
	unsigned int n = perf_sizes(s->o, sizes, PERF_ALL_MAX_SHIFT + 1), i;

	if (prints_rows(s))
		perf_report_header(s);
	for (i = 0; i < n; i++) {
		s->size = sizes[i];
		if (i > 0 && perf_session_post_recvs(s) != 0)
			return -1;
		if (run_steps(s, i == 0 ? sc->first : sc->next) != 0)
			return -1;
	}
	return 0;
}

int
perf_session_open(struct perf_session *s, const struct perf_opts *o,
		  bool client, const char *dev, bool quiet)
{
	*s = (struct perf_session){ .o = o, .client = client, .quiet = quiet,
				    .sock = -1 };
	return perf_res_open(&s->res, dev, o);
}

/* Everything up to the QPs' messages, which need the MTU agreed. */
static int
prepare(struct perf_session *s)
{
	uint64_t sizes[PERF_ALL_MAX_SHIFT + 1];
	unsigned int n = perf_sizes(s->o, sizes, PERF_ALL_MAX_SHIFT + 1), i;

	if (perf_xchg_preamble(s->sock, s->client, &s->res.mtu) != 0 ||
	    perf_res_create(&s->res, s->o, sizes[n - 1]) != 0)
		return -1;
	s->size = sizes[0];
	perf_report_banner(s);
	for (i = 0; i < s->res.n_qps; i++) {
		perf_res_dest(&s->res, s->o, i, &s->local[i]);
		perf_report_dest(s, &s->local[i], true);
	}
	return 0;
}

int
perf_session_run(struct perf_session *s, int sock)
{
	const struct script *sc = script_of(s->o);
	int rc;

	s->sock = sock;
	rc = prepare(s);
	if (rc == 0)
		rc = run_steps(s, sc->setup);
	if (rc == 0)
		rc = run_sizes(s, sc);
	if (rc == 0)
		rc = run_steps(s, sc->tail);
	if (rc == 0 && prints_rows(s))
		perf_report_rule(s);
	if (rc == 0)
		perf_report_stats(s);
	return rc;
}

void
perf_session_close(struct perf_session *s)
{
	perf_res_close(&s->res);
}
