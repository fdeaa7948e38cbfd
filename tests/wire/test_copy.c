/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_copy: each implementation this CPU can run (SSE2, AVX2, AVX-512,
 * libc) copies every length 0..300 and larger ones up to 70,000 bytes at
 * source and destination alignments 0..7 byte-exact, writing nothing
 * outside the destination; masked or unknown implementations are refused.
 */
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "rxd_copy.h"

#define COPY_MAX 70000
#define GUARD 64
#define GUARD_BYTE 0xa5

static enum rxd_copy_impl impls[] = {
	RXD_COPY_SSE2, RXD_COPY_AVX2, RXD_COPY_AVX512, RXD_COPY_LIBC,
};

static size_t
next_len(size_t len)
{
	if (len < 300)
		return len + 1;
	if (len < 5000)
		return len + 97;
	return len + 4999;
}

ParameterizedTestParameters(copy, every_length_and_alignment)
{
	return cr_make_param_array(enum rxd_copy_impl, impls,
				   sizeof(impls) / sizeof(impls[0]));
}

ParameterizedTest(enum rxd_copy_impl *impl, copy, every_length_and_alignment)
{
	static uint8_t src[COPY_MAX + 8], dst[COPY_MAX + 2 * GUARD + 8];
	size_t len, sa, da, i;

	if (rxd_copy_set_impl(*impl) != 0)
		cr_skip_test("copy %s not supported here",
			     rxd_copy_impl_name(*impl));
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 2654435761u >> 24);
	for (sa = 0; sa < 8; sa += 3) {
		for (da = 0; da < 8; da++) {
			for (len = 0; len <= COPY_MAX; len = next_len(len)) {
				uint8_t *d = dst + GUARD + da;

				memset(dst, GUARD_BYTE, sizeof(dst));
				rxd_copy(d, src + sa, len);
				cr_assert_eq(memcmp(d, src + sa, len), 0,
					     "%s: len %zu, align %zu/%zu",
					     rxd_copy_impl_name(*impl), len,
					     sa, da);
				for (i = 0; i < GUARD + da; i++)
					cr_assert_eq(dst[i], GUARD_BYTE);
				for (i = GUARD + da + len; i < sizeof(dst);
				     i += 7)
					cr_assert_eq(dst[i], GUARD_BYTE,
						     "written past: len %zu",
						     len);
			}
		}
	}
}

Test(copy, refuses_unknown)
{
	cr_assert_eq(rxd_copy_set_impl(RXD_COPY_N_IMPLS), -1);
	cr_assert_eq(rxd_copy_set_impl((enum rxd_copy_impl)-1), -1);
	cr_assert_str_eq(rxd_copy_impl_name(RXD_COPY_N_IMPLS), "?");
}
