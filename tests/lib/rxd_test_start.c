/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Starting rxd in a test (rxd_test_eal.h): from one line of rxd options
 * after EAL is up, or from a test program's own command line.
 */
#include <stdarg.h>
#include <stdio.h>

#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_test_eal.h"

int
rxd_test_rxd(const char *fmt, ...)
{
	static struct rxd_test_words w;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = rxd_test_words(&w, NULL, fmt, ap);
	va_end(ap);
	return rc < 0 ? rc : rxd_start(&w.argc, w.argv);
}

int
rxd_test_start_main(const char *name, int *argc, char ***argv)
{
	int n = rte_eal_init(*argc, *argv);

	if (n < 0) {
		fprintf(stderr, "%s: cannot start: EAL\n", name);
		return -1;
	}
	*argc -= n;
	*argv += n;
	if (rxd_start(argc, *argv) != 0) {
		fprintf(stderr, "%s: cannot start: %s\n", name,
			rxd_last_error());
		return -1;
	}
	return 0;
}
