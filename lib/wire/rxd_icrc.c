/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICRC: CRC-32 (Ethernet polynomial, reflected) and the RoCEv2 masking of
 * variant fields.  Four CRC-32 implementations with the same raw-state
 * interface, chosen at start-up from the CPU features rxd_cpu_has() allows
 * (CPUID less RXD_CPU_FEATURES_OFF): slicing-by-8 tables (any CPU; also
 * short buffers and tails), PCLMULQDQ folding of 4 x 16 bytes (x86,
 * buffers of 64 bytes and more), VPCLMULQDQ folding of 8 x 32 bytes (AVX2
 * without AVX-512, 256 bytes and more) and of 4 x 64 bytes (AVX-512, 256
 * bytes and more).  With CLMUL, an
 * ICRC is one fold chain over the masked headers and the payload, ended
 * by a Barrett reduction; a frame being built has its payload copied in
 * by that chain (rxd_icrc_copy).
 * doc/architecture.md ("ICRC") records why this is used instead of
 * rte_net_crc and how fast each is.
 */
#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RXD_HAVE_CLMUL 1
#endif

#include "rxd_copy.h"
#include "rxd_cpu.h"
#include "rxd_icrc.h"
#include "rxd_wire.h"

#define CRC32_POLY 0xedb88320u
#define CRC32_POLY_FULL 0x104c11db7ull  /* P, normal bit order */
#define CLMUL_MIN_LEN 64
#define VCLMUL_MIN_LEN 256
#define ICRC_LRH_LEN 8     /* the 0xFF bytes standing in for the IB LRH */
#define ICRC_HDR_MAX (RXD_IPV6_HLEN + RXD_UDP_HLEN + RXD_BTH_LEN)
#define ICRC_EXT_MAX 32    /* extension headers: AtomicETH (28) and less */
#define ICRC_PREFIX_MAX (ICRC_LRH_LEN + ICRC_HDR_MAX + 15)
/* masked_prefix() writes whole 8-byte words: 68 bytes take 72 */
#define MASKED_BUF ((ICRC_LRH_LEN + ICRC_HDR_MAX + 7) & ~7u)

static uint32_t crc_table[8][256];

static enum rxd_crc32_impl crc_impl = RXD_CRC32_TABLE;

static inline uint32_t
load_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v; /* x86 and arm64 LE hosts only, checked in meson.build */
}

static uint32_t
crc32_table_update(uint32_t state, const uint8_t *p, size_t len)
{
	uint32_t lo, hi;

	while (len >= 8) {
		lo = load_le32(p) ^ state;
		hi = load_le32(p + 4);
		state = crc_table[7][lo & 0xff] ^
			crc_table[6][(lo >> 8) & 0xff] ^
			crc_table[5][(lo >> 16) & 0xff] ^
			crc_table[4][lo >> 24] ^
			crc_table[3][hi & 0xff] ^
			crc_table[2][(hi >> 8) & 0xff] ^
			crc_table[1][(hi >> 16) & 0xff] ^
			crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		state = (state >> 8) ^ crc_table[0][(state ^ *p++) & 0xff];
	return state;
}

static void
crc_table_build(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (CRC32_POLY & (0u - (c & 1)));
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			crc_table[j][i] = (crc_table[j - 1][i] >> 8) ^
				crc_table[0][crc_table[j - 1][i] & 0xff];
}

/*
 * The ICRC's masks, the one place that knows the variant fields: over
 * the bytes of a frame counted from 8 bytes before its IP header, ones
 * for the 8 bytes standing in for the LRH and over each variant field,
 * zero elsewhere.  The ICRC is computed over frame | mask.  A received
 * frame's chain takes the first FRAME_BLOCKS_V4 bytes (the 48 masked) or
 * FRAME_BLOCKS_V6 (the 68 masked and 12 payload bytes that top them up to
 * 5 blocks of 16) through the mask; a frame being built takes its headers
 * and extension headers, topped up to whole blocks.
 */
#define FRAME_BLOCKS_V4 48
#define FRAME_BLOCKS_V6 80
/* up to the extension headers' end, in whole blocks: zeros after 48/68 */
#define FRAME_MASK_LEN ((ICRC_LRH_LEN + ICRC_HDR_MAX + ICRC_EXT_MAX + 15) & \
			~15u)

static const uint8_t frame_mask_v4[FRAME_MASK_LEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	[8 + 1] = 0xff,                         /* TOS */
	[8 + 8] = 0xff,                         /* TTL */
	[8 + 10] = 0xff, [8 + 11] = 0xff,       /* header checksum */
	[8 + 26] = 0xff, [8 + 27] = 0xff,       /* UDP checksum */
	[8 + 32] = 0xff,                        /* BTH: FECN, BECN, resv6 */
};

static const uint8_t frame_mask_v6[FRAME_MASK_LEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	[8 + 0] = 0x0f,                         /* traffic class, flow label */
	[8 + 1] = 0xff, [8 + 2] = 0xff, [8 + 3] = 0xff,
	[8 + 7] = 0xff,                         /* hop limit */
	[8 + 46] = 0xff, [8 + 47] = 0xff,       /* UDP checksum */
	[8 + 52] = 0xff,                        /* BTH: FECN, BECN, resv6 */
};

#ifdef RXD_HAVE_CLMUL
/*
 * Folding.  A 16-byte block loaded little-endian holds the message
 * polynomial reflected: register bit i is the coefficient of x^(127-i).
 * Moving a block D bits further down the message multiplies it by x^D:
 * its low qword (the high-degree half) times x^(D+64) and its high qword
 * times x^D, each reduced mod P; pclmulqdq of two reflected operands lands
 * one bit short, hence the constants x^(D+63) and x^(D-1) mod P, reflected
 * into bits 32..63.  The CRC state is XORed into the first 4 bytes.
 *
 * What is left is one pending block X (the state of everything before it
 * folded in) and a tail of under 16 bytes.  The CRC register after X is
 * M(X) x^32 mod P.  reduce() splits X into 32-bit chunks c0..c3 (c0 of
 * highest degree), sums c0 x^128 + c1 x^96 + c2 x^64 (each chunk times
 * x^n mod P) + c3 x^32, a polynomial U of degree 63 at most, and takes U
 * mod P by Barrett: q = floor(floor(U / x^32) mu / x^32), with mu =
 * floor(x^64 / P), and U mod P = U - qP.  Those operands are reflected
 * into bits 0..32 ("k33": bit i is the coefficient of x^(32-i)), so each
 * product lands with bit k the coefficient of x^(63-k), as U is held.
 */
static uint64_t k_fold1[2];   /* D = 128:  x^191, x^127 */
static uint64_t k_fold2[2];   /* D = 256 */
static uint64_t k_fold3[2];   /* D = 384 */
static uint64_t k_fold4[2];   /* D = 512:  x^575, x^511 */
static uint64_t k_fold8[2];   /* D = 1024 */
static uint64_t k_fold12[2];  /* D = 1536 */
static uint64_t k_fold16[2];  /* D = 2048: x^2111, x^2047 */
static uint64_t k_lanes[8];   /* k_fold3, k_fold2, k_fold1, 0: 4 lanes */
static uint64_t k_chunk[2];   /* x^128, x^64 mod P (k33) */
static uint64_t k_chunk1[2];  /* x^96 mod P (k33), 0 */
static uint64_t k_barrett[2]; /* mu, P (k33) */

/* x^n mod P, normal bit order (bit j: coefficient of x^j). */
static uint64_t
xn_mod_p(unsigned int n)
{
	uint64_t r = 1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		r <<= 1;
		if (r & (1ull << 32))
			r ^= CRC32_POLY_FULL;
	}
	return r;
}

/* floor(x^64 / P), normal bit order (degree 32): long division. */
static uint64_t
mu_of_p(void)
{
	uint64_t q = 0, r = 0;
	int b;

	for (b = 64; b >= 0; b--) {
		r = r << 1 | (b == 64);
		if (r & (1ull << 32)) {
			r ^= CRC32_POLY_FULL;
			q |= 1ull << b;
		}
	}
	return q;
}

/* Reflect a polynomial of degree <= width-1 (bit j -> bit width-1-j). */
static uint64_t
reflect(uint64_t v, unsigned int width)
{
	uint64_t r = 0;
	unsigned int j;

	for (j = 0; j < width; j++)
		if (v & (1ull << j))
			r |= 1ull << (width - 1 - j);
	return r;
}

static void
fold_constants(uint64_t k[2], unsigned int distance)
{
	k[0] = reflect(xn_mod_p(distance + 63), 64);
	k[1] = reflect(xn_mod_p(distance - 1), 64);
}

#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))
#define VCLMUL_TARGET \
	__attribute__((target("pclmul,sse4.1,avx512f,vpclmulqdq")))
#define VCLMUL256_TARGET \
	__attribute__((target("pclmul,sse4.1,avx2,vpclmulqdq")))

CLMUL_TARGET static inline __m128i
fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
			     _mm_clmulepi64_si128(x, k, 0x11));
}

CLMUL_TARGET static inline __m128i
load128(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

/* The CRC register after the pending block x (see above). */
CLMUL_TARGET static inline uint32_t
reduce(__m128i x)
{
	const __m128i lo32 = _mm_set_epi32(0, -1, 0, -1);
	const __m128i kc = load128((const uint8_t *)k_chunk);
	const __m128i kb = load128((const uint8_t *)k_barrett);
	__m128i c02 = _mm_and_si128(x, lo32);     /* c0, c2 */
	__m128i c13 = _mm_srli_epi64(x, 32);      /* c1, c3 */
	__m128i u, q;

	u = _mm_xor_si128(fold(c02, kc), _mm_clmulepi64_si128(
		c13, load128((const uint8_t *)k_chunk1), 0x00));
	u = _mm_xor_si128(u, _mm_srli_si128(c13, 8));
	q = _mm_clmulepi64_si128(_mm_and_si128(u, lo32), kb, 0x00);
	q = _mm_clmulepi64_si128(_mm_and_si128(q, lo32), kb, 0x10);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(u, q), 1);
}

/*
 * The folding loops below also copy what they fold when d, where the
 * bytes at p go, is not NULL (rxd_icrc_copy): one pass over the data
 * instead of a memcpy and a second pass.  ADVANCE never offsets NULL.
 */
#define ADVANCE(d, n) ((d) != NULL ? (d) + (n) : NULL)

CLMUL_TARGET static inline __m128i
take128(const uint8_t *p, uint8_t *d)
{
	__m128i v = load128(p);

	if (d != NULL)
		_mm_storeu_si128((__m128i *)d, v);
	return v;
}

/* Fold len bytes at p (whole blocks first, then the tail) after x. */
CLMUL_TARGET static inline uint32_t
clmul_tail(__m128i x, const uint8_t *p, uint8_t *d, size_t len)
{
	const __m128i k1 = load128((const uint8_t *)k_fold1);

	for (; len >= 16; p += 16, d = ADVANCE(d, 16), len -= 16)
		x = _mm_xor_si128(fold(x, k1), take128(p, d));
	if (d != NULL)
		memcpy(d, p, len);
	return crc32_table_update(reduce(x), p, len);
}

/*
 * Four lanes of consecutive blocks into one pending block: each moved onto
 * the last at once (a tree, not a chain of three folds).
 */
CLMUL_TARGET static inline __m128i
merge4(__m128i x0, __m128i x1, __m128i x2, __m128i x3)
{
	x0 = fold(x0, load128((const uint8_t *)k_fold3));
	x1 = fold(x1, load128((const uint8_t *)k_fold2));
	x2 = fold(x2, load128((const uint8_t *)k_fold1));
	return _mm_xor_si128(_mm_xor_si128(x0, x1), _mm_xor_si128(x2, x3));
}

/* The bytes at p follow the pending block x: 4 x 16 bytes per step. */
CLMUL_TARGET static uint32_t
clmul_continue(__m128i x, const uint8_t *p, uint8_t *d, size_t len)
{
	const __m128i k4 = load128((const uint8_t *)k_fold4);
	__m128i x0, x1, x2, x3;

	if (len < 64)
		return clmul_tail(x, p, d, len);
	x0 = _mm_xor_si128(take128(p, d), fold(x, load128(
		(const uint8_t *)k_fold1)));
	x1 = take128(p + 16, ADVANCE(d, 16));
	x2 = take128(p + 32, ADVANCE(d, 32));
	x3 = take128(p + 48, ADVANCE(d, 48));
	for (p += 64, d = ADVANCE(d, 64), len -= 64; len >= 64;
	     p += 64, d = ADVANCE(d, 64), len -= 64) {
		x0 = _mm_xor_si128(fold(x0, k4), take128(p, d));
		x1 = _mm_xor_si128(fold(x1, k4), take128(p + 16,
							 ADVANCE(d, 16)));
		x2 = _mm_xor_si128(fold(x2, k4), take128(p + 32,
							 ADVANCE(d, 32)));
		x3 = _mm_xor_si128(fold(x3, k4), take128(p + 48,
							 ADVANCE(d, 48)));
	}
	return clmul_tail(merge4(x0, x1, x2, x3), p, d, len);
}

/* Fold the four 16-byte lanes of x by k and XOR y in. */
VCLMUL_TARGET static inline __m512i
fold512(__m512i x, __m512i k, __m512i y)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
					 _mm512_clmulepi64_epi128(x, k, 0x11),
					 y, 0x96); /* a ^ b ^ c */
}

VCLMUL_TARGET static inline __m512i
take512(const uint8_t *p, uint8_t *d)
{
	__m512i v = _mm512_loadu_si512((const void *)p);

	if (d != NULL)
		_mm512_storeu_si512(d, v);
	return v;
}

/* As clmul_continue, 4 x 64 bytes per step; len >= VCLMUL_MIN_LEN. */
VCLMUL_TARGET static uint32_t
vclmul_continue(__m128i x, const uint8_t *p, uint8_t *d, size_t len)
{
	const __m512i k16 = _mm512_broadcast_i32x4(load128(
		(const uint8_t *)k_fold16));
	const __m512i k4 = _mm512_broadcast_i32x4(load128(
		(const uint8_t *)k_fold4));
	__m512i z0, z1, z2, z3;
	__m128i x0, x1;

	x = fold(x, load128((const uint8_t *)k_fold1));
	z0 = _mm512_xor_si512(take512(p, d), _mm512_inserti32x4(
		_mm512_setzero_si512(), x, 0));
	z1 = take512(p + 64, ADVANCE(d, 64));
	z2 = take512(p + 128, ADVANCE(d, 128));
	z3 = take512(p + 192, ADVANCE(d, 192));
	for (p += 256, d = ADVANCE(d, 256), len -= 256; len >= 256;
	     p += 256, d = ADVANCE(d, 256), len -= 256) {
		z0 = fold512(z0, k16, take512(p, d));
		z1 = fold512(z1, k16, take512(p + 64, ADVANCE(d, 64)));
		z2 = fold512(z2, k16, take512(p + 128, ADVANCE(d, 128)));
		z3 = fold512(z3, k16, take512(p + 192, ADVANCE(d, 192)));
	}
	/* the four chains onto the last at once; only the XORs wait */
	z3 = fold512(z0, _mm512_broadcast_i32x4(load128(
		(const uint8_t *)k_fold12)), z3);
	z3 = fold512(z1, _mm512_broadcast_i32x4(load128(
		(const uint8_t *)k_fold8)), z3);
	z0 = fold512(z2, k4, z3);
	for (; len >= 64; p += 64, d = ADVANCE(d, 64), len -= 64)
		z0 = fold512(z0, k4, take512(p, d));
	/* and the four lanes onto the last: lane 3's constant is 0 */
	z1 = fold512(z0, _mm512_loadu_si512((const void *)k_lanes),
		     _mm512_setzero_si512());
	x0 = _mm_xor_si128(_mm512_extracti32x4_epi32(z1, 0),
			   _mm512_extracti32x4_epi32(z1, 1));
	x1 = _mm_xor_si128(_mm512_extracti32x4_epi32(z1, 2),
			   _mm512_extracti32x4_epi32(z0, 3));
	/* Clean upper state: legacy-SSE code (DPDK's) slows down after us. */
	_mm256_zeroupper();
	return clmul_tail(_mm_xor_si128(x0, x1), p, d, len);
}

/* Fold the two 16-byte lanes of x by k and XOR y in. */
VCLMUL256_TARGET static inline __m256i
fold256(__m256i x, __m256i k, __m256i y)
{
	return _mm256_xor_si256(_mm256_xor_si256(
		_mm256_clmulepi64_epi128(x, k, 0x00),
		_mm256_clmulepi64_epi128(x, k, 0x11)), y);
}

VCLMUL256_TARGET static inline __m256i
take256(const uint8_t *p, uint8_t *d)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)p);

	if (d != NULL)
		_mm256_storeu_si256((__m256i *)d, v);
	return v;
}

VCLMUL256_TARGET static inline __m256i
broadcast256(const uint64_t k[2])
{
	return _mm256_broadcastsi128_si256(load128((const uint8_t *)k));
}

#define YMM_CHAINS 8   /* 8 x 32 bytes in flight: 16 independent lanes */

/*
 * As clmul_continue with AVX2's 256-bit VPCLMULQDQ, for CPUs without
 * AVX-512: 8 chains of 32 bytes per step (VPCLMULQDQ's latency is hidden
 * only with many independent folds in flight); len >= VCLMUL_MIN_LEN.
 */
VCLMUL256_TARGET static uint32_t
vclmul256_continue(__m128i x, const uint8_t *p, uint8_t *d, size_t len)
{
	const __m256i k16 = broadcast256(k_fold16);
	__m256i y[YMM_CHAINS];
	__m128i lo, hi;
	unsigned int i;

	x = fold(x, load128((const uint8_t *)k_fold1));
	/* unrolled: the chains stay in registers */
#pragma GCC unroll 8
	for (i = 0; i < YMM_CHAINS; i++)
		y[i] = take256(p + 32 * i, ADVANCE(d, 32 * i));
	y[0] = _mm256_xor_si256(y[0], _mm256_zextsi128_si256(x));
	for (p += 256, d = ADVANCE(d, 256), len -= 256; len >= 256;
	     p += 256, d = ADVANCE(d, 256), len -= 256)
#pragma GCC unroll 8
		for (i = 0; i < YMM_CHAINS; i++)
			y[i] = fold256(y[i], k16, take256(p + 32 * i,
						ADVANCE(d, 32 * i)));
	/* the chains onto the last: 128, then 64, then 32 bytes on */
#pragma GCC unroll 4
	for (i = 0; i < 4; i++)
		y[i + 4] = fold256(y[i], broadcast256(k_fold8), y[i + 4]);
	y[6] = fold256(y[4], broadcast256(k_fold4), y[6]);
	y[7] = fold256(y[5], broadcast256(k_fold4), y[7]);
	y[7] = fold256(y[6], broadcast256(k_fold2), y[7]);
	for (; len >= 32; p += 32, d = ADVANCE(d, 32), len -= 32)
		y[7] = fold256(y[7], broadcast256(k_fold2), take256(p, d));
	lo = _mm256_castsi256_si128(y[7]);
	hi = _mm256_extracti128_si256(y[7], 1);
	x = _mm_xor_si128(fold(lo, load128((const uint8_t *)k_fold1)), hi);
	/* Clean upper state: legacy-SSE code (DPDK's) slows down after us. */
	_mm256_zeroupper();
	return clmul_tail(x, p, d, len);
}

/*
 * After the pending block x, with the fastest implementation in use;
 * copying to d unless it is NULL.
 */
static inline uint32_t
continue_after(__m128i x, const uint8_t *p, uint8_t *d, size_t len)
{
	if (crc_impl == RXD_CRC32_VCLMUL && len >= VCLMUL_MIN_LEN)
		return vclmul_continue(x, p, d, len);
	if (crc_impl == RXD_CRC32_VCLMUL256 && len >= VCLMUL_MIN_LEN)
		return vclmul256_continue(x, p, d, len);
	return clmul_continue(x, p, d, len);
}

/* len >= CLMUL_MIN_LEN. */
CLMUL_TARGET static uint32_t
crc32_clmul_update(uint32_t state, const uint8_t *p, size_t len)
{
	return continue_after(_mm_xor_si128(load128(p),
		_mm_cvtsi32_si128((int)state)), p + 16, NULL, len - 16);
}

/* Fold n bytes of whole blocks at blk, the initial state ~0 in the first. */
CLMUL_TARGET static inline __m128i
fold_blocks(const uint8_t *blk, uint32_t n)
{
	const __m128i k1 = load128((const uint8_t *)k_fold1);
	__m128i x = _mm_xor_si128(load128(blk), _mm_cvtsi32_si128(-1));
	uint32_t i;

	for (i = 16; i < n; i += 16)
		x = _mm_xor_si128(fold(x, k1), load128(blk + i));
	return x;
}

/*
 * The masked headers (after the state's 0xFF bytes) are the first whole
 * blocks, topped up from the payload; one fold chain runs over both.
 * Without payload enough to top them up, the whole blocks are folded and
 * the rest goes through the table.
 */
CLMUL_TARGET static uint32_t
icrc_clmul(const uint8_t *masked, uint32_t mlen, const uint8_t *rest,
	   uint32_t rlen)
{
	uint8_t blk[ICRC_PREFIX_MAX];
	uint32_t n = (mlen + 15) & ~15u, top = n - mlen;
	__m128i x;

	if (top > rlen) {
		n = mlen & ~15u;
		top = 0;
	}
	memcpy(blk, masked, mlen);
	if (top != 0)
		memcpy(blk + mlen, rest, top);
	x = fold_blocks(blk, n);
	if (n < mlen)
		return crc32_table_update(crc32_table_update(reduce(x),
			blk + n, mlen - n), rest, rlen);
	if (rlen == top)
		return reduce(x);
	return continue_after(x, rest + top, NULL, rlen - top);
}

/*
 * The first n bytes (whole blocks) of a frame counted from 8 bytes before
 * ip, masked in registers: each block is loaded from the frame and ORed
 * with its mask, so the headers are not copied (and not read back over the
 * stores a copy would make).  The first block takes the LRH's ones and the
 * 8 bytes at ip.
 */
CLMUL_TARGET static inline __m128i
fold_masked(const uint8_t *ip, const uint8_t *mask, uint32_t n)
{
	const __m128i k1 = load128((const uint8_t *)k_fold1);
	__m128i x = _mm_slli_si128(_mm_loadl_epi64((const __m128i *)ip), 8);
	uint32_t i;

	x = _mm_xor_si128(_mm_or_si128(x, load128(mask)),
			  _mm_cvtsi32_si128(-1));
	for (i = 16; i < n; i += 16)
		x = _mm_xor_si128(fold(x, k1), _mm_or_si128(
			load128(ip + i - ICRC_LRH_LEN), load128(mask + i)));
	return x;
}

/* ICRC chain of a contiguous frame: n masked bytes, len >= n - 8. */
CLMUL_TARGET static uint32_t
icrc_clmul_frame(const uint8_t *ip, uint32_t len, const uint8_t *mask,
		 uint32_t n)
{
	__m128i x = fold_masked(ip, mask, n);

	if (len == n - ICRC_LRH_LEN)
		return reduce(x);
	return continue_after(x, ip + n - ICRC_LRH_LEN, NULL,
			      len - (n - ICRC_LRH_LEN));
}

/*
 * The same for a frame being built: its n - 8 bytes from ip (headers,
 * extension headers and the first payload bytes, already copied to dst)
 * through the mask, then the rest of the payload copied from src to dst
 * by the fold chain.
 */
CLMUL_TARGET static uint32_t
icrc_clmul_copy(const uint8_t *ip, const uint8_t *mask, uint32_t n,
		uint8_t *dst, const uint8_t *src, uint32_t len)
{
	return continue_after(fold_masked(ip, mask, n), src, dst, len);
}

static bool
cpu_has(enum rxd_crc32_impl impl)
{
	bool clmul = rxd_cpu_has(RXD_CPU_PCLMUL) && rxd_cpu_has(RXD_CPU_SSE41);
	bool vclmul = clmul && rxd_cpu_has(RXD_CPU_VPCLMUL);

	switch (impl) {
	case RXD_CRC32_TABLE:
		return true;
	case RXD_CRC32_CLMUL:
		return clmul;
	case RXD_CRC32_VCLMUL:
		return vclmul && rxd_cpu_has(RXD_CPU_AVX512F);
	case RXD_CRC32_VCLMUL256:
		return vclmul && rxd_cpu_has(RXD_CPU_AVX2);
	case RXD_CRC32_N_IMPLS:
		break;
	}
	return false;
}

static void
crc_clmul_init(void)
{
	fold_constants(k_fold1, 128);
	fold_constants(k_fold2, 256);
	fold_constants(k_fold3, 384);
	fold_constants(k_fold4, 512);
	fold_constants(k_fold8, 1024);
	fold_constants(k_fold12, 1536);
	fold_constants(k_fold16, 2048);
	memcpy(k_lanes, k_fold3, sizeof(k_fold3));
	memcpy(k_lanes + 2, k_fold2, sizeof(k_fold2));
	memcpy(k_lanes + 4, k_fold1, sizeof(k_fold1));
	k_chunk[0] = reflect(xn_mod_p(128), 33);
	k_chunk[1] = reflect(xn_mod_p(64), 33);
	k_chunk1[0] = reflect(xn_mod_p(96), 33);
	k_barrett[0] = reflect(mu_of_p(), 33);
	k_barrett[1] = reflect(CRC32_POLY_FULL, 33);
	if (cpu_has(RXD_CRC32_VCLMUL))
		crc_impl = RXD_CRC32_VCLMUL;
	else if (cpu_has(RXD_CRC32_VCLMUL256))
		crc_impl = RXD_CRC32_VCLMUL256;
	else if (cpu_has(RXD_CRC32_CLMUL))
		crc_impl = RXD_CRC32_CLMUL;
}
#else
static bool
cpu_has(enum rxd_crc32_impl impl)
{
	return impl == RXD_CRC32_TABLE;
}

static void
crc_clmul_init(void)
{
}
#endif /* RXD_HAVE_CLMUL */

uint32_t
rxd_crc32_update(uint32_t state, const void *buf, size_t len)
{
#ifdef RXD_HAVE_CLMUL
	if (crc_impl != RXD_CRC32_TABLE && len >= CLMUL_MIN_LEN)
		return crc32_clmul_update(state, buf, len);
#endif
	return crc32_table_update(state, buf, len);
}

enum rxd_crc32_impl
rxd_crc32_get_impl(void)
{
	return crc_impl;
}

const char *
rxd_crc32_impl_name(enum rxd_crc32_impl impl)
{
	static const char *const names[RXD_CRC32_N_IMPLS] = {
		[RXD_CRC32_TABLE] = "table (slicing-by-8)",
		[RXD_CRC32_CLMUL] = "PCLMULQDQ 4x16",
		[RXD_CRC32_VCLMUL] = "VPCLMULQDQ-512 4x64 (AVX-512)",
		[RXD_CRC32_VCLMUL256] = "VPCLMULQDQ-256 8x32 (AVX2)",
	};

	return (unsigned int)impl < RXD_CRC32_N_IMPLS ? names[impl] : "?";
}

int
rxd_crc32_set_impl(enum rxd_crc32_impl impl)
{
	if ((unsigned int)impl >= RXD_CRC32_N_IMPLS)
		return -1;
	if (!cpu_has(impl))
		return -1;
	crc_impl = impl;
	return 0;
}

static void __attribute__((constructor))
crc_init(void)
{
	crc_table_build();
	crc_clmul_init();
}

/*
 * The ICRC's prefix in pre: the LRH's ones, then the IP, UDP and BTH
 * headers with their variant fields set to ones (the masks above, ORed in
 * a word at a time).  pre holds MASKED_BUF bytes.
 * @return the prefix's length (48 bytes for IPv4, 68 for IPv6).
 */
static uint32_t
masked_prefix(const uint8_t *ip, uint8_t *pre)
{
	bool v4 = (ip[0] >> 4) == 4;
	const uint8_t *mask = v4 ? frame_mask_v4 : frame_mask_v6;
	uint32_t len = ICRC_LRH_LEN + (v4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN) +
		RXD_UDP_HLEN + RXD_BTH_LEN;
	uint64_t w, m;
	uint32_t i;

	memset(pre, 0, ICRC_LRH_LEN);
	memcpy(pre + ICRC_LRH_LEN, ip, len - ICRC_LRH_LEN);
	for (i = 0; i < len; i += 8) {
		memcpy(&w, pre + i, sizeof(w));
		memcpy(&m, mask + i, sizeof(m));
		w |= m;
		memcpy(pre + i, &w, sizeof(w));
	}
	return len;
}

uint32_t
rxd_icrc_begin(const uint8_t *ip)
{
	uint8_t pre[MASKED_BUF];
	uint32_t n = masked_prefix(ip, pre);

#ifdef RXD_HAVE_CLMUL
	if (crc_impl != RXD_CRC32_TABLE)
		return icrc_clmul(pre, n, NULL, 0);
#endif
	return crc32_table_update(0xffffffffu, pre, n);
}

/*
 * ICRC of the frame at ip whose len payload bytes after its hdr_len bytes
 * of headers move from src to dst as they are folded (one of the two is
 * the frame's payload); pad bytes follow the payload in the frame.
 */
static uint32_t
icrc_moving(const uint8_t *ip, uint32_t hdr_len, uint8_t *dst,
	    const uint8_t *src, uint32_t len, uint32_t pad)
{
#ifdef RXD_HAVE_CLMUL
	uint32_t n = (ICRC_LRH_LEN + hdr_len + 15) & ~15u;
	uint32_t top = n - ICRC_LRH_LEN - hdr_len;
	uint32_t s;

	if (crc_impl != RXD_CRC32_TABLE && n <= FRAME_MASK_LEN && top <= len) {
		memcpy(dst, src, top);
		s = icrc_clmul_copy(ip, (ip[0] >> 4) == 4 ? frame_mask_v4 :
				    frame_mask_v6, n, dst + top, src + top,
				    len - top);
		return rxd_icrc_end(crc32_table_update(s, ip + hdr_len + len,
						       pad));
	}
#endif
	rxd_copy(dst, src, len);
	return rxd_icrc_compute(ip, hdr_len + len + pad);
}

uint32_t
rxd_icrc_copy(uint8_t *ip, uint32_t hdr_len, const void *src, uint32_t len,
	      uint32_t pad)
{
	return icrc_moving(ip, hdr_len, ip + hdr_len, src, len, pad);
}

uint32_t
rxd_icrc_place(const uint8_t *ip, uint32_t hdr_len, uint32_t len,
	       uint32_t pad, void *dst)
{
	return icrc_moving(ip, hdr_len, dst, ip + hdr_len, len, pad);
}

uint32_t
rxd_icrc_compute(const uint8_t *ip, uint32_t len)
{
	uint8_t pre[MASKED_BUF];
	uint32_t n, h;

#ifdef RXD_HAVE_CLMUL
	bool v4 = (ip[0] >> 4) == 4;

	if (crc_impl != RXD_CRC32_TABLE &&
	    (v4 || len >= FRAME_BLOCKS_V6 - ICRC_LRH_LEN))
		return rxd_icrc_end(v4 ?
			icrc_clmul_frame(ip, len, frame_mask_v4,
					 FRAME_BLOCKS_V4) :
			icrc_clmul_frame(ip, len, frame_mask_v6,
					 FRAME_BLOCKS_V6));
#endif
	n = masked_prefix(ip, pre);
	h = n - ICRC_LRH_LEN;
#ifdef RXD_HAVE_CLMUL
	if (crc_impl != RXD_CRC32_TABLE)
		return rxd_icrc_end(icrc_clmul(pre, n, ip + h, len - h));
#endif
	return rxd_icrc_end(crc32_table_update(
		crc32_table_update(0xffffffffu, pre, n), ip + h, len - h));
}
