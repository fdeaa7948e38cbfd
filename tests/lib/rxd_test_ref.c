/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper: reference CRC-32, ICRC and Internet checksums, written from
 * the definitions (IEEE 802.3 CRC, IBTA annex A17 masks, RFC 1071/768/8200)
 * without looking at lib/wire, so the tests compare two implementations.
 */
#include <string.h>

#include "rxd_test_ref.h"

#define REF_POLY 0xedb88320u
#define IP4_HLEN 20
#define IP6_HLEN 40
#define UDP_HLEN 8
#define BTH_HLEN 12
#define MAX_ICRC_HDR (IP6_HLEN + UDP_HLEN + BTH_HLEN)

uint32_t
rxd_test_crc32_bitwise(uint32_t state, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;
	int bit;

	for (i = 0; i < len; i++) {
		state ^= p[i];
		for (bit = 0; bit < 8; bit++)
			state = (state & 1) ? (state >> 1) ^ REF_POLY :
				state >> 1;
	}
	return state;
}

static uint32_t
ip_hlen(const uint8_t *ip)
{
	return (ip[0] >> 4) == 4 ? IP4_HLEN : IP6_HLEN;
}

/* Set the variant fields of a copy of IP + UDP + BTH to all ones. */
static void
mask_variant(uint8_t *h, uint32_t hlen)
{
	if (hlen == IP4_HLEN) {
		h[1] = 0xff;            /* type of service */
		h[8] = 0xff;            /* time to live */
		h[10] = 0xff;           /* header checksum */
		h[11] = 0xff;
	} else {
		h[0] |= 0x0f;           /* traffic class (high nibble) */
		h[1] = 0xff;            /* traffic class, flow label */
		h[2] = 0xff;
		h[3] = 0xff;
		h[7] = 0xff;            /* hop limit */
	}
	h[hlen + 6] = 0xff;             /* UDP checksum */
	h[hlen + 7] = 0xff;
	h[hlen + UDP_HLEN + 4] = 0xff;  /* BTH FECN, BECN, resv6 */
}

uint32_t
rxd_test_icrc_ref(const uint8_t *ip, uint32_t len)
{
	static const uint8_t ones[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t h[MAX_ICRC_HDR];
	uint32_t hlen = ip_hlen(ip);
	uint32_t covered = hlen + UDP_HLEN + BTH_HLEN;
	uint32_t crc = 0xffffffffu;

	memcpy(h, ip, covered);
	mask_variant(h, hlen);
	crc = rxd_test_crc32_bitwise(crc, ones, sizeof(ones));
	crc = rxd_test_crc32_bitwise(crc, h, covered);
	crc = rxd_test_crc32_bitwise(crc, ip + covered, len - covered);
	return ~crc;
}

uint32_t
rxd_test_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
}

/* RFC 1071 sum of 16-bit big-endian words, odd byte padded with zero. */
static uint32_t
inet_sum(uint32_t sum, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		sum += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
	return sum;
}

static uint16_t
inet_fold(uint32_t sum)
{
	while (sum > 0xffff)
		sum = (sum >> 16) + (sum & 0xffff);
	return (uint16_t)(~sum & 0xffff);
}

void
rxd_test_ipv4_fix_csum(uint8_t *ip)
{
	uint16_t c;

	ip[10] = 0;
	ip[11] = 0;
	c = inet_fold(inet_sum(0, ip, IP4_HLEN));
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

uint16_t
rxd_test_udp_csum(const uint8_t *ip)
{
	uint32_t hlen = ip_hlen(ip);
	const uint8_t *udp = ip + hlen;
	uint32_t udp_len = (uint32_t)udp[4] << 8 | udp[5];
	uint32_t sum;
	uint16_t c;

	if (hlen == IP4_HLEN)
		sum = inet_sum(0, ip + 12, 8);     /* source, destination */
	else
		sum = inet_sum(0, ip + 8, 32);
	sum += 17 + udp_len;                       /* protocol, UDP length */
	sum = inet_sum(sum, udp, 6);               /* checksum taken as 0 */
	sum = inet_sum(sum, udp + UDP_HLEN, udp_len - UDP_HLEN);
	c = inet_fold(sum);
	return c == 0 ? 0xffff : c;
}

void
rxd_test_udp_fix_csum(uint8_t *ip)
{
	uint8_t *udp = ip + ip_hlen(ip);
	uint16_t c;

	if (udp[6] == 0 && udp[7] == 0)
		return;
	c = rxd_test_udp_csum(ip);
	udp[6] = (uint8_t)(c >> 8);
	udp[7] = (uint8_t)c;
}
