/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a received frame's checksum status (mbuf ol_flags, set by the PMD
 * when rx-ipv4-cksum / rx-udp-cksum are on) lets the parser skip.
 */
#include <rte_mbuf.h>

#include "rxd_port.h"
#include "rxd_wire.h"

unsigned int
rxd_port_rx_parse_flags(uint64_t ol_flags)
{
	unsigned int flags = 0;

	if ((ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
	    RTE_MBUF_F_RX_IP_CKSUM_GOOD)
		flags |= RXD_PARSE_IP_CSUM_OK;
	if ((ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
	    RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		flags |= RXD_PARSE_UDP_CSUM_OK;
	return flags;
}
