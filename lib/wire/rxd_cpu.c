/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which CPU features rxd's data path may use: CPUID's answer (GCC's
 * __builtin_cpu_supports, so lib/wire needs no DPDK) less the features
 * RXD_CPU_FEATURES_OFF masks.  Read once, before the first use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxd_cpu.h"

static const char *const feature_names[RXD_CPU_N_FEATURES] = {
	[RXD_CPU_SSE41] = "sse4.1",
	[RXD_CPU_PCLMUL] = "pclmul",
	[RXD_CPU_AVX2] = "avx2",
	[RXD_CPU_VPCLMUL] = "vpclmulqdq",
	[RXD_CPU_AVX512F] = "avx512f",
};

static uint32_t cpu_present;  /* CPUID */
static uint32_t cpu_masked;   /* RXD_CPU_FEATURES_OFF */
static bool cpu_known;

static uint32_t
cpuid_features(void)
{
	uint32_t f = 0;

#if defined(__x86_64__) || defined(__i386__)
	__builtin_cpu_init();
	f |= __builtin_cpu_supports("sse4.1") ? 1u << RXD_CPU_SSE41 : 0;
	f |= __builtin_cpu_supports("pclmul") ? 1u << RXD_CPU_PCLMUL : 0;
	f |= __builtin_cpu_supports("avx2") ? 1u << RXD_CPU_AVX2 : 0;
	f |= __builtin_cpu_supports("vpclmulqdq") ? 1u << RXD_CPU_VPCLMUL : 0;
	f |= __builtin_cpu_supports("avx512f") ? 1u << RXD_CPU_AVX512F : 0;
#endif
	return f;
}

static int
feature_by_name(const char *name, size_t len)
{
	int i;

	for (i = 0; i < RXD_CPU_N_FEATURES; i++)
		if (strlen(feature_names[i]) == len &&
		    strncmp(feature_names[i], name, len) == 0)
			return i;
	return -1;
}

int
rxd_cpu_mask_parse(const char *list, uint32_t *mask)
{
	static const char seps[] = ", ";
	int rc = 0, f;
	size_t n;

	*mask = 0;
	if (list == NULL)
		return 0;
	for (list += strspn(list, seps); *list != '\0';
	     list += n, list += strspn(list, seps)) {
		n = strcspn(list, seps);
		f = feature_by_name(list, n);
		if (f < 0)
			rc = -1;
		else
			*mask |= 1u << f;
	}
	return rc;
}

static void
cpu_learn(void)
{
	const char *off = getenv(RXD_CPU_FEATURES_OFF_ENV);

	cpu_present = cpuid_features();
	if (rxd_cpu_mask_parse(off, &cpu_masked) != 0)
		fprintf(stderr, "rxd: %s=\"%s\": unknown feature names "
			"ignored\n", RXD_CPU_FEATURES_OFF_ENV, off);
	cpu_known = true;
}

bool
rxd_cpu_has(enum rxd_cpu_feature f)
{
	if (!cpu_known)
		cpu_learn();
	return (cpu_present & ~cpu_masked & 1u << f) != 0;
}

/* Append the names of the features in set to buf at *used. */
static void
describe_set(char *buf, uint32_t size, uint32_t *used, uint32_t set)
{
	int i, n;

	for (i = 0; i < RXD_CPU_N_FEATURES; i++) {
		if (!(set & 1u << i) || *used >= size)
			continue;
		n = snprintf(buf + *used, size - *used, "%s%s",
			     *used == 0 || buf[*used - 1] == ' ' ? "" : " ",
			     feature_names[i]);
		*used += n > 0 ? (uint32_t)n : 0;
	}
}

const char *
rxd_cpu_describe(char *buf, uint32_t size)
{
	uint32_t used = 0;
	int n;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (!cpu_known)
		cpu_learn();
	describe_set(buf, size, &used, cpu_present & ~cpu_masked);
	if ((cpu_present & cpu_masked) != 0 && used < size) {
		n = snprintf(buf + used, size - used, "%s(masked: ",
			     used == 0 ? "" : " ");
		used += n > 0 ? (uint32_t)n : 0;
		describe_set(buf, size, &used, cpu_present & cpu_masked);
		if (used < size)
			snprintf(buf + used, size - used, ")");
	}
	return buf;
}
