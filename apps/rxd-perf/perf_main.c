/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-perf: perftest's eight RC benchmarks (ib_write_bw ... ib_atomic_lat)
 * on rxd, with perftest's flags, output and TCP exchange.
 *
 *   rxd-perf EAL-ARGS -- [rxd options] TEST [flags]            (server)
 *   rxd-perf EAL-ARGS -- [rxd options] TEST [flags] HOST       (client)
 *   rxd-perf EAL-ARGS -- [rxd options] TEST [flags] --loopback
 *
 * This file starts EAL and rxd (with a net_ring pair for --loopback), sets
 * up the connection between the two sides and runs them: one side per
 * process, or with --loopback the server on rxd0 in a second thread and
 * the client on rxd1, joined by a socketpair.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "perf_opts.h"
#include "perf_report.h"
#include "perf_session.h"
#include "perf_xchg.h"
#include "rxd/rxd.h"
#include "rxd_port.h"

#define LINK_WAIT_MS_DEFAULT 5000
#define CONNECT_WAIT_MS 10000      /* the server may still be starting */
#define CLOSE_WAIT_MS 10000        /* the client tears down first */
#define MAX_RXD_ARGS 256

static const char *const loopback_ips[] = {
	"--ip", "0:10.0.0.1/24", "--ip", "1:10.0.0.2/24",
};

/* Wait for every port's link, up to RXD_LINK_WAIT_MS (default 5 s). */
static int
wait_links(void)
{
	const char *env = getenv("RXD_LINK_WAIT_MS");
	long ms = env != NULL && env[0] != '\0' ? strtol(env, NULL, 10) :
		  LINK_WAIT_MS_DEFAULT;
	struct rxd_port_info info;
	unsigned int i, up = 0;
	long waited;

	for (waited = 0; waited <= ms; waited++) {
		for (i = 0, up = 0; i < rxd_port_count(); i++)
			up += rxd_port_info(i, &info) == 0 && info.link_up;
		if (up == rxd_port_count())
			return 0;
		if (rxd_poll() == 0)
			usleep(1000);
	}
	fprintf(stderr, "rxd-perf: %u of %u port(s) up after %ld ms "
		"(RXD_LINK_WAIT_MS)\n", up, rxd_port_count(), ms);
	return -1;
}

/*
 * A memif server must outlive its client's teardown (DPDK 22.11 unmaps
 * the shared regions under a polling lcore otherwise).  perftest closes
 * its socket before tearing down: wait for the memif links to drop too.
 */
static void
wait_memif_peer_gone(void)
{
	struct rxd_port_info info;
	unsigned int i, waited;

	for (i = 0; i < rxd_port_count(); i++)
		for (waited = 0; waited < CLOSE_WAIT_MS &&
		     rxd_port_info(i, &info) == 0 && info.link_up &&
		     strcmp(info.driver, "net_memif") == 0; waited++)
			if (rxd_poll() == 0)
				usleep(1000);
}

/* Listen, take one client, run; then outlive the client's teardown. */
static int
serve(struct perf_session *s)
{
	int lfd = perf_xchg_listen((uint16_t)s->o->tcp_port), fd, rc;

	if (lfd < 0)
		return -1;
	perf_report_waiting(s);
	fflush(stdout);
	fd = perf_xchg_accept(lfd);
	close(lfd);
	if (fd < 0)
		return -1;
	rc = wait_links();
	if (rc == 0)
		rc = perf_session_run(s, fd);
	perf_xchg_wait_close(fd, CLOSE_WAIT_MS);
	close(fd);
	wait_memif_peer_gone();
	return rc;
}

static int
run_server(const struct perf_opts *o)
{
	struct perf_session s;
	int rc = perf_session_open(&s, o, false, o->dev_name, false);

	if (rc == 0)
		rc = serve(&s);
	perf_session_close(&s);
	return rc;
}

/* The client; its socket stays open (in *fd) until rxd has stopped, so
 * that the server outlives it. */
static int
run_client(const struct perf_opts *o, int *fd)
{
	struct perf_session s;
	int rc = perf_session_open(&s, o, true, o->dev_name, false);

	if (rc == 0)
		rc = wait_links();
	if (rc == 0) {
		*fd = perf_xchg_connect(o->server, (uint16_t)o->tcp_port,
					CONNECT_WAIT_MS);
		rc = *fd < 0 ? -1 : perf_session_run(&s, *fd);
	}
	perf_session_close(&s);
	return rc;
}

struct loop_server {
	struct perf_session s;
	int fd;
	int rc;
};

static void *
loop_server_main(void *arg)
{
	struct loop_server *ls = arg;

	ls->rc = perf_session_run(&ls->s, ls->fd);
	close(ls->fd);        /* a failed server must not leave the client */
	return NULL;
}

/* Both sides opened: the server in a thread, the client here. */
static int
run_pair(struct loop_server *ls, struct perf_session *client)
{
	pthread_t th;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		fprintf(stderr, "rxd-perf: socketpair: %s\n", strerror(errno));
		return -1;
	}
	ls->fd = sv[0];
	rc = pthread_create(&th, NULL, loop_server_main, ls);
	if (rc != 0) {
		fprintf(stderr, "rxd-perf: pthread_create: %s\n", strerror(rc));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	rc = perf_session_run(client, sv[1]);
	close(sv[1]);
	pthread_join(th, NULL);
	return rc != 0 || ls->rc != 0 ? -1 : 0;
}

static int
run_loopback(const struct perf_opts *o)
{
	struct loop_server ls = { .fd = -1 };
	struct perf_session client = { .sock = -1 };
	int rc;

	if (rxd_inline_progress()) {
		fprintf(stderr, "rxd-perf: --loopback needs an engine lcore: "
			"give EAL two lcores (-l 0-1)\n");
		return -1;
	}
	rc = perf_session_open(&ls.s, o, false, "rxd0", true);
	if (rc == 0)
		rc = perf_session_open(&client, o, true, "rxd1", false);
	if (rc == 0)
		rc = wait_links();
	if (rc == 0)
		rc = run_pair(&ls, &client);
	perf_session_close(&client);
	perf_session_close(&ls.s);
	return rc;
}

/* --loopback: a net_ring pair as rxd0/rxd1, addressed unless --ip is. */
static int
loopback_ports(int *argc, char **argv, char **out)
{
	uint16_t a, b;
	int i, n = 0;
	bool has_ip = false;

	if (rte_eth_dev_count_avail() != 0) {
		fprintf(stderr, "rxd-perf: --loopback makes its own two ports; "
			"give EAL no --vdev\n");
		return -1;
	}
	if (*argc + 5 > MAX_RXD_ARGS) {
		fprintf(stderr, "rxd-perf: more than %d arguments\n",
			MAX_RXD_ARGS - 5);
		return -1;
	}
	if (rxd_port_ring_pair("perfA", "perfB", (int)rte_socket_id(), &a,
			       &b) != 0) {
		fprintf(stderr, "rxd-perf: cannot create the net_ring pair\n");
		return -1;
	}
	for (i = 0; i < *argc; i++) {
		has_ip |= strcmp(argv[i], "--ip") == 0 ||
			  strncmp(argv[i], "--ip=", 5) == 0;
		out[n++] = argv[i];
	}
	for (i = 0; !has_ip && i < 4; i++)
		out[n++] = (char *)loopback_ips[i];
	out[n] = NULL;
	*argc = n;
	return 0;
}

static int
start_rxd(int *argc, char ***argv, char **room)
{
	if (perf_args_want_loopback(*argc, *argv)) {
		if (loopback_ports(argc, *argv, room) != 0)
			return -1;
		*argv = room;
	}
	if (rxd_start(argc, *argv) != 0) {
		fprintf(stderr, "rxd-perf: %s\n", rxd_last_error());
		return -1;
	}
	return 0;
}

static int
run(const struct perf_opts *o, int *client_fd)
{
	if (o->loopback)
		return run_loopback(o);
	if (o->server != NULL)
		return run_client(o, client_fd);
	return run_server(o);
}

int
main(int argc, char **argv)
{
	static char *room[MAX_RXD_ARGS];
	struct perf_opts o;
	int n, rc, client_fd = -1;

	if (argc == 2 && (strcmp(argv[1], "-h") == 0 ||
			  strcmp(argv[1], "--help") == 0)) {
		perf_args_usage();
		return 0;
	}
	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "rxd-perf: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	rc = start_rxd(&argc, &argv, room);
	if (rc == 0) {
		rc = perf_args_parse(&o, argc, argv);
		if (rc == 0)
			rc = run(&o, &client_fd);
		rxd_stop();
	}
	rte_eal_cleanup();
	if (client_fd >= 0)
		close(client_fd);
	return rc < 0 ? 1 : 0;
}
