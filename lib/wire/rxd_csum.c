/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 header and UDP checksums for the codec.  rxd computes every
 * checksum it sends in software; on receive the parser skips the ones the
 * NIC reports good (RXD_PARSE_IP_CSUM_OK, RXD_PARSE_UDP_CSUM_OK).
 */
#include "rxd_bytes.h"
#include "rxd_wire.h"

uint16_t
rxd_ipv4_csum(const uint8_t *ip)
{
	uint32_t sum = rxd_csum_add(0, ip, 10);

	sum = rxd_csum_add(sum, ip + 12, 8);
	return rxd_csum_fold(sum);
}

uint16_t
rxd_udp_csum(const uint8_t *ip, const uint8_t *udp, uint32_t udp_len)
{
	uint32_t sum = udp_len + 17;
	uint16_t csum;

	if ((ip[0] >> 4) == 4)
		sum = rxd_csum_add(sum, ip + 12, 8);
	else
		sum = rxd_csum_add(sum, ip + 8, 32);
	sum = rxd_csum_add(sum, udp, 6);
	sum = rxd_csum_add(sum, udp + 8, udp_len - 8);
	csum = rxd_csum_fold(sum);
	return csum ? csum : 0xffff;
}
