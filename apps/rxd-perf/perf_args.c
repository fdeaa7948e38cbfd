/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-perf's command line: "TEST [flags] [server-host]" after rxd's own
 * options.  The flags are perftest's (same letters, same long names, same
 * defaults), described by one table that drives getopt_long, the value
 * checks and the usage text.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_opts.h"

static const struct perf_test tests[] = {
	{ "write_bw", PERF_WRITE, PERF_BW, "RDMA_Write" },
	{ "read_bw", PERF_READ, PERF_BW, "RDMA_Read" },
	{ "send_bw", PERF_SEND, PERF_BW, "Send" },
	{ "atomic_bw", PERF_ATOMIC, PERF_BW, "Atomic" },
	{ "write_lat", PERF_WRITE, PERF_LAT, "RDMA_Write" },
	{ "read_lat", PERF_READ, PERF_LAT, "RDMA_Read" },
	{ "send_lat", PERF_SEND, PERF_LAT, "Send" },
	{ "atomic_lat", PERF_ATOMIC, PERF_LAT, "Atomic" },
};

/** How a flag's value is read. */
enum flag_type {
	F_BOOL,   /* no value */
	F_IGNORE, /* no value, accepted for compatibility */
	F_U32,
	F_U64,
	F_I32,
	F_STR,
	F_MTU,    /* 256 .. 4096, a power of two */
	F_CONN,   /* RC or UC */
	F_ATOMIC, /* CMP_AND_SWAP or FETCH_AND_ADD */
};

enum { LONG_GBITS = 256, LONG_JSON, LONG_STATS, LONG_LOOPBACK };

#define MTU_CHOICES "256, 512, 1024, 2048, 4096"

struct flag {
	int key;                  /* short letter, or LONG_* */
	const char *name;
	enum flag_type type;
	size_t off;               /* field of struct perf_opts */
	uint64_t min, max;
	const char *arg;
	const char *help;
};

#define F(k, n, t, field, lo, hi, a, h) \
	{ k, n, t, offsetof(struct perf_opts, field), lo, hi, a, h }

static const struct flag flags[] = {
	F('a', "all", F_BOOL, all_sizes, 0, 0, NULL,
	  "run sizes from 2 to 2^23 bytes"),
	F('b', "bidirectional", F_BOOL, bidir, 0, 0, NULL,
	  "both sides send (BW tests)"),
	F('c', "connection", F_CONN, uc, 0, 0, "RC|UC",
	  "connection type (default RC; UC for write and send)"),
	F('d', "ib-dev", F_STR, dev_name, 0, 0, "DEV",
	  "use device DEV (default: the first, rxd0)"),
	F('D', "duration", F_U32, duration, 1, 86400, "SECONDS",
	  "run for SECONDS instead of -n iterations"),
	{ 'F', "CPU-freq", F_IGNORE, 0, 0, 0, NULL,
	  "accepted for compatibility (the TSC is invariant)" },
	F('i', "ib-port", F_U32, ib_port, 1, 1, "PORT",
	  "port of the device (rxd devices have one: 1)"),
	F('I', "inline_size", F_U32, inline_size, 0, 65536, "SIZE",
	  "send messages up to SIZE bytes inline (default 0)"),
	F('l', "post_list", F_U32, post_list, 1, PERF_MAX_POST_LIST, "N",
	  "post lists of N WRs (default 1)"),
	F('m', "mtu", F_MTU, mtu, 0, 0, "MTU",
	  "path MTU 256..4096 (default: the port's active MTU)"),
	F('n', "iters", F_U64, iters, 5, UINT32_MAX, "N",
	  "iterations per QP (default 5000 for write_bw, else 1000)"),
	F('o', "outs", F_U32, outs, 1, 65536, "N",
	  "outstanding READs/atomics (default: the device's maximum)"),
	F('p', "port", F_U32, tcp_port, 1, 65535, "PORT",
	  "TCP port of the exchange (default 18515)"),
	F('q', "qp", F_U32, num_qps, 1, PERF_MAX_QPS, "N",
	  "number of QPs (BW tests; default 1)"),
	F('Q', "cq-mod", F_U32, cq_mod, 1, 65536, "N",
	  "one signaled completion every N WRs (default 100, 1 above 8 KiB)"),
	F('r', "rx-depth", F_U32, rx_depth, 1, 65536, "N",
	  "receive queue depth (default 512)"),
	F('s', "size", F_U64, size, 1, 1u << 30, "BYTES",
	  "message size (default 65536 for BW, 2 for latency, 8 for atomics)"),
	F('t', "tx-depth", F_U32, tx_depth, 1, 65536, "N",
	  "send queue depth (default 128 for BW, 1 for latency)"),
	F('u', "qp-timeout", F_U32, qp_timeout, 0, 31, "T",
	  "retransmit timeout 4.096 us * 2^T (default 14)"),
	F('x', "gid-index", F_I32, gid_index, 0, 255, "INDEX",
	  "GID index (default: the first IPv4 GID, else 0)"),
	F('A', "atomic_type", F_ATOMIC, cmp_swap, 0, 0,
	  "CMP_AND_SWAP|FETCH_AND_ADD",
	  "atomic operation (default FETCH_AND_ADD)"),
	F(LONG_GBITS, "report_gbits", F_BOOL, gbits, 0, 0, NULL,
	  "bandwidth in Gb/s (10^9 bit/s) instead of MB/s (2^20 B/s)"),
	F(LONG_JSON, "json", F_BOOL, json, 0, 0, NULL,
	  "print one JSON object per result row instead of the tables"),
	F(LONG_STATS, "stats", F_BOOL, stats, 0, 0, NULL,
	  "after the tables, print the port's and the QPs' rxd counters"),
	F(LONG_LOOPBACK, "loopback", F_BOOL, loopback, 0, 0, NULL,
	  "server on rxd0 and client on rxd1 in this process (net_ring pair)"),
};

#define N_FLAGS (sizeof(flags) / sizeof(flags[0]))

static void
usage_flag(const struct flag *f)
{
	char left[64];

	if (f->key < 256)
		snprintf(left, sizeof(left), "-%c, --%s%s%s", f->key,
			 f->name, f->arg != NULL ? " " : "",
			 f->arg != NULL ? f->arg : "");
	else
		snprintf(left, sizeof(left), "    --%s", f->name);
	printf("  %-34s %s\n", left, f->help);
}

void
perf_args_usage(void)
{
	unsigned int i;

	printf("Usage: rxd-perf EAL-ARGS -- [rxd options] TEST [flags] "
	       "[server-host]\n\n"
	       "Without server-host rxd-perf is the server and waits for a "
	       "client;\nwith --loopback it runs both sides in this process.\n"
	       "\nTEST:");
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		printf(" %s", tests[i].name);
	printf("\n\nFlags (perftest's):\n");
	for (i = 0; i < N_FLAGS; i++)
		usage_flag(&flags[i]);
	printf("  %-34s %s\n", "-h, --help", "show this text");
}

static int
parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] == '-' || s[0] == '\0')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno != 0 || *end != '\0' ? -1 : 0;
}

static int
parse_mtu(const char *s, uint32_t *mtu)
{
	uint64_t v;

	if (parse_u64(s, &v) != 0 || v < 256 || v > 4096 || (v & (v - 1)))
		return -1;
	*mtu = (uint32_t)v;
	return 0;
}

static int
parse_choice(const char *s, const char *yes, const char *no, bool *v)
{
	if (strcmp(s, yes) == 0 || strcmp(s, no) == 0) {
		*v = strcmp(s, yes) == 0;
		return 0;
	}
	return -1;
}

/* "-s/--size", or "--json" for a flag without a letter. */
static const char *
flag_label(const struct flag *f, char *buf, size_t len)
{
	if (f->key < 256)
		snprintf(buf, len, "-%c/--%s", f->key, f->name);
	else
		snprintf(buf, len, "--%s", f->name);
	return buf;
}

/* Store f's value s into o; prints the reason on error. */
static int
flag_set(struct perf_opts *o, const struct flag *f, const char *s)
{
	void *field = (char *)o + f->off;
	char label[48];
	uint64_t v = 0;
	int rc = 0;

	switch (f->type) {
	case F_BOOL:
		*(bool *)field = true;
		return 0;
	case F_IGNORE:
		return 0;
	case F_STR:
		*(const char **)field = s;
		return 0;
	case F_MTU:
		rc = parse_mtu(s, field);
		break;
	case F_CONN:
		rc = parse_choice(s, "UC", "RC", field);
		break;
	case F_ATOMIC:
		rc = parse_choice(s, "CMP_AND_SWAP", "FETCH_AND_ADD", field);
		break;
	default:
		rc = parse_u64(s, &v) != 0 || v < f->min || v > f->max ? -1 : 0;
		if (rc == 0 && f->type == F_U64)
			*(uint64_t *)field = v;
		else if (rc == 0 && f->type == F_I32)
			*(int32_t *)field = (int32_t)v;
		else if (rc == 0)
			*(uint32_t *)field = (uint32_t)v;
		break;
	}
	if (rc != 0 && (f->type == F_U32 || f->type == F_U64 ||
			f->type == F_I32))
		fprintf(stderr, "rxd-perf: %s: '%s': give a whole number "
			"from %" PRIu64 " to %" PRIu64 "\n",
			flag_label(f, label, sizeof(label)), s, f->min, f->max);
	else if (rc != 0)
		fprintf(stderr, "rxd-perf: %s: '%s' is not one of %s\n",
			flag_label(f, label, sizeof(label)), s,
			f->type == F_MTU ? MTU_CHOICES : f->arg);
	return rc;
}

static const struct perf_test *
find_test(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (strcmp(tests[i].name, name) == 0)
			return &tests[i];
	return NULL;
}

/* perftest's defaults, which depend on the test. */
static void
apply_defaults(struct perf_opts *o, const bool *set)
{
	const struct perf_test *t = o->test;
	bool bw = t->kind == PERF_BW;

	if (!set['s'])
		o->size = t->verb == PERF_ATOMIC ? 8 : bw ? 65536 : 2;
	if (!set['n'])
		o->iters = t->verb == PERF_WRITE && bw ? 5000 : 1000;
	if (!set['t'])
		o->tx_depth = bw ? 128 : 1;
	if (!set['r'])
		o->rx_depth = 512;
	if (!set['q'])
		o->num_qps = 1;
	if (!set['l'])
		o->post_list = 1;
	if (!set['p'])
		o->tcp_port = 18515;
	if (!set['u'])
		o->qp_timeout = 14;
	if (!set['i'])
		o->ib_port = 1;
	if (!set['x'])
		o->gid_index = -1;
}

/* Cross-flag rules; prints the first broken one. */
static int
check_combination(const struct perf_opts *o)
{
	const struct perf_test *t = o->test;
	const char *why = NULL;

	if (t->kind == PERF_LAT && o->bidir)
		why = "-b is for the BW tests";
	else if (t->kind == PERF_LAT && o->num_qps > 1)
		why = "the latency tests use one QP (-q 1)";
	else if (t->verb == PERF_ATOMIC && o->size != 8)
		why = "atomic operations are 8 bytes (-s 8)";
	else if (t->verb == PERF_ATOMIC && o->all_sizes)
		why = "-a is not for atomic tests (their size is 8)";
	else if (o->uc && (t->verb == PERF_READ || t->verb == PERF_ATOMIC))
		why = "UC (-c UC) carries no READs or atomics";
	else if (o->duration != 0 && o->all_sizes)
		why = "-D and -a cannot be used together";
	else if (o->post_list > o->tx_depth)
		why = "the post list (-l) is longer than the TX depth (-t)";
	else if (o->loopback && o->server != NULL)
		why = "--loopback runs both sides: give no server host";
	else if (o->loopback && o->dev_name != NULL)
		why = "--loopback uses rxd0 and rxd1: no -d";
	if (why == NULL)
		return 0;
	fprintf(stderr, "rxd-perf: %s\n", why);
	return -1;
}

/* The positional arguments: TEST, then an optional server host. */
static int
take_positionals(struct perf_opts *o, int argc, char **argv, int first)
{
	int i;

	for (i = first; i < argc; i++) {
		if (o->test == NULL) {
			o->test = find_test(argv[i]);
			if (o->test == NULL) {
				fprintf(stderr, "rxd-perf: unknown test '%s' "
					"(see rxd-perf --help)\n", argv[i]);
				return -1;
			}
		} else if (o->server == NULL) {
			o->server = argv[i];
		} else {
			fprintf(stderr, "rxd-perf: unexpected argument '%s'\n",
				argv[i]);
			return -1;
		}
	}
	if (o->test != NULL)
		return 0;
	fprintf(stderr, "rxd-perf: no test given; one of write_bw read_bw "
		"send_bw atomic_bw write_lat read_lat send_lat atomic_lat\n");
	return -1;
}

static void
build_getopt(struct option *lo, char *so)
{
	unsigned int i;

	*so++ = ':';         /* report a missing value as ':' */
	for (i = 0; i < N_FLAGS; i++) {
		bool arg = flags[i].type != F_BOOL &&
			   flags[i].type != F_IGNORE;

		lo[i] = (struct option){ flags[i].name, arg ? required_argument
					 : no_argument, NULL, flags[i].key };
		if (flags[i].key < 256) {
			*so++ = (char)flags[i].key;
			if (arg)
				*so++ = ':';
		}
	}
	lo[i++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[i] = (struct option){ NULL, 0, NULL, 0 };
	*so++ = 'h';
	*so = '\0';
}

static const struct flag *
flag_of(int key)
{
	unsigned int i;

	for (i = 0; i < N_FLAGS; i++)
		if (flags[i].key == key)
			return &flags[i];
	return NULL;
}

/* getopt's '?' or ':' turned into a message naming the argument. */
static void
report_bad(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		fprintf(stderr, "rxd-perf: %s needs a value\n", arg);
	else if (optopt != 0)
		fprintf(stderr, "rxd-perf: unknown option '-%c' (see rxd-perf "
			"--help)\n", optopt);
	else
		fprintf(stderr, "rxd-perf: unknown option '%s' (see rxd-perf "
			"--help)\n", arg);
}

int
perf_args_parse(struct perf_opts *o, int argc, char **argv)
{
	struct option lo[N_FLAGS + 2];
	char so[3 * N_FLAGS + 3];
	bool set[LONG_LOOPBACK + 1] = { false };
	const struct flag *f;
	int c;

	memset(o, 0, sizeof(*o));
	build_getopt(lo, so);
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c == 'h') {
			perf_args_usage();
			return 1;
		}
		f = flag_of(c);
		if (f == NULL) {
			report_bad(c, argv);
			return -1;
		}
		if (flag_set(o, f, optarg) != 0)
			return -1;
		set[c] = true;
	}
	if (take_positionals(o, argc, argv, optind) != 0)
		return -1;
	apply_defaults(o, set);
	return check_combination(o);
}

bool
perf_args_want_loopback(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--loopback") == 0)
			return true;
	return false;
}

unsigned int
perf_sizes(const struct perf_opts *o, uint64_t *sizes, unsigned int max)
{
	unsigned int n = 0, s;

	if (!o->all_sizes) {
		sizes[0] = o->size;
		return 1;
	}
	for (s = PERF_ALL_MIN_SHIFT; s <= PERF_ALL_MAX_SHIFT && n < max; s++)
		sizes[n++] = UINT64_C(1) << s;
	return n;
}

bool
perf_pingpong(const struct perf_test *t)
{
	return t->kind == PERF_LAT &&
	       (t->verb == PERF_SEND || t->verb == PERF_WRITE);
}
