/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Receive checksum offload as the engine uses it: the status a PMD sets in
 * ol_flags turns into parser flags, and only a GOOD status lets a frame
 * whose checksum software would refuse through (the NIC checked the bytes
 * it received; a corrupted header would have been BAD).
 */
#include <criterion/criterion.h>
#include <rte_mbuf.h>

#include "rxd_port.h"
#include "rxd_test_pkt.h"
#include "rxd_wire.h"

Test(port_csum, only_good_status_skips_a_check)
{
	cr_assert_eq(rxd_port_rx_parse_flags(0), 0);
	cr_assert_eq(rxd_port_rx_parse_flags(RTE_MBUF_F_RX_IP_CKSUM_GOOD |
					     RTE_MBUF_F_RX_L4_CKSUM_GOOD),
		     RXD_PARSE_IP_CSUM_OK | RXD_PARSE_UDP_CSUM_OK);
	cr_assert_eq(rxd_port_rx_parse_flags(RTE_MBUF_F_RX_IP_CKSUM_GOOD |
					     RTE_MBUF_F_RX_L4_CKSUM_BAD),
		     RXD_PARSE_IP_CSUM_OK);
	cr_assert_eq(rxd_port_rx_parse_flags(RTE_MBUF_F_RX_IP_CKSUM_BAD |
					     RTE_MBUF_F_RX_L4_CKSUM_GOOD),
		     RXD_PARSE_UDP_CSUM_OK);
	cr_assert_eq(rxd_port_rx_parse_flags(RTE_MBUF_F_RX_IP_CKSUM_NONE |
					     RTE_MBUF_F_RX_L4_CKSUM_NONE), 0);
	cr_assert_eq(rxd_port_rx_parse_flags(RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN |
					     RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN), 0);
}

/* A SEND ONLY frame with a UDP checksum, built by the codec. */
static uint32_t
frame(uint8_t *buf, uint32_t cap, uint8_t ip_ver)
{
	static const uint8_t payload[64];
	struct rxd_pkt pkt;

	rxd_test_pkt_make(&pkt, RXD_OP_RC_SEND_ONLY, ip_ver, 0,
			  sizeof(payload));
	pkt.udp_csum = 1;
	return rxd_wire_build(&pkt, payload, buf, cap);
}

static enum rxd_wire_err
parse(const uint8_t *buf, uint32_t len, uint64_t ol_flags)
{
	struct rxd_pkt pkt;

	return rxd_wire_parse(buf, len, &pkt,
			      rxd_port_rx_parse_flags(ol_flags));
}

Test(port_csum, good_status_replaces_the_software_check)
{
	uint8_t buf[256];
	uint32_t len = frame(buf, sizeof(buf), 4);

	cr_assert_gt(len, 0);
	cr_assert_eq(parse(buf, len, 0), RXD_WIRE_OK);
	buf[RXD_ETH_HLEN + 10] ^= 0x01;       /* IPv4 header checksum */
	cr_assert_eq(parse(buf, len, 0), RXD_WIRE_IP_CSUM);
	cr_assert_eq(parse(buf, len, RTE_MBUF_F_RX_IP_CKSUM_BAD),
		     RXD_WIRE_IP_CSUM);
	cr_assert_eq(parse(buf, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD),
		     RXD_WIRE_OK);

	len = frame(buf, sizeof(buf), 6);
	buf[RXD_ETH_HLEN + RXD_IPV6_HLEN + 6] ^= 0x01;   /* UDP checksum */
	cr_assert_eq(parse(buf, len, 0), RXD_WIRE_UDP_CSUM);
	cr_assert_eq(parse(buf, len, RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN),
		     RXD_WIRE_UDP_CSUM);
	cr_assert_eq(parse(buf, len, RTE_MBUF_F_RX_L4_CKSUM_GOOD),
		     RXD_WIRE_OK);
}
