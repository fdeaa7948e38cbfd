/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_copy: the data path's vector copy.  Each width copies 4 vectors a
 * step with unaligned loads and stores, then one vector at a time, then
 * the last vector's worth ending at the buffer's end (overlapping what
 * was copied: no byte loop); under one vector, a small copy of two
 * overlapping words.
 */
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define RXD_HAVE_VCOPY 1
#endif

#include "rxd_copy.h"
#include "rxd_cpu.h"

typedef void (*copy_fn)(uint8_t *d, const uint8_t *s, size_t len);

/* Under 16 bytes: two overlapping words of the largest size that fits. */
static inline void
copy_small(uint8_t *d, const uint8_t *s, size_t len)
{
	uint64_t a, b;
	uint32_t c, e;

	if (len >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + len - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + len - 8, &b, 8);
	} else if (len >= 4) {
		memcpy(&c, s, 4);
		memcpy(&e, s + len - 4, 4);
		memcpy(d, &c, 4);
		memcpy(d + len - 4, &e, 4);
	} else {
		while (len--)
			*d++ = *s++;
	}
}

#ifdef RXD_HAVE_VCOPY
/*
 * One width's loop: VT the vector type, W its bytes, LD/ST its unaligned
 * load and store.  len >= W.
 */
#define VCOPY_BODY(VT, W, LD, ST)					\
	do {								\
		VT v0, v1, v2, v3;					\
									\
		for (; len >= 4 * (W); d += 4 * (W), s += 4 * (W),	\
		     len -= 4 * (W)) {					\
			v0 = LD((const VT *)s);				\
			v1 = LD((const VT *)(s + (W)));			\
			v2 = LD((const VT *)(s + 2 * (W)));		\
			v3 = LD((const VT *)(s + 3 * (W)));		\
			ST((VT *)d, v0);				\
			ST((VT *)(d + (W)), v1);			\
			ST((VT *)(d + 2 * (W)), v2);			\
			ST((VT *)(d + 3 * (W)), v3);			\
		}							\
		for (; len >= (W); d += (W), s += (W), len -= (W))	\
			ST((VT *)d, LD((const VT *)s));			\
		if (len != 0)						\
			ST((VT *)(d + len - (W)),			\
			   LD((const VT *)(s + len - (W))));		\
	} while (0)

static void
copy_sse2(uint8_t *d, const uint8_t *s, size_t len)
{
	if (len < 16) {
		copy_small(d, s, len);
		return;
	}
	VCOPY_BODY(__m128i, 16, _mm_loadu_si128, _mm_storeu_si128);
}

__attribute__((target("avx2"))) static void
copy_avx2(uint8_t *d, const uint8_t *s, size_t len)
{
	if (len < 32) {
		copy_sse2(d, s, len);
		return;
	}
	VCOPY_BODY(__m256i, 32, _mm256_loadu_si256, _mm256_storeu_si256);
	_mm256_zeroupper();
}

__attribute__((target("avx512f"))) static void
copy_avx512(uint8_t *d, const uint8_t *s, size_t len)
{
	if (len < 64) {
		copy_avx2(d, s, len);
		return;
	}
	VCOPY_BODY(__m512i, 64, _mm512_loadu_si512, _mm512_storeu_si512);
	_mm256_zeroupper();
}
#endif /* RXD_HAVE_VCOPY */

static void
copy_libc(uint8_t *d, const uint8_t *s, size_t len)
{
	memcpy(d, s, len);
}

static const struct {
	const char *name;
	copy_fn fn;
	int needs;   /* an rxd_cpu_feature, or -1 */
} copy_impls[RXD_COPY_N_IMPLS] = {
#ifdef RXD_HAVE_VCOPY
	[RXD_COPY_SSE2] = { "SSE2 16-byte", copy_sse2, -1 },
	[RXD_COPY_AVX2] = { "AVX2 32-byte", copy_avx2, RXD_CPU_AVX2 },
	[RXD_COPY_AVX512] = { "AVX-512 64-byte", copy_avx512,
			      RXD_CPU_AVX512F },
#endif
	[RXD_COPY_LIBC] = { "libc memcpy", copy_libc, -1 },
};

static enum rxd_copy_impl copy_impl = RXD_COPY_LIBC;
static copy_fn copy_now = copy_libc;

void
rxd_copy(void *dst, const void *src, size_t len)
{
	copy_now(dst, src, len);
}

enum rxd_copy_impl
rxd_copy_get_impl(void)
{
	return copy_impl;
}

int
rxd_copy_set_impl(enum rxd_copy_impl impl)
{
	if ((unsigned int)impl >= RXD_COPY_N_IMPLS ||
	    copy_impls[impl].fn == NULL ||
	    (copy_impls[impl].needs >= 0 &&
	     !rxd_cpu_has((enum rxd_cpu_feature)copy_impls[impl].needs)))
		return -1;
	copy_impl = impl;
	copy_now = copy_impls[impl].fn;
	return 0;
}

const char *
rxd_copy_impl_name(enum rxd_copy_impl impl)
{
	return (unsigned int)impl < RXD_COPY_N_IMPLS &&
		copy_impls[impl].name != NULL ? copy_impls[impl].name : "?";
}

/* The widest the CPU allows. */
static void __attribute__((constructor))
copy_init(void)
{
	if (rxd_copy_set_impl(RXD_COPY_AVX512) != 0 &&
	    rxd_copy_set_impl(RXD_COPY_AVX2) != 0)
		rxd_copy_set_impl(RXD_COPY_SSE2);
}
