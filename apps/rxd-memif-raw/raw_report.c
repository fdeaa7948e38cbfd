/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-memif-raw's output: one line per measurement, either
 *   memif-raw measure=NAME key=value ...
 * or, with --json, {"measure": "NAME", "key": value, ...}.  Integers are
 * printed as integers (-1 = not known), reals with three decimals.
 */
#include <stdio.h>

#include <rte_cycles.h>

#include "memif_raw.h"

double
raw_seconds(uint64_t tsc_cycles)
{
	return (double)tsc_cycles / (double)rte_get_tsc_hz();
}

static void
print_value(const struct raw_field *f)
{
	if (f->is_real)
		printf("%.3f", f->d);
	else
		printf("%lld", (long long)f->i);
}

void
raw_report(const struct raw_opts *o, const char *measure,
	   const struct raw_field *f, unsigned int n)
{
	unsigned int i;

	printf(o->json ? "{\"measure\": \"%s\"" : "memif-raw measure=%s",
	       measure);
	for (i = 0; i < n; i++) {
		printf(o->json ? ", \"%s\": " : " %s=", f[i].key);
		print_value(&f[i]);
	}
	printf(o->json ? "}\n" : "\n");
	fflush(stdout);
}
