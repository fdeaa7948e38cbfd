/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memcpy-bench: one core's glibc memcpy bandwidth at a few buffer sizes,
 * the copy ceiling rxd's data path is compared to (every payload byte is
 * copied once on each side), or with --rxd that of rxd_copy(), the data
 * path's own vector copy.  Prints one line per size:
 *   memcpy size=BYTES gbytes_per_s=X
 *   rxd_copy size=BYTES gbytes_per_s=X impl=NAME       (--rxd)
 * the median of 9 rounds, each copying at least 256 MiB, timed by the
 * thread's CPU clock (on a shared machine the wall clock counts the time
 * other processes ran).
 * Usage: memcpy-bench [--rxd] [SIZE ...]
 *        (default sizes 65536 4194304 67108864)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rxd_copy.h"

#define ROUNDS 9
#define ROUND_BYTES (256ull << 20)

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

typedef void (*copy_fn)(void *dst, const void *src, size_t len);

static void
copy_libc(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}

/* Median GB/s of ROUNDS rounds of copying size bytes back and forth. */
static double
measure(copy_fn copy, size_t size)
{
	uint8_t *a = malloc(size), *b = malloc(size);
	uint64_t reps = ROUND_BYTES / size + 1, i;
	double rate[ROUNDS], t0;
	volatile uint8_t sink = 0;
	int r;

	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return -1;
	}
	memset(a, 1, size);
	memset(b, 2, size);
	for (r = 0; r < ROUNDS; r++) {
		t0 = now_s();
		for (i = 0; i < reps; i++) {
			copy(i & 1 ? a : b, i & 1 ? b : a, size);
			sink ^= a[i % size];
		}
		rate[r] = (double)(reps * size) / (now_s() - t0) / 1e9;
	}
	(void)sink;
	free(a);
	free(b);
	qsort(rate, ROUNDS, sizeof(rate[0]), cmp_double);
	return rate[ROUNDS / 2];
}

int
main(int argc, char **argv)
{
	static const char *const dflt[] = { "65536", "4194304", "67108864" };
	bool rxd = argc > 1 && strcmp(argv[1], "--rxd") == 0;
	const char *const *sizes = argc > 1 + rxd ?
		(const char *const *)argv + 1 + rxd : dflt;
	int n = argc > 1 + rxd ? argc - 1 - rxd : 3, i;

	for (i = 0; i < n; i++) {
		char *end;
		unsigned long long size = strtoull(sizes[i], &end, 0);
		double gb;

		if (*end != '\0' || size == 0 || size > (1ull << 32)) {
			fprintf(stderr, "memcpy-bench: '%s': give a size in "
				"bytes from 1 to 4294967296\n", sizes[i]);
			return 2;
		}
		gb = measure(rxd ? rxd_copy : copy_libc, (size_t)size);
		if (gb < 0) {
			fprintf(stderr, "memcpy-bench: out of memory\n");
			return 1;
		}
		if (rxd)
			printf("rxd_copy size=%llu gbytes_per_s=%.2f impl=%s\n",
			       size, gb, rxd_copy_impl_name(rxd_copy_get_impl()));
		else
			printf("memcpy size=%llu gbytes_per_s=%.2f\n", size, gb);
	}
	return 0;
}
