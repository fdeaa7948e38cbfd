/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lazy start for unmodified verbs programs: the first ibv_get_device_list()
 * initialises EAL from RXD_EAL_ARGS, else from the eal_args key of the
 * RXD_CONFIG file (unless the program already did), and starts rxd from
 * RXD_CONFIG / RXD_ADDR / RXD_MTU / RXD_LOG.  The calling
 * thread becomes the EAL main lcore; engines run on the other lcores.
 * In the child of a fork() made after that, rxd refuses to start (ENODEV,
 * with a line saying why) and the child's exit leaves the parent's stack
 * alone.  RXD_START=load starts rxd when the library loads instead.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "rxd_verbs.h"

#define MAX_EAL_ARGS 64

struct rxd_verbs rxd_verbs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * Split RXD_EAL_ARGS on blanks into argv (no quoting: EAL args need none).
 * A quieter telemetry log level goes after the user's EAL arguments:
 * DPDK's telemetry warns on every start that it has no legacy socket, a
 * line that says nothing to a verbs program's user.  EAL applies the
 * --log-level options it was given last to first, so a lib.telemetry
 * level of the user's still wins.
 */
static int
split_args(char *s, char **argv, int max)
{
	int argc = 0;
	char *save = NULL, *tok;

	argv[argc++] = "rxd";
	for (tok = strtok_r(s, " \t\n", &save); tok != NULL && argc < max - 2;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (strcmp(tok, "--") == 0)
			break;
		argv[argc++] = tok;
	}
	argv[argc++] = "--log-level=lib.telemetry:error";
	argv[argc] = NULL;
	return argc;
}

/*
 * The EAL command line into buf: RXD_EAL_ARGS, else [engine] eal_args of
 * the RXD_CONFIG file (*from names which).  @return 0, or an errno after
 * saying why.
 */
static int
eal_args(char *buf, size_t len, const char **from)
{
	const char *env = getenv("RXD_EAL_ARGS"), *file = getenv("RXD_CONFIG");
	static struct rxd_conf c;
	char err[512];

	if ((env == NULL || env[0] == '\0') && file != NULL && file[0] != '\0') {
		rxd_conf_defaults(&c);
		if (rxd_conf_load_file(&c, file, err, sizeof(err)) != 0) {
			fprintf(stderr, "rxd: %s\n", err);
			return EINVAL;
		}
		env = c.eal_args;
		*from = "eal_args of RXD_CONFIG";
	}
	if (env == NULL || env[0] == '\0') {
		fprintf(stderr, "rxd: DPDK is not initialised and neither "
			"RXD_EAL_ARGS nor eal_args in [engine] of RXD_CONFIG "
			"is set; set one to the EAL command line, e.g. "
			"RXD_EAL_ARGS=\"-l 0-1 --no-pci --no-huge -m 512 "
			"--vdev=net_memif0,role=server,socket=/tmp/rxd.sock,"
			"socket-abstract=no\"\n");
		return ENODEV;
	}
	if (strlen(env) >= len) {
		fprintf(stderr, "rxd: %s is too long\n", *from);
		return E2BIG;
	}
	strcpy(buf, env);
	return 0;
}

static int
start_eal(long wait_ms)
{
	static char args[4096];
	const char *from = "RXD_EAL_ARGS";
	char *argv[MAX_EAL_ARGS];
	int argc, rc = eal_args(args, sizeof(args), &from);

	if (rc == 0)
		rc = rxd_eal_args_own_prefix(args, sizeof(args));
	if (rc != 0)
		return rc;
	rxd_eal_args_wait_predecessor(args, wait_ms);
	argc = split_args(args, argv, MAX_EAL_ARGS);
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rxd: EAL initialisation from %s failed: %s\n",
			from, rte_strerror(rte_errno));
		return rte_errno ? rte_errno : EINVAL;
	}
	return 0;
}

static bool eal_ours;
static pid_t started_in;
static bool links_owed;    /* started at load: the first call waits */

bool
rxd_verbs_fork_child(void)
{
	return started_in != 0 && started_in != getpid();
}

#define LINK_WAIT_MS_DEFAULT 5000
#define LINK_WAIT_MS_MAX 3600000

/*
 * RXD_LINK_WAIT_MS in *ms: unset is the default, empty is 0; anything but
 * a number of milliseconds up to an hour is refused (EINVAL) with a line
 * saying why, before anything starts.
 */
static int
link_wait_ms(long *ms)
{
	const char *env = getenv("RXD_LINK_WAIT_MS");
	char *end;

	*ms = LINK_WAIT_MS_DEFAULT;
	if (env == NULL)
		return 0;
	errno = 0;
	*ms = *env == '\0' ? 0 : strtol(env, &end, 10);
	if (*env != '\0' && (errno != 0 || *end != '\0' || *ms < 0 ||
			     *ms > LINK_WAIT_MS_MAX)) {
		fprintf(stderr, "rxd: RXD_LINK_WAIT_MS: '%s' is not a number "
			"of milliseconds in 0..%d\n", env, LINK_WAIT_MS_MAX);
		return EINVAL;
	}
	return 0;
}

/*
 * Programs written for NICs expect an active port (perftest refuses a down
 * one), but a memif link comes up only when its peer connects: wait for the
 * links a while, ms milliseconds (RXD_LINK_WAIT_MS).
 */
static void
wait_for_links(long ms)
{
	uint64_t end = rte_get_timer_cycles() +
		(uint64_t)ms * rte_get_timer_hz() / 1000;
	struct rxd_port_info info;
	unsigned int i, up;

	for (;;) {
		for (i = 0, up = 0; i < rxd_port_count(); i++)
			up += rxd_port_info(i, &info) == 0 && info.link_up;
		if (up == rxd_port_count() || rte_get_timer_cycles() >= end)
			return;
		if (rxd_poll() == 0)
			usleep(1000);
	}
}

/*
 * A lazily started stack stops with the program: engines must not be
 * polling a port while exit() tears the process down.  Not in a fork
 * child: the ports, sockets and EAL files are its parent's.
 */
static void
stop_at_exit(void)
{
	if (rxd_verbs_fork_child())
		return;
	rxd_stop();
	if (eal_ours) {
		rte_eal_cleanup();
		rxd_eal_prefix_remove();
	}
}

/* Start rxd; wait for the links when links_wait is set. */
static int
start(bool links_wait)
{
	char *argv[] = { "rxd", NULL };
	int argc = 1, rc;
	long wait_ms;
	const char *mode = getenv("RXD_START");

	if (mode != NULL && mode[0] != '\0' && strcmp(mode, "load") != 0) {
		fprintf(stderr, "rxd: RXD_START: '%s' is not 'load', its only "
			"value (unset, rxd starts at the first verbs call)\n",
			mode);
		return EINVAL;
	}
	if (rxd_verbs_fork_child()) {
		fprintf(stderr, "rxd: process %ld is a fork() child of the "
			"process that started rxd; rxd runs in that process "
			"only (start rxd after fork(), in the child)\n",
			(long)getpid());
		return ENODEV;
	}
	rc = link_wait_ms(&wait_ms);
	if (rc != 0)
		return rc;
	if (rxd_running()) {
		if (links_wait && links_owed)
			wait_for_links(wait_ms);
		links_owed = false;
		return 0;
	}
	if (rte_lcore_count() == 0) {
		rc = start_eal(wait_ms);
		if (rc != 0)
			return rc;
		eal_ours = true;
	}
	if (rxd_start(&argc, argv) != 0) {
		rc = errno;
		fprintf(stderr, "rxd: %s\n", rxd_last_error());
		return rc;
	}
	started_in = getpid();
	atexit(stop_at_exit);
	if (links_wait)
		wait_for_links(wait_ms);
	links_owed = !links_wait;
	return 0;
}

int
rxd_verbs_start(void)
{
	return start(true);
}

/*
 * RXD_START=load: start rxd as the library loads, before main(), without
 * waiting for the links; the program's first verbs call waits for them
 * (RXD_LINK_WAIT_MS).  For programs that open the device only after
 * their peer has opened its own (fi_pingpong's client waits for the
 * server's address over TCP; the server's verbs provider drops a port
 * that is not active): over memif, the link then comes up while the
 * peer's rxd waits for it.  fi_pingpong's server opens rxd only once
 * its client is on TCP, so the client's link may still be down when it
 * asks for the devices: hence the wait at that first call.  A failure is said on stderr and left to the
 * program's first ibv_get_device_list(), which tries again.
 */
__attribute__((constructor)) static void
start_at_load(void)
{
	const char *env = getenv("RXD_START");

	if (env == NULL || strcmp(env, "load") != 0)
		return;     /* another value is refused by start() */
	pthread_mutex_lock(&rxd_verbs.lock);
	start(false);
	pthread_mutex_unlock(&rxd_verbs.lock);
}
