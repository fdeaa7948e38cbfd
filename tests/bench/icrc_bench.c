/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * icrc-bench: how fast is rxd's CRC-32 (lib/wire, seedable: slicing-by-8
 * tables, PCLMULQDQ, AVX2 and AVX-512 VPCLMULQDQ folding) against DPDK's
 * rte_net_crc (scalar, SSE4.2/PCLMULQDQ, AVX-512/VPCLMULQDQ; no seed) and
 * zlib's crc32, on 64 B, 1 KiB and 4 KiB buffers; and what a whole RoCEv2
 * ICRC costs on frames of 1 KiB (rxd's over memif) and 4 KiB payload,
 * contiguous and gathered, with each rxd implementation; and building such
 * a frame with its payload copied in (one pass) or copied first.
 * Prints the median of several runs (ns per call, GB/s).  A program, not a
 * test: figures vary with machine load; doc/architecture.md records them.
 *
 * usage: icrc-bench [RUNS]   (default 15; no EAL arguments needed)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cpuflags.h>
#include <rte_net_crc.h>
#include <rte_vect.h>
#ifdef RXD_HAVE_ZLIB
#include <zlib.h>
#endif

#include "rxd_cpu.h"
#include "rxd_icrc.h"
#include "rxd_wire.h"

#define MAX_RUNS 101
#define BYTES_PER_RUN (4u << 20)   /* each run hashes about 4 MiB */
#define BUF_MAX 4096

static volatile uint32_t sink;

/* One CRC-32 implementation: optional set-up, then crc(buf, len). */
struct crc_impl {
	const char *name;
	int (*setup)(void);        /* 0 if usable on this CPU */
	uint32_t (*crc)(const uint8_t *buf, uint32_t len);
};

static uint32_t
rxd_crc(const uint8_t *buf, uint32_t len)
{
	return ~rxd_crc32_update(0xffffffffu, buf, len);
}

static uint32_t
dpdk_crc(const uint8_t *buf, uint32_t len)
{
	return rte_net_crc_calc(buf, len, RTE_NET_CRC32_ETH);
}

#ifdef RXD_HAVE_ZLIB
static uint32_t
zlib_crc(const uint8_t *buf, uint32_t len)
{
	return (uint32_t)crc32(0, buf, len);
}
#endif

static int
no_setup(void)
{
	return 0;
}

static int
rxd_table(void)
{
	return rxd_crc32_set_impl(RXD_CRC32_TABLE);
}

static int
rxd_clmul(void)
{
	return rxd_crc32_set_impl(RXD_CRC32_CLMUL);
}

static int
rxd_vclmul(void)
{
	return rxd_crc32_set_impl(RXD_CRC32_VCLMUL);
}

static int
rxd_vclmul256(void)
{
	return rxd_crc32_set_impl(RXD_CRC32_VCLMUL256);
}

static int
dpdk_scalar(void)
{
	rte_net_crc_set_alg(RTE_NET_CRC_SCALAR);
	return 0;
}

static int
dpdk_sse42(void)
{
	if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) <= 0)
		return -1;
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
	return 0;
}

static int
dpdk_avx512(void)
{
	if (rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) <= 0 ||
	    rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ) <= 0)
		return -1;
	rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
	return 0;
}

static const struct crc_impl impls[] = {
	{ "rxd rxd_crc32_update TABLE (slice-by-8)", rxd_table, rxd_crc },
	{ "rxd rxd_crc32_update CLMUL (PCLMULQDQ)", rxd_clmul, rxd_crc },
	{ "rxd rxd_crc32_update VCLMUL (AVX-512)", rxd_vclmul, rxd_crc },
	{ "rxd rxd_crc32_update VCLMUL256 (AVX2)", rxd_vclmul256, rxd_crc },
	{ "DPDK rte_net_crc SCALAR", dpdk_scalar, dpdk_crc },
	{ "DPDK rte_net_crc SSE42 (PCLMULQDQ)", dpdk_sse42, dpdk_crc },
	{ "DPDK rte_net_crc AVX512 (VPCLMULQDQ)", dpdk_avx512, dpdk_crc },
#ifdef RXD_HAVE_ZLIB
	{ "zlib crc32", no_setup, zlib_crc },
#endif
};

#define N_IMPLS (sizeof(impls) / sizeof(impls[0]))

static const uint32_t sizes[] = { 64, 1024, 4096 };

#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median ns per call of fn(arg) over runs runs of iters calls. */
typedef void (*bench_fn)(const void *arg);

static double
time_median(bench_fn fn, const void *arg, uint32_t iters, unsigned int runs)
{
	double ns[MAX_RUNS];
	unsigned int r;
	uint32_t i;

	for (i = 0; i < iters; i++)   /* warm caches and branch predictors */
		fn(arg);
	for (r = 0; r < runs; r++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < iters; i++)
			fn(arg);
		ns[r] = (double)(now_ns() - t0) / iters;
	}
	return median(ns, runs);
}

struct crc_job {
	const struct crc_impl *impl;
	const uint8_t *buf;
	uint32_t len;
};

static void
run_crc(const void *arg)
{
	const struct crc_job *j = arg;

	sink += j->impl->crc(j->buf, j->len);
}

/* The table implementation, whichever is selected (the reference). */
static uint32_t
table_crc(const uint8_t *buf, uint32_t len)
{
	enum rxd_crc32_impl was = rxd_crc32_get_impl();
	uint32_t crc;

	rxd_crc32_set_impl(RXD_CRC32_TABLE);
	crc = rxd_crc(buf, len);
	rxd_crc32_set_impl(was);
	return crc;
}

static void
bench_crcs(const uint8_t *buf, unsigned int runs)
{
	double ns[N_IMPLS][N_SIZES];
	unsigned int i, s;

	printf("%-40s", "CRC-32 over a buffer, ns per call");
	for (s = 0; s < N_SIZES; s++)
		printf("  %6u B (GB/s)   ", sizes[s]);
	printf("\n");
	for (i = 0; i < N_IMPLS; i++) {
		printf("%-40s", impls[i].name);
		rxd_crc32_set_impl(RXD_CRC32_TABLE); /* reference results */
		if (impls[i].setup() != 0) {
			printf("  not supported by this CPU\n");
			continue;
		}
		for (s = 0; s < N_SIZES; s++) {
			struct crc_job j = { &impls[i], buf, sizes[s] };

			if (impls[i].crc(buf, sizes[s]) != table_crc(buf,
								sizes[s])) {
				printf("  WRONG RESULT\n");
				exit(1);
			}
			ns[i][s] = time_median(run_crc, &j,
					       BYTES_PER_RUN / sizes[s], runs);
			printf("  %8.1f (%5.2f)   ", ns[i][s],
			       sizes[s] / ns[i][s]);
		}
		printf("\n");
	}
}

/* A 4 KiB RC RDMA WRITE ONLY over IPv4, built by lib/wire. */
struct frame {
	uint8_t buf[BUF_MAX + 128];
	struct rxd_pkt pkt;
	const uint8_t *ip;
	const uint8_t *payload;
	uint32_t icrc_len, hdr_len;
};

static uint8_t placed[BUF_MAX];

static void
make_frame(struct frame *f, const uint8_t *payload, uint32_t len)
{
	static const uint8_t a[4] = { 192, 0, 2, 1 }, b[4] = { 192, 0, 2, 2 };
	struct rxd_pkt *p = &f->pkt;

	memset(p, 0, sizeof(*p));
	p->smac[5] = 0x0a;
	p->dmac[5] = 0x0b;
	p->ip_ver = 4;
	p->ttl = 64;
	p->ip_df = true;
	rxd_gid_from_v4(p->sgid, a);
	rxd_gid_from_v4(p->dgid, b);
	p->udp_sport = 49152;
	p->opcode = RXD_OP_RC_WRITE_ONLY;
	p->pkey = RXD_DEFAULT_PKEY;
	p->dqpn = 0x22;
	p->ackreq = true;
	p->reth_len = len;
	p->payload_len = len;
	if (rxd_wire_build(p, payload, f->buf, sizeof(f->buf)) == 0) {
		fprintf(stderr, "icrc-bench: cannot build the frame\n");
		exit(1);
	}
	f->payload = payload;
	f->ip = f->buf + p->l3_off;
	f->icrc_len = p->frame_len - p->l3_off - RXD_ICRC_LEN;
	f->hdr_len = p->payload_off - p->l3_off;
}

static void
run_icrc(const void *arg)
{
	const struct frame *f = arg;

	sink += rxd_icrc_compute(f->ip, f->icrc_len);
}

/* Headers in one buffer, payload in another (as from an mbuf chain). */
static void
run_icrc_gather(const void *arg)
{
	const struct frame *f = arg;
	uint32_t s = rxd_icrc_begin(f->ip);
	uint32_t bth_end = f->pkt.bth_off + RXD_BTH_LEN - f->pkt.l3_off;

	s = rxd_crc32_update(s, f->ip + bth_end, f->hdr_len - bth_end);
	s = rxd_crc32_update(s, f->ip + f->hdr_len, f->icrc_len - f->hdr_len);
	sink += rxd_icrc_end(s);
}

/* The transmit path: the builder copies the payload in as it sums. */
static void
run_build_copying(const void *arg)
{
	struct frame *f = (struct frame *)(uintptr_t)arg;

	sink += rxd_wire_build(&f->pkt, f->payload, f->buf, sizeof(f->buf));
}

/* The same, the payload copied first and summed in a second pass. */
static void
run_copy_then_build(const void *arg)
{
	struct frame *f = (struct frame *)(uintptr_t)arg;

	memcpy(f->buf + f->pkt.payload_off, f->payload, f->pkt.payload_len);
	sink += rxd_wire_build(&f->pkt, NULL, f->buf, sizeof(f->buf));
}

/* The receive path before placing while checking: check, then memcpy. */
static void
run_check_then_copy(const void *arg)
{
	const struct frame *f = arg;

	sink += rxd_icrc_compute(f->ip, f->icrc_len);
	memcpy(placed, f->ip + f->hdr_len, f->pkt.payload_len);
}

/* The receive path of a WRITE MIDDLE/LAST: copied out as it is checked. */
static void
run_place(const void *arg)
{
	const struct frame *f = arg;

	sink += rxd_icrc_place(f->ip, f->hdr_len, f->pkt.payload_len,
			       f->icrc_len - f->hdr_len - f->pkt.payload_len,
			       placed);
}

static const struct {
	const char *name;
	enum rxd_crc32_impl impl;
} icrc_impls[] = {
	{ "TABLE", RXD_CRC32_TABLE },
	{ "CLMUL", RXD_CRC32_CLMUL },
	{ "VCLMUL", RXD_CRC32_VCLMUL },
	{ "VCL256", RXD_CRC32_VCLMUL256 },
};

static void
bench_icrc(const uint8_t *payload, uint32_t len, unsigned int runs,
	   enum rxd_crc32_impl def)
{
	static struct frame f;
	unsigned int i;
	double t;

	make_frame(&f, payload, len);
	printf("\nRoCEv2 ICRC of a %u-byte frame (RC WRITE ONLY, %u B "
	       "payload, IPv4); default CRC: %s\n", f.pkt.frame_len, len,
	       rxd_crc32_impl_name(def));
	for (i = 0; i < sizeof(icrc_impls) / sizeof(icrc_impls[0]); i++) {
		if (rxd_crc32_set_impl(icrc_impls[i].impl) != 0)
			continue;
		t = time_median(run_icrc, &f, BYTES_PER_RUN / len, runs);
		printf("%-6s %-34s  %8.1f ns (%5.2f GB/s)\n",
		       icrc_impls[i].name, "rxd_icrc_compute", t,
		       f.icrc_len / t);
		t = time_median(run_icrc_gather, &f, BYTES_PER_RUN / len,
				runs);
		printf("%-6s %-34s  %8.1f ns (%5.2f GB/s)\n",
		       icrc_impls[i].name, "rxd_icrc_begin + 2 segments + end",
		       t, f.icrc_len / t);
		t = time_median(run_copy_then_build, &f, BYTES_PER_RUN / len,
				runs);
		printf("%-6s %-34s  %8.1f ns\n", icrc_impls[i].name,
		       "memcpy + rxd_wire_build in place", t);
		t = time_median(run_build_copying, &f, BYTES_PER_RUN / len,
				runs);
		printf("%-6s %-34s  %8.1f ns\n", icrc_impls[i].name,
		       "rxd_wire_build copying (one pass)", t);
		t = time_median(run_check_then_copy, &f, BYTES_PER_RUN / len,
				runs);
		printf("%-6s %-34s  %8.1f ns\n", icrc_impls[i].name,
		       "receive: rxd_icrc_compute + memcpy", t);
		t = time_median(run_place, &f, BYTES_PER_RUN / len, runs);
		printf("%-6s %-34s  %8.1f ns\n", icrc_impls[i].name,
		       "receive: rxd_icrc_place (one pass)", t);
	}
}

int
main(int argc, char **argv)
{
	static uint8_t buf[BUF_MAX];
	unsigned int runs = argc > 1 ? (unsigned int)atoi(argv[1]) : 15;
	enum rxd_crc32_impl def = rxd_crc32_get_impl();
	char cpu[128];
	unsigned int i;

	if (runs == 0 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: %s [RUNS 1..%d]\n", argv[0], MAX_RUNS);
		return 2;
	}
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 24);
	/*
	 * Without rte_eal_init() the EAL's max SIMD width is 0 and
	 * rte_net_crc_set_alg() silently falls back to the scalar code.
	 */
	if (rte_vect_set_max_simd_bitwidth(RTE_VECT_SIMD_512) != 0)
		fprintf(stderr, "icrc-bench: cannot raise the SIMD width\n");
	printf("icrc-bench: median of %u runs, ~4 MiB hashed per run; CPU: "
	       "PCLMULQDQ %d, AVX512F %d, VPCLMULQDQ %d; rxd uses: %s; "
	       "ICRC: %s\n\n", runs,
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ),
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F),
	       rte_cpu_get_flag_enabled(RTE_CPUFLAG_VPCLMULQDQ),
	       rxd_cpu_describe(cpu, sizeof(cpu)), rxd_crc32_impl_name(def));
	bench_crcs(buf, runs);
	bench_icrc(buf, 1024, runs, def);   /* rxd's frames over memif */
	bench_icrc(buf, BUF_MAX, runs, def);
	return 0;
}
