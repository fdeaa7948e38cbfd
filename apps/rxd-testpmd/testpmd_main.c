/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-testpmd: an interactive and batch console for rxd, in the style of
 * DPDK's testpmd.
 *
 *   rxd-testpmd EAL-ARGS -- [rxd options] [-i] [--cmdline-file FILE]...
 *                           [--cmd COMMAND]...
 *
 * Starts EAL and rxd, runs the --cmdline-file and --cmd commands in the
 * order given, then the interactive prompt if -i was given (or if there
 * was nothing else to run).  Exit status: 0, 1 when a command failed,
 * 2 when the program could not start.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_socket.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "testpmd.h"

#define MAX_SOURCES 64

struct tp_state tp;

/* A --cmdline-file or a --cmd, in command line order. */
struct source {
	bool file;
	const char *text;
};

static const struct opt_with_value {
	const char *name;
	bool file;               /* the value names a file */
} value_opts[] = {
	{ "--cmdline-file", true },
	{ "--cmd", false },
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: rxd-testpmd EAL-ARGS -- [rxd options] [-i] "
		"[--cmdline-file FILE]... [--cmd COMMAND]...\n"
		"  -i, --interactive     the prompt (after the commands below)\n"
		"  --cmdline-file FILE   run the commands of FILE; stop at the "
		"first error\n"
		"  --cmd COMMAND         run one command (repeatable)\n"
		"rxd options:\n");
	rxd_conf_write_usage(f);
}

/* Match argv[*i] against value_opts; 1 matched, 0 not, -1 no value. */
static int
value_opt(int argc, char **argv, int *i, struct source *s)
{
	size_t n;
	unsigned int j;

	for (j = 0; j < RTE_DIM(value_opts); j++) {
		n = strlen(value_opts[j].name);
		if (strncmp(argv[*i], value_opts[j].name, n) != 0)
			continue;
		s->file = value_opts[j].file;
		if (argv[*i][n] == '=') {
			s->text = argv[*i] + n + 1;
			return 1;
		}
		if (argv[*i][n] != '\0')
			continue;
		if (*i + 1 >= argc) {
			fprintf(stderr, "rxd-testpmd: %s needs a value\n",
				argv[*i]);
			return -1;
		}
		s->text = argv[++*i];
		return 1;
	}
	return 0;
}

static int
parse_args(int argc, char **argv, struct source *src, unsigned int *n_src)
{
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-i") || !strcmp(argv[i], "--interactive")) {
			tp.interactive = true;
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 1;
		}
		if (*n_src == MAX_SOURCES) {
			fprintf(stderr, "rxd-testpmd: more than %d commands "
				"and files\n", MAX_SOURCES);
			return -1;
		}
		rc = value_opt(argc, argv, &i, &src[*n_src]);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			fprintf(stderr, "rxd-testpmd: unknown option '%s'\n",
				argv[i]);
			usage(stderr);
			return -1;
		}
		++*n_src;
	}
	if (*n_src == 0)
		tp.interactive = true;
	return 0;
}

static void
on_signal(int sig)
{
	(void)sig;
	tp.interrupted = 1;
}

/* SIGINT/SIGTERM end waits and the prompt (no SA_RESTART: read fails). */
static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int
run_sources(const struct source *src, unsigned int n)
{
	struct cmdline *cl = cmdline_new(tp_ctx, "", -1, -1);
	unsigned int i;
	int rc = 0;

	if (cl == NULL) {
		fprintf(stderr, "rxd-testpmd: cannot create a command line\n");
		return -1;
	}
	for (i = 0; i < n && rc == 0 && !tp.quit; i++)
		rc = src[i].file ? tp_run_file(cl, src[i].text) :
			tp_run_string(cl, src[i].text, "--cmd");
	cmdline_free(cl);
	return rc;
}

static int
run_prompt(void)
{
	struct cmdline *cl = cmdline_stdin_new(tp_ctx, TP_PROMPT);

	if (cl == NULL) {
		fprintf(stderr, "rxd-testpmd: cannot open the prompt\n");
		return -1;
	}
	cmdline_interact(cl);
	cmdline_stdin_exit(cl);
	printf("\n");
	return 0;
}

void
tp_hold_signals(bool hold)
{
	static sigset_t saved;
	sigset_t set;

	if (!hold) {
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
		return;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &saved);
}

/* EAL, then rxd; their threads leave SIGINT/SIGTERM to this one. */
static int
start(int *argc, char **argv)
{
	int n;

	tp_hold_signals(true);
	n = rte_eal_init(*argc, argv);
	if (n < 0) {
		tp_hold_signals(false);
		fprintf(stderr, "rxd-testpmd: EAL: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	*argc -= n;
	argv[n] = argv[0];
	n = rxd_start(argc, argv + n) != 0 ? -1 : n;
	tp_hold_signals(false);
	if (n < 0) {
		fprintf(stderr, "rxd-testpmd: %s\n", rxd_last_error());
		rte_eal_cleanup();
		return -1;
	}
	if (rxd_inline_progress()) {
		fprintf(stderr, "rxd-testpmd: every engine needs an lcore of "
			"its own: give EAL a worker lcore (e.g. -l 0-1)\n");
		rxd_stop();
		rte_eal_cleanup();
		return -1;
	}
	return n;
}

int
main(int argc, char **argv)
{
	struct source src[MAX_SOURCES];
	unsigned int n_src = 0;
	int shift = start(&argc, argv), rc, status = 0;

	if (shift < 0)
		return 2;
	rc = parse_args(argc, argv + shift, src, &n_src);
	if (rc < 0)
		status = 2;
	if (rc == 0) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		catch_signals();
		tp.conf = *rxd_config();
		tp.conn_gid = 1;
		tp.stats_period = tp.interactive ? 1 : 0;
		rc = run_sources(src, n_src);
		if (rc == 0 && !tp.quit && tp.interactive)
			rc = run_prompt();
		status = rc == 0 ? 0 : 1;
		tp_stop_traffic(NULL);
		tp_worker_stop();
		tp_conns_close();
	}
	rxd_stop();
	rte_eal_cleanup();
	return status;
}
