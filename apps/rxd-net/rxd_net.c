/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-net: rxd as a plain IP host, for operators and tests.  Starts rxd on
 * the EAL's ports, then performs the actions given after rxd's own options
 * (on port 0):
 *
 *   --resolve ADDR     resolve ADDR's MAC, print "resolved ADDR MAC"
 *   --ping ADDR[,N]    send N (3) echo requests, print "ping ADDR got/N"
 *   --serve MS         keep answering ARP/ND/ICMP for MS milliseconds
 *                      (SIGTERM/SIGINT end it early)
 *   --wait-link MS     wait up to MS milliseconds for port 0's link
 *   --capture FILE     start capturing port 0 to a pcapng file
 *   --show             print the GID table, neighbours and counters
 *
 * Exit status 0 only if every resolve succeeded and every ping got all its
 * replies.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>

#include "rxd/rxd.h"

static int
parse_gid(const char *s, uint8_t gid[16])
{
	uint8_t v4[4];

	if (inet_pton(AF_INET, s, v4) == 1) {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, v4, 4);
		return 0;
	}
	return inet_pton(AF_INET6, s, gid) == 1 ? 0 : -1;
}

static void
gid_str(const uint8_t gid[16], char *buf, size_t len)
{
	static const uint8_t v4map[12] = { [10] = 0xff, [11] = 0xff };

	if (memcmp(gid, v4map, 12) == 0)
		inet_ntop(AF_INET, gid + 12, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, gid, buf, (socklen_t)len);
}

static int
do_resolve(const char *addr)
{
	uint8_t gid[16], mac[6];

	if (parse_gid(addr, gid) != 0) {
		fprintf(stderr, "rxd-net: bad address %s\n", addr);
		return -1;
	}
	if (rxd_resolve(0, gid, mac, 10000) != 0) {
		printf("resolve %s failed: %s\n", addr, rxd_last_error());
		return -1;
	}
	printf("resolved %s %02x:%02x:%02x:%02x:%02x:%02x\n", addr, mac[0],
	       mac[1], mac[2], mac[3], mac[4], mac[5]);
	return 0;
}

static int
do_ping(char *arg)
{
	char *comma = strchr(arg, ',');
	unsigned int count = 3;
	uint8_t gid[16];
	int got;

	if (comma != NULL) {
		*comma = '\0';
		count = (unsigned int)atoi(comma + 1);
	}
	if (parse_gid(arg, gid) != 0) {
		fprintf(stderr, "rxd-net: bad address %s\n", arg);
		return -1;
	}
	got = rxd_ping(0, gid, count, 10000);
	printf("ping %s %d/%u\n", arg, got, count);
	return got == (int)count ? 0 : -1;
}

static void
show(void)
{
	struct rxd_port_counters c;
	struct rxd_neigh_info nb[32];
	char buf[64];
	uint8_t gid[16];
	unsigned int i;
	int n;

	for (i = 0; rxd_query_gid(0, i, gid) == 0; i++) {
		gid_str(gid, buf, sizeof(buf));
		printf("gid %u %s\n", i, buf);
	}
	n = rxd_neigh_list(0, nb, 32);
	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		gid_str(nb[i].ip, buf, sizeof(buf));
		printf("neigh %s %02x:%02x:%02x:%02x:%02x:%02x %s\n", buf,
		       nb[i].mac[0], nb[i].mac[1], nb[i].mac[2], nb[i].mac[3],
		       nb[i].mac[4], nb[i].mac[5], nb[i].state);
	}
	if (rxd_port_counters(0, &c) != 0)
		return;
	for (i = 0; i < sizeof(c.wire_err) / sizeof(c.wire_err[0]); i++)
		if (c.wire_err[i] != 0)
			printf("dropped %lu: %s\n", c.wire_err[i],
			       rxd_wire_err_name(i));
	printf("counters rx %lu tx %lu arp_rx %lu arp_tx %lu nd_rx %lu "
		       "nd_tx %lu echo_answered %lu echo_replies %lu "
		       "fault_rx_dropped %lu fault_tx_dropped %lu "
		       "capture_written %lu\n",
		       c.rx_pkts, c.tx_pkts, c.arp_rx, c.arp_tx, c.nd_rx,
		       c.nd_tx, c.echo_answered, c.echo_replies,
		       c.fault_rx_dropped, c.fault_tx_dropped,
		       c.capture_written);
}

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static bool
link_up(void)
{
	struct rxd_port_info info;

	return rxd_port_info(0, &info) == 0 && info.link_up;
}

/*
 * Answer the network for ms milliseconds (polling inline engines), or
 * until the link is up when until_link is set.
 */
static int
serve(int ms, bool until_link)
{
	struct timespec t0, t;
	long elapsed;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (until_link && link_up())
			return 0;
		if (rxd_poll() == 0)
			usleep(100);
		clock_gettime(CLOCK_MONOTONIC, &t);
		elapsed = (t.tv_sec - t0.tv_sec) * 1000 +
			(t.tv_nsec - t0.tv_nsec) / 1000000;
	} while (elapsed < ms && !quit);
	if (until_link)
		printf("link still down after %d ms\n", ms);
	return until_link ? -1 : 0;
}

/* Split argv into rxd's options and ours (from the first action on). */
static int
first_action(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--resolve") || !strcmp(argv[i], "--ping")
		    || !strcmp(argv[i], "--serve") || !strcmp(argv[i], "--show")
		    || !strcmp(argv[i], "--wait-link")
		    || !strcmp(argv[i], "--capture"))
			return i;
	return argc;
}

int
main(int argc, char **argv)
{
	int n = rte_eal_init(argc, argv), split, i, rc = 0;

	if (n < 0) {
		fprintf(stderr, "rxd-net: EAL init failed\n");
		return 2;
	}
	argc -= n;
	argv += n;
	argv[0] = "rxd-net";
	split = first_action(argc, argv);
	n = split;
	if (rxd_start(&n, argv) != 0) {
		fprintf(stderr, "rxd-net: %s\n", rxd_last_error());
		return 2;
	}
	if (n > 1) {
		fprintf(stderr, "rxd-net: unknown option %s\n", argv[1]);
		rxd_stop();
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("started\n");
	for (i = split; i < argc; i++) {
		if (!strcmp(argv[i], "--show")) {
			show();
		} else if (i + 1 >= argc) {
			fprintf(stderr, "rxd-net: %s needs a value\n", argv[i]);
			rc = -1;
		} else if (!strcmp(argv[i], "--resolve")) {
			rc |= do_resolve(argv[++i]);
		} else if (!strcmp(argv[i], "--ping")) {
			rc |= do_ping(argv[++i]);
		} else if (!strcmp(argv[i], "--capture")) {
			if (rxd_capture_start(0, argv[++i]) != 0) {
				printf("capture: %s\n", rxd_last_error());
				rc = -1;
			}
		} else if (!strcmp(argv[i], "--wait-link")) {
			rc |= serve(atoi(argv[++i]), true);
		} else {
			serve(atoi(argv[++i]), false);
		}
	}
	rxd_stop();
	rte_eal_cleanup();
	return rc ? 1 : 0;
}
