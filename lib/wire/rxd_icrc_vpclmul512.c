/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CRC-32 folding with AVX-512 VPCLMULQDQ, 4 x 64 bytes per step (x86 with
 * AVX512F and VPCLMULQDQ, 256 bytes and more): the long part of a chain
 * rxd_icrc_clmul.c began; it ends with that file's tail.
 */
#include "rxd_icrc_clmul.h"

#define VCLMUL_TARGET \
	__attribute__((target("pclmul,sse4.1,avx512f,vpclmulqdq")))

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

VCLMUL_TARGET static inline __m512i
broadcast512(const uint64_t k[2])
{
	return _mm512_broadcast_i32x4(load128((const uint8_t *)k));
}

VCLMUL_TARGET uint32_t
rxd_crc32_vpclmul512_continue(__m128i x, const uint8_t *p, uint8_t *d,
			      size_t len)
{
	const __m512i k16 = broadcast512(rxd_crc32_k.fold16);
	const __m512i k4 = broadcast512(rxd_crc32_k.fold4);
	__m512i z0, z1, z2, z3;
	__m128i x0, x1;

	x = fold(x, load128((const uint8_t *)rxd_crc32_k.fold1));
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
	z3 = fold512(z0, broadcast512(rxd_crc32_k.fold12), z3);
	z3 = fold512(z1, broadcast512(rxd_crc32_k.fold8), z3);
	z0 = fold512(z2, k4, z3);
	for (; len >= 64; p += 64, d = ADVANCE(d, 64), len -= 64)
		z0 = fold512(z0, k4, take512(p, d));
	/* and the four lanes onto the last: lane 3's constant is 0 */
	z1 = fold512(z0, _mm512_loadu_si512((const void *)rxd_crc32_k.lanes),
		     _mm512_setzero_si512());
	x0 = _mm_xor_si128(_mm512_extracti32x4_epi32(z1, 0),
			   _mm512_extracti32x4_epi32(z1, 1));
	x1 = _mm_xor_si128(_mm512_extracti32x4_epi32(z1, 2),
			   _mm512_extracti32x4_epi32(z0, 3));
	/* Clean upper state: legacy-SSE code (DPDK's) slows down after us. */
	_mm256_zeroupper();
	return clmul_tail(_mm_xor_si128(x0, x1), p, d, len);
}
