/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CRC-32 (Ethernet polynomial, reflected) by slicing-by-8 tables: the
 * implementation of any CPU, and the short buffers and tails of the
 * folding ones.
 */
#include <string.h>

#include "rxd_icrc_impl.h"

#define CRC32_POLY 0xedb88320u

static uint32_t crc_table[8][256];

static inline uint32_t
load_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v; /* x86 and arm64 LE hosts only, checked in meson.build */
}

uint32_t
rxd_crc32_table_update(uint32_t state, const uint8_t *p, size_t len)
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

void
rxd_crc32_table_build(void)
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
