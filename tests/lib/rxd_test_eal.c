/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting EAL in a test from one line of options (rxd_test_eal.h), and
 * the splitting of such a line into an argument vector that
 * rxd_test_start.c uses too.  The vectors live in static storage: a
 * process starts EAL and rxd once.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include "rxd_test_eal.h"

#define EAL_ALWAYS "--no-pci --no-huge --log-level=lib.eal:error"

int
rxd_test_words(struct rxd_test_words *w, const char *tail, const char *fmt,
	       va_list ap)
{
	size_t n;

	vsnprintf(w->line, sizeof(w->line), fmt, ap);
	n = strlen(w->line);
	if (tail != NULL)
		snprintf(w->line + n, sizeof(w->line) - n, " %s", tail);
	w->argc = 0;
	w->argv[w->argc++] = "test";
	for (char *save, *tok = strtok_r(w->line, " ", &save); tok != NULL;
	     tok = strtok_r(NULL, " ", &save)) {
		if (w->argc == RXD_TEST_WORDS_MAX)
			return -1;
		w->argv[w->argc++] = tok;
	}
	w->argv[w->argc] = NULL;
	return 0;
}

int
rxd_test_eal(const char *fmt, ...)
{
	static struct rxd_test_words w;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = rxd_test_words(&w, EAL_ALWAYS, fmt, ap);
	va_end(ap);
	return rc < 0 ? rc : rte_eal_init(w.argc, w.argv);
}

