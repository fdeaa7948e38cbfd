/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU features rxd's data path may use: what CPUID reports, less the
 * ones named in the RXD_CPU_FEATURES_OFF environment variable (a comma- or
 * space-separated list, e.g. "avx512f" to run the code an AVX2-only CPU
 * runs on one with AVX-512).  The ICRC and the payload copy choose their
 * implementation from this at start-up, so every fallback can be tested
 * on the fastest machine.
 */
#ifndef RXD_CPU_H
#define RXD_CPU_H

#include <stdbool.h>
#include <stdint.h>

/** The features rxd's implementations depend on (bit numbers). */
enum rxd_cpu_feature {
	RXD_CPU_SSE41 = 0,  /**< SSE4.1 */
	RXD_CPU_PCLMUL,     /**< PCLMULQDQ */
	RXD_CPU_AVX2,       /**< AVX2 */
	RXD_CPU_VPCLMUL,    /**< VPCLMULQDQ (256-bit; 512 with AVX-512F) */
	RXD_CPU_AVX512F,    /**< AVX-512 Foundation */
	RXD_CPU_N_FEATURES
};

/** The environment variable that masks features. */
#define RXD_CPU_FEATURES_OFF_ENV "RXD_CPU_FEATURES_OFF"

/** true if the CPU has the feature and it is not masked. */
bool rxd_cpu_has(enum rxd_cpu_feature f);

/**
 * Parse a RXD_CPU_FEATURES_OFF list.
 * @param list names separated by commas or spaces (NULL: none).
 * @param mask set to the bits (1 << feature) named.
 * @return 0, or -1 if a name is unknown (mask holds the known ones).
 */
int rxd_cpu_mask_parse(const char *list, uint32_t *mask);

/**
 * Describe the features in use into buf, e.g. "sse4.1 pclmul avx2 vpclmulqdq
 * (masked: avx512f)".  @return buf.
 */
const char *rxd_cpu_describe(char *buf, uint32_t size);

#endif /* RXD_CPU_H */
