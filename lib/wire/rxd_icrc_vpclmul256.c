/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CRC-32 folding with AVX2's 256-bit VPCLMULQDQ, for CPUs without AVX-512
 * (Zen 3, Alder Lake; 256 bytes and more): 8 chains of 32 bytes per step,
 * as VPCLMULQDQ's latency is hidden only with many independent folds in
 * flight.  The long part of a chain rxd_icrc_clmul.c began; it ends with
 * that file's tail.
 */
#include "rxd_icrc_clmul.h"

#define VCLMUL256_TARGET \
	__attribute__((target("pclmul,sse4.1,avx2,vpclmulqdq")))

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

VCLMUL256_TARGET uint32_t
rxd_crc32_vpclmul256_continue(__m128i x, const uint8_t *p, uint8_t *d,
			      size_t len)
{
	const __m256i k16 = broadcast256(rxd_crc32_k.fold16);
	__m256i y[YMM_CHAINS];
	__m128i lo, hi;
	unsigned int i;

	x = fold(x, load128((const uint8_t *)rxd_crc32_k.fold1));
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
		y[i + 4] = fold256(y[i], broadcast256(rxd_crc32_k.fold8),
				   y[i + 4]);
	y[6] = fold256(y[4], broadcast256(rxd_crc32_k.fold4), y[6]);
	y[7] = fold256(y[5], broadcast256(rxd_crc32_k.fold4), y[7]);
	y[7] = fold256(y[6], broadcast256(rxd_crc32_k.fold2), y[7]);
	for (; len >= 32; p += 32, d = ADVANCE(d, 32), len -= 32)
		y[7] = fold256(y[7], broadcast256(rxd_crc32_k.fold2),
			       take256(p, d));
	lo = _mm256_castsi256_si128(y[7]);
	hi = _mm256_extracti128_si256(y[7], 1);
	x = _mm_xor_si128(fold(lo, load128((const uint8_t *)rxd_crc32_k.fold1)),
			  hi);
	/* Clean upper state: legacy-SSE code (DPDK's) slows down after us. */
	_mm256_zeroupper();
	return clmul_tail(x, p, d, len);
}
