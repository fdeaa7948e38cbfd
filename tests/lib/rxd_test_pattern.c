/* SPDX-License-Identifier: BSD-3-Clause */
/* The two-process tests' byte patterns (rxd_test_pattern.h). */
#include "rxd_test_pattern.h"

static uint8_t
byte_at(uint32_t seed, uint32_t i)
{
	return (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

void
rxd_test_fill_at(uint8_t *b, uint32_t start, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		b[i] = byte_at(seed, start + i);
}

void
rxd_test_fill(uint8_t *b, uint32_t len, uint32_t seed)
{
	rxd_test_fill_at(b, 0, len, seed);
}

bool
rxd_test_holds(const uint8_t *b, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (b[i] != byte_at(seed, i))
			return false;
	return true;
}
