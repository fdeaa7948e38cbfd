/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC example's command line: -p/--port, -d/--ib-dev, -i/--ib-port,
 * -g/--gid-idx and an optional server name, which makes this side the
 * client.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "rc_example.h"

#define TCP_PORT_DEFAULT 19875
#define GID_IDX_DEFAULT 1        /* rxd's GID of the first --ip address */

static const struct option long_opts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "gid-idx", required_argument, NULL, 'g' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void
rc_opts_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL options -- [rxd options]] [options] [server]\n"
		"  without EAL options rxd starts from RXD_EAL_ARGS and "
		"RXD_ADDR;\n  with a server name this side is the client\n"
		"  -p, --port PORT      TCP port of the side channel "
		"(default %u)\n"
		"  -d, --ib-dev DEVICE  verbs device (default: the first)\n"
		"  -i, --ib-port PORT   port of the device (default 1)\n"
		"  -g, --gid-idx INDEX  GID index (default %u: rxd's first "
		"address;\n"
		"                       RoCE needs a GRH, so there is no "
		"\"no GID\")\n",
		prog, TCP_PORT_DEFAULT, GID_IDX_DEFAULT);
}

static int
parse_uint(const char *name, const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno == 0 && end != s && *end == '\0' && *out >= min &&
	    *out <= max)
		return 0;
	fprintf(stderr, "rc-example: --%s: '%s' is not a number in "
		"%ld..%ld\n", name, s, min, max);
	return -1;
}

static int
set_opt(struct rc_config *cfg, int c, const char *v)
{
	long n = 0;
	int rc = 0;

	switch (c) {
	case 'p':
		rc = parse_uint("port", v, 1, UINT16_MAX, &n);
		cfg->tcp_port = (uint16_t)n;
		break;
	case 'd':
		cfg->dev_name = v;
		break;
	case 'i':
		rc = parse_uint("ib-port", v, 1, UINT8_MAX, &n);
		cfg->ib_port = (uint8_t)n;
		break;
	case 'g':
		rc = parse_uint("gid-idx", v, 0, UINT8_MAX, &n);
		cfg->gid_idx = (uint8_t)n;
		break;
	default:
		rc = -1;
	}
	return rc;
}

int
rc_opts_parse(int argc, char **argv, struct rc_config *cfg)
{
	int c;

	*cfg = (struct rc_config){ .tcp_port = TCP_PORT_DEFAULT,
		.ib_port = 1, .gid_idx = GID_IDX_DEFAULT };
	optind = 1;             /* EAL ran getopt over its own part */
	while ((c = getopt_long(argc, argv, "p:d:i:g:h", long_opts,
				NULL)) != -1)
		if (set_opt(cfg, c, optarg) < 0)
			return -1;
	if (optind < argc)
		cfg->server_name = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "rc-example: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	return 0;
}
