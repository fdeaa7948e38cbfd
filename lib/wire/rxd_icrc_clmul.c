/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CRC-32 and the ICRC by PCLMULQDQ folding of 4 x 16 bytes (x86 with
 * PCLMULQDQ and SSE4.1, buffers of 64 bytes and more): the constants, the
 * 4-lane chain, and the ICRC's chains, which fold the masked headers and
 * the payload as one and hand long payloads to the VPCLMULQDQ chain in
 * use (rxd_icrc_vpclmul256.c, rxd_icrc_vpclmul512.c).  The fold and the
 * reduction are described in rxd_icrc_clmul.h.
 */
#include "rxd_icrc_clmul.h"

#define CRC32_POLY_FULL 0x104c11db7ull  /* P, normal bit order */

struct rxd_crc32_k rxd_crc32_k;

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

void
rxd_crc32_clmul_init(void)
{
	struct rxd_crc32_k *k = &rxd_crc32_k;

	fold_constants(k->fold1, 128);
	fold_constants(k->fold2, 256);
	fold_constants(k->fold3, 384);
	fold_constants(k->fold4, 512);
	fold_constants(k->fold8, 1024);
	fold_constants(k->fold12, 1536);
	fold_constants(k->fold16, 2048);
	memcpy(k->lanes, k->fold3, sizeof(k->fold3));
	memcpy(k->lanes + 2, k->fold2, sizeof(k->fold2));
	memcpy(k->lanes + 4, k->fold1, sizeof(k->fold1));
	k->chunk[0] = reflect(xn_mod_p(128), 33);
	k->chunk[1] = reflect(xn_mod_p(64), 33);
	k->chunk1[0] = reflect(xn_mod_p(96), 33);
	k->barrett[0] = reflect(mu_of_p(), 33);
	k->barrett[1] = reflect(CRC32_POLY_FULL, 33);
}

/*
 * Four lanes of consecutive blocks into one pending block: each moved onto
 * the last at once (a tree, not a chain of three folds).
 */
CLMUL_TARGET static inline __m128i
merge4(__m128i x0, __m128i x1, __m128i x2, __m128i x3)
{
	x0 = fold(x0, load128((const uint8_t *)rxd_crc32_k.fold3));
	x1 = fold(x1, load128((const uint8_t *)rxd_crc32_k.fold2));
	x2 = fold(x2, load128((const uint8_t *)rxd_crc32_k.fold1));
	return _mm_xor_si128(_mm_xor_si128(x0, x1), _mm_xor_si128(x2, x3));
}

/* The bytes at p follow the pending block x: 4 x 16 bytes per step. */
CLMUL_TARGET static uint32_t
clmul_continue(__m128i x, const uint8_t *p, uint8_t *d, size_t len)
{
	const __m128i k4 = load128((const uint8_t *)rxd_crc32_k.fold4);
	__m128i x0, x1, x2, x3;

	if (len < 64)
		return clmul_tail(x, p, d, len);
	x0 = _mm_xor_si128(take128(p, d), fold(x, load128(
		(const uint8_t *)rxd_crc32_k.fold1)));
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

/*
 * After the pending block x, with the fastest implementation in use;
 * copying to d unless it is NULL.
 */
static inline uint32_t
continue_after(__m128i x, const uint8_t *p, uint8_t *d, size_t len)
{
	if (rxd_crc32_in_use == RXD_CRC32_VCLMUL && len >= VCLMUL_MIN_LEN)
		return rxd_crc32_vpclmul512_continue(x, p, d, len);
	if (rxd_crc32_in_use == RXD_CRC32_VCLMUL256 && len >= VCLMUL_MIN_LEN)
		return rxd_crc32_vpclmul256_continue(x, p, d, len);
	return clmul_continue(x, p, d, len);
}

CLMUL_TARGET uint32_t
rxd_crc32_clmul_update(uint32_t state, const uint8_t *p, size_t len)
{
	return continue_after(_mm_xor_si128(load128(p),
		_mm_cvtsi32_si128((int)state)), p + 16, NULL, len - 16);
}

/* Fold n bytes of whole blocks at blk, the initial state ~0 in the first. */
CLMUL_TARGET static inline __m128i
fold_blocks(const uint8_t *blk, uint32_t n)
{
	const __m128i k1 = load128((const uint8_t *)rxd_crc32_k.fold1);
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
CLMUL_TARGET uint32_t
rxd_icrc_clmul(const uint8_t *masked, uint32_t mlen, const uint8_t *rest,
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
		return rxd_crc32_table_update(rxd_crc32_table_update(
			reduce(x), blk + n, mlen - n), rest, rlen);
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
	const __m128i k1 = load128((const uint8_t *)rxd_crc32_k.fold1);
	__m128i x = _mm_slli_si128(_mm_loadl_epi64((const __m128i *)ip), 8);
	uint32_t i;

	x = _mm_xor_si128(_mm_or_si128(x, load128(mask)),
			  _mm_cvtsi32_si128(-1));
	for (i = 16; i < n; i += 16)
		x = _mm_xor_si128(fold(x, k1), _mm_or_si128(
			load128(ip + i - ICRC_LRH_LEN), load128(mask + i)));
	return x;
}

/* len >= n - 8. */
CLMUL_TARGET uint32_t
rxd_icrc_clmul_frame(const uint8_t *ip, uint32_t len, const uint8_t *mask,
		     uint32_t n)
{
	__m128i x = fold_masked(ip, mask, n);

	if (len == n - ICRC_LRH_LEN)
		return reduce(x);
	return continue_after(x, ip + n - ICRC_LRH_LEN, NULL,
			      len - (n - ICRC_LRH_LEN));
}

CLMUL_TARGET uint32_t
rxd_icrc_clmul_copy(const uint8_t *ip, const uint8_t *mask, uint32_t n,
		    uint8_t *dst, const uint8_t *src, uint32_t len)
{
	return continue_after(fold_masked(ip, mask, n), src, dst, len);
}
