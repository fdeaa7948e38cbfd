/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi-pingpong: a data-checked MPI judge.  Every pair of ranks in turn
 * (the others wait at a barrier) runs MPI_Send/MPI_Recv round trips of
 * each size: the lower rank sends a pattern of the round, the higher rank
 * checks every byte and sends back the pattern of the next round, which
 * the lower rank checks.  Then every rank takes part in BIG_ITERS
 * allreduces of a vector whose sum it knows.  Rank 0 prints, per pair and
 * size, "pair A-B size N: K round trips, T us each, B MB/s" (MB/s counts
 * both directions' bytes over the time), and "allreduce N doubles over R
 * ranks: ok, T us each" (or DATA WRONG, after the first difference).
 * Exit status: 0 when every byte and every sum was right, 1 otherwise.
 *
 * Usage: mpi-pingpong [-s SIZE[,SIZE...]] [-n ITERS] [-N BIG_ITERS]
 *   sizes default 8,4096,65536,1048576,8388608; ITERS (default 1000)
 *   round trips below 1 MiB, BIG_ITERS (default 20) from 1 MiB up.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIZES_MAX 16
#define BIG (1u << 20)
#define REDUCE_N 4096

struct opts {
	size_t sizes[SIZES_MAX];
	unsigned int n_sizes;
	unsigned int iters, big_iters;
};

/* The byte at offset i of round r's message between ranks a and b. */
static uint8_t
pattern(unsigned int r, int a, int b, size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ r * 40503u ^
		     (uint32_t)(a * 131 + b);

	return (uint8_t)(x ^ x >> 13);
}

static void
fill(uint8_t *buf, size_t len, unsigned int r, int a, int b)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(r, a, b, i);
}

/* The first offset that differs, or len. */
static size_t
differs(const uint8_t *buf, size_t len, unsigned int r, int a, int b)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pattern(r, a, b, i))
			return i;
	return len;
}

static int
parse(int argc, char **argv, struct opts *o)
{
	static const size_t def[] = { 8, 4096, 65536, 1u << 20, 8u << 20 };
	int c;

	o->n_sizes = sizeof(def) / sizeof(def[0]);
	memcpy(o->sizes, def, sizeof(def));
	o->iters = 1000;
	o->big_iters = 20;
	while ((c = getopt(argc, argv, "s:n:N:")) != -1) {
		char *p, *end;

		switch (c) {
		case 's':
			o->n_sizes = 0;
			for (p = optarg; *p != '\0' && o->n_sizes < SIZES_MAX;
			     p = *end == ',' ? end + 1 : end) {
				o->sizes[o->n_sizes] = strtoul(p, &end, 10);
				if (end == p || o->sizes[o->n_sizes] == 0)
					return -1;
				o->n_sizes++;
			}
			break;
		case 'n':
			o->iters = (unsigned int)atoi(optarg);
			break;
		case 'N':
			o->big_iters = (unsigned int)atoi(optarg);
			break;
		default:
			return -1;
		}
	}
	return o->n_sizes > 0 && o->iters > 0 && o->big_iters > 0 ? 0 : -1;
}

/*
 * One size between ranks a < b, run by both.  @return the number of
 * wrong messages this rank saw.
 */
static int
pingpong(int me, int a, int b, size_t len, unsigned int iters,
	 uint8_t *buf)
{
	int peer = me == a ? b : a, bad = 0;
	double t0 = MPI_Wtime(), us;

	for (unsigned int r = 0; r < 2 * iters; r += 2) {
		if (me == a) {
			fill(buf, len, r, a, b);
			MPI_Send(buf, (int)len, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)len, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			bad += differs(buf, len, r + 1, a, b) != len;
		} else {
			MPI_Recv(buf, (int)len, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			bad += differs(buf, len, r, a, b) != len;
			fill(buf, len, r + 1, a, b);
			MPI_Send(buf, (int)len, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
		}
	}
	us = (MPI_Wtime() - t0) * 1e6 / iters;
	if (me == a)
		printf("pair %d-%d size %zu: %u round trips, %.2f us each, "
		       "%.1f MB/s%s\n", a, b, len, iters, us,
		       2.0 * (double)len / us, bad ? ", DATA WRONG" : "");
	return bad;
}

/*
 * Every rank adds (rank + 1) * (i + 1) at i, iters times: the sum is
 * known.  @return 1 if a sum was wrong; *us the time of one allreduce.
 */
static int
allreduce(int me, int n, unsigned int iters, double *us)
{
	static double in[REDUCE_N], out[REDUCE_N];
	double ranks = (double)n * (n + 1) / 2, t0;
	int bad = 0;

	for (int i = 0; i < REDUCE_N; i++)
		in[i] = (double)(me + 1) * (i + 1);
	t0 = MPI_Wtime();
	for (unsigned int k = 0; k < iters; k++) {
		MPI_Allreduce(in, out, REDUCE_N, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
		for (int i = 0; i < REDUCE_N && !bad; i++)
			if (out[i] != ranks * (i + 1)) {
				printf("rank %d: allreduce [%d] = %g, not %g\n",
				       me, i, out[i], ranks * (i + 1));
				bad = 1;
			}
	}
	*us = (MPI_Wtime() - t0) * 1e6 / iters;
	return bad;
}

int
main(int argc, char **argv)
{
	struct opts o;
	size_t max = 0;
	int me, n, bad = 0, all_bad;
	double us;
	uint8_t *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse(argc, argv, &o) != 0 || n < 2) {
		if (me == 0)
			fprintf(stderr, "usage: mpirun -np N (N >= 2) "
				"mpi-pingpong [-s SIZE,...] [-n ITERS] "
				"[-N BIG_ITERS]\n");
		MPI_Finalize();
		return 2;
	}
	for (unsigned int i = 0; i < o.n_sizes; i++)
		max = o.sizes[i] > max ? o.sizes[i] : max;
	buf = malloc(max);
	if (buf == NULL)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++)
			for (unsigned int i = 0; i < o.n_sizes; i++) {
				if (me == a || me == b)
					bad += pingpong(me, a, b, o.sizes[i],
						o.sizes[i] >= BIG ? o.big_iters :
						o.iters, buf);
				MPI_Barrier(MPI_COMM_WORLD);
			}
	bad += allreduce(me, n, o.big_iters, &us);
	MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (me == 0)
		printf("allreduce %d doubles over %d ranks: %s, %.2f us each\n",
		       REDUCE_N, n, all_bad ? "DATA WRONG somewhere" : "ok", us);
	free(buf);
	MPI_Finalize();
	return all_bad != 0;
}
