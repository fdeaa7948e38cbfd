/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICRC: a slicing-by-8 CRC-32 (Ethernet polynomial, reflected) and the
 * RoCEv2 masking of variant fields.  doc/architecture.md ("ICRC") records
 * why this is used instead of rte_net_crc and how fast each is.
 */
#include <string.h>

#include "rxd_icrc.h"
#include "rxd_wire.h"

#define CRC32_POLY 0xedb88320u

static uint32_t crc_table[8][256];

/* CRC state after the eight 0xFF bytes that stand in for the IB LRH. */
static uint32_t icrc_seed;

static void __attribute__((constructor))
crc_table_init(void)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
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
	icrc_seed = rxd_crc32_update(0xffffffffu, lrh, sizeof(lrh));
}

static inline uint32_t
load_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v; /* x86 and arm64 LE hosts only, checked in meson.build */
}

uint32_t
rxd_crc32_update(uint32_t state, const void *buf, size_t len)
{
	const uint8_t *p = buf;
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

uint32_t
rxd_icrc_begin(const uint8_t *ip)
{
	uint8_t hdr[RXD_IPV6_HLEN + RXD_UDP_HLEN + RXD_BTH_LEN];
	uint32_t ip_len = (ip[0] >> 4) == 4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN;
	uint8_t *udp = hdr + ip_len;
	uint8_t *bth = udp + RXD_UDP_HLEN;

	memcpy(hdr, ip, ip_len + RXD_UDP_HLEN + RXD_BTH_LEN);
	if (ip_len == RXD_IPV4_HLEN) {
		hdr[1] = 0xff;                /* TOS */
		hdr[8] = 0xff;                /* TTL */
		hdr[10] = hdr[11] = 0xff;     /* header checksum */
	} else {
		hdr[0] |= 0x0f;               /* traffic class, flow label */
		hdr[1] = hdr[2] = hdr[3] = 0xff;
		hdr[7] = 0xff;                /* hop limit */
	}
	udp[6] = udp[7] = 0xff;               /* UDP checksum */
	bth[4] = 0xff;                        /* FECN, BECN, resv6 */
	return rxd_crc32_update(icrc_seed, hdr,
				ip_len + RXD_UDP_HLEN + RXD_BTH_LEN);
}

uint32_t
rxd_icrc_compute(const uint8_t *ip, uint32_t len)
{
	uint32_t hlen = ((ip[0] >> 4) == 4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN) +
		RXD_UDP_HLEN + RXD_BTH_LEN;
	uint32_t state = rxd_icrc_begin(ip);

	state = rxd_crc32_update(state, ip + hlen, len - hlen);
	return rxd_icrc_end(state);
}
