/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The carry-less folding that the PCLMULQDQ, VPCLMULQDQ-256 and
 * VPCLMULQDQ-512 files share (x86 only, private to lib/wire): the folding
 * and Barrett constants, the 16-byte fold, the reduction of a pending
 * block to the CRC register, the tail after the last whole block, and the
 * wide chains' entry points.
 *
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
#ifndef RXD_ICRC_CLMUL_H
#define RXD_ICRC_CLMUL_H

#include <stdint.h>
#include <string.h>

#include <immintrin.h>

#include "rxd_icrc_impl.h"

#define VCLMUL_MIN_LEN 256

#define CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

/** The constants, computed by rxd_crc32_clmul_init(). */
struct rxd_crc32_k {
	uint64_t fold1[2];   /**< D = 128:  x^191, x^127 */
	uint64_t fold2[2];   /**< D = 256 */
	uint64_t fold3[2];   /**< D = 384 */
	uint64_t fold4[2];   /**< D = 512:  x^575, x^511 */
	uint64_t fold8[2];   /**< D = 1024 */
	uint64_t fold12[2];  /**< D = 1536 */
	uint64_t fold16[2];  /**< D = 2048: x^2111, x^2047 */
	uint64_t lanes[8];   /**< fold3, fold2, fold1, 0: 4 lanes */
	uint64_t chunk[2];   /**< x^128, x^64 mod P (k33) */
	uint64_t chunk1[2];  /**< x^96 mod P (k33), 0 */
	uint64_t barrett[2]; /**< mu, P (k33) */
};

extern struct rxd_crc32_k rxd_crc32_k;

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
	const __m128i kc = load128((const uint8_t *)rxd_crc32_k.chunk);
	const __m128i kb = load128((const uint8_t *)rxd_crc32_k.barrett);
	__m128i c02 = _mm_and_si128(x, lo32);     /* c0, c2 */
	__m128i c13 = _mm_srli_epi64(x, 32);      /* c1, c3 */
	__m128i u, q;

	u = _mm_xor_si128(fold(c02, kc), _mm_clmulepi64_si128(
		c13, load128((const uint8_t *)rxd_crc32_k.chunk1), 0x00));
	u = _mm_xor_si128(u, _mm_srli_si128(c13, 8));
	q = _mm_clmulepi64_si128(_mm_and_si128(u, lo32), kb, 0x00);
	q = _mm_clmulepi64_si128(_mm_and_si128(q, lo32), kb, 0x10);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(u, q), 1);
}

/*
 * The folding loops also copy what they fold when d, where the bytes at p
 * go, is not NULL (rxd_icrc_copy): one pass over the data instead of a
 * memcpy and a second pass.  ADVANCE never offsets NULL.
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
	const __m128i k1 = load128((const uint8_t *)rxd_crc32_k.fold1);

	for (; len >= 16; p += 16, d = ADVANCE(d, 16), len -= 16)
		x = _mm_xor_si128(fold(x, k1), take128(p, d));
	if (d != NULL)
		memcpy(d, p, len);
	return rxd_crc32_table_update(reduce(x), p, len);
}

/**
 * The bytes at p (copied to d unless it is NULL) after the pending block
 * x, folded 4 x 64 bytes per step with AVX-512; len >= VCLMUL_MIN_LEN.
 */
uint32_t rxd_crc32_vpclmul512_continue(__m128i x, const uint8_t *p,
				       uint8_t *d, size_t len);

/** The same, 8 x 32 bytes per step with AVX2; len >= VCLMUL_MIN_LEN. */
uint32_t rxd_crc32_vpclmul256_continue(__m128i x, const uint8_t *p,
				       uint8_t *d, size_t len);

#endif /* RXD_ICRC_CLMUL_H */
