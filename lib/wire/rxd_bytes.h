/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unaligned big-endian loads and stores and the Internet checksum, shared by
 * the parser and the builder.
 */
#ifndef RXD_BYTES_H
#define RXD_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint16_t
rxd_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
rxd_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t
rxd_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t
rxd_get64(const uint8_t *p)
{
	return (uint64_t)rxd_get32(p) << 32 | rxd_get32(p + 4);
}

static inline void
rxd_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
rxd_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void
rxd_put32(uint8_t *p, uint32_t v)
{
	rxd_put16(p, (uint16_t)(v >> 16));
	rxd_put16(p + 2, (uint16_t)v);
}

static inline void
rxd_put64(uint8_t *p, uint64_t v)
{
	rxd_put32(p, (uint32_t)(v >> 32));
	rxd_put32(p + 4, (uint32_t)v);
}

/** One's-complement sum of len bytes added to sum (not folded). */
static inline uint32_t
rxd_csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
	while (len > 1) {
		sum += rxd_get16(p);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

/** Fold a one's-complement sum and complement it. */
static inline uint16_t
rxd_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif /* RXD_BYTES_H */
