/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting EAL and rxd in a test: one place for the command lines that
 * every Criterion test and test program used to spell out as arrays with
 * counted lengths.
 */
#ifndef RXD_TEST_EAL_H
#define RXD_TEST_EAL_H

#include <stdarg.h>

#define RXD_TEST_LINE_MAX 1024
#define RXD_TEST_WORDS_MAX 64

/** A line of options split at spaces into an argument vector. */
struct rxd_test_words {
	char line[RXD_TEST_LINE_MAX];
	char *argv[RXD_TEST_WORDS_MAX + 1];
	int argc;
};

/**
 * Split fmt's expansion, then tail if not NULL, into w, after the
 * program name "test".  @return 0, or -1 if there are too many words.
 */
int rxd_test_words(struct rxd_test_words *w, const char *tail,
		   const char *fmt, va_list ap);

/**
 * Start EAL from one line of options, split at spaces, after a program
 * name and before what every test here runs with: no PCI bus, no
 * hugepages, EAL's own log at error level.  Example:
 * rxd_test_eal("-l 0-1 -m 256 --no-shconf --vdev=net_ring0").
 * @return rte_eal_init()'s result.
 */
int rxd_test_eal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/**
 * rxd_start() with one line of rxd options, split at spaces
 * ("--ip 10.0.0.1/24 --set limits.max_qp=64").
 * @return rxd_start()'s result; rxd_last_error() says why it failed.
 */
int rxd_test_rxd(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/**
 * Start EAL and rxd from a test program's own command line
 * (NAME EAL... -- [rxd options] ARGS...).  On success *argc and *argv
 * are what follows rxd's options, the program name first.
 * @return 0, or -1 after printing "NAME: cannot start: WHY" to stderr.
 */
int rxd_test_start_main(const char *name, int *argc, char ***argv);

#endif
