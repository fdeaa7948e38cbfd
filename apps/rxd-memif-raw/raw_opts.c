/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-memif-raw's command line (after EAL's "--"): the mode (tx, rx, fwd,
 * ping) and the options of long_opts[].
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memif_raw.h"

static const char *const mode_names[] = {
	[RAW_TX] = "tx", [RAW_RX] = "rx", [RAW_FWD] = "fwd",
	[RAW_PING] = "ping",
};

static const struct option long_opts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "time", required_argument, NULL, 't' },
	{ "burst", required_argument, NULL, 'b' },
	{ "seg", required_argument, NULL, 'm' },
	{ "link-wait", required_argument, NULL, 'w' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void
raw_opts_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s EAL... -- tx|rx|fwd|ping [options]\n"
		"  tx: send frames; rx: count them; fwd: echo them back;\n"
		"  ping: one frame at a time to a fwd peer, round trip\n"
		"  -s, --size BYTES       Ethernet frame without FCS, %u..%u "
		"(default 64)\n"
		"  -t, --time SECONDS     how long to measure (default 5)\n"
		"  -b, --burst N          frames per tx burst, 1..512 "
		"(default 32)\n"
		"      --seg BYTES        mbuf data room; longer frames go "
		"as chains\n"
		"                         (default 2048, as rxd's pool at "
		"MTU 1500)\n"
		"  -w, --link-wait SECONDS longest wait for the link "
		"(default 10)\n"
		"  -j, --json             JSON lines instead of key=value\n",
		prog, RAW_MIN_FRAME, RAW_MAX_FRAME);
}

static int
bad(int c, const char *v)
{
	const struct option *o;

	for (o = long_opts; o->name != NULL && o->val != c; o++)
		;
	fprintf(stderr, "rxd-memif-raw: --%s: bad value '%s'\n",
		o->name ? o->name : "?", v);
	return -1;
}

static int
number(const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno != 0 || end == s || *end != '\0' || !isfinite(*out) ||
		*out < lo || *out > hi ? -1 : 0;
}

/* Whole numbers go through number() too: check they are whole. */
static int
whole(const char *s, double lo, double hi, double *out)
{
	return number(s, lo, hi, out) < 0 || *out != floor(*out) ? -1 : 0;
}

static int
set_opt(struct raw_opts *o, int c, const char *v)
{
	double x;

	switch (c) {
	case 's':
		if (whole(v, RAW_MIN_FRAME, RAW_MAX_FRAME, &x) < 0)
			return bad(c, v);
		o->size = (uint32_t)x;
		return 0;
	case 't':
		return number(v, 0.001, 3600, &o->seconds) < 0 ? bad(c, v) : 0;
	case 'b':
		if (whole(v, 1, 512, &x) < 0)
			return bad(c, v);
		o->burst = (uint16_t)x;
		return 0;
	case 'm':
		if (whole(v, 128, 65000, &x) < 0)
			return bad(c, v);
		o->seg = (uint16_t)x;
		return 0;
	case 'w':
		return number(v, 0, 3600, &o->link_wait) < 0 ? bad(c, v) : 0;
	case 'j':
		o->json = true;
		return 0;
	default:
		return -1;
	}
}

static int
set_mode(struct raw_opts *o, const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(s, mode_names[i])) {
			o->mode = (enum raw_mode)i;
			return 0;
		}
	fprintf(stderr, "rxd-memif-raw: unknown mode '%s' (tx, rx, fwd or "
		"ping)\n", s);
	return -1;
}

int
raw_opts_parse(int argc, char **argv, struct raw_opts *o)
{
	int c;

	*o = (struct raw_opts){ .mode = RAW_TX, .size = 64, .seconds = 5,
		.link_wait = 10, .burst = 32, .seg = 2048 };
	optind = 1;             /* EAL ran getopt over its own part */
	while ((c = getopt_long(argc, argv, "s:t:b:w:jh", long_opts,
				NULL)) != -1)
		if (set_opt(o, c, optarg) < 0)
			return -1;
	if (optind != argc - 1) {
		fprintf(stderr, "rxd-memif-raw: give one mode: tx, rx, fwd or "
			"ping\n");
		return -1;
	}
	return set_mode(o, argv[optind]);
}
