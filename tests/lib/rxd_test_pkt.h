/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper: realistic struct rxd_pkt values for any opcode (what a
 * conformant sender would put in each field), the payload sizes an opcode
 * allows, and a field-by-field comparison of two parsed packets.
 */
#ifndef RXD_TEST_PKT_H
#define RXD_TEST_PKT_H

#include <stddef.h>
#include <stdint.h>

#include "rxd_wire.h"

/** Largest frame a test builds: 2 VLAN tags, IPv6, AtomicETH, 4 KiB. */
#define RXD_TEST_FRAME_MAX 8192

/** Most payload sizes rxd_test_payload_sizes() returns. */
#define RXD_TEST_MAX_SIZES 8

/**
 * Fill pkt with the fields of a valid frame of this opcode: A→B addresses
 * (02:00:00:00:00:0a, 192.0.2.1 / 2001:db8::a to ...:0b, .2, ::b), DSCP 26
 * ECT(0), TTL 64, DF, P_Key 0xffff, AETH ACK, RETH/AtomicETH lengths and
 * addresses consistent with payload_len, AckReq on the last packet of RC
 * requests.  vlans is 0, 1 (802.1Q) or 2 (802.1ad + 802.1Q).
 */
void rxd_test_pkt_make(struct rxd_pkt *pkt, uint8_t opcode, uint8_t ip_ver,
		       uint8_t vlans, uint32_t payload_len);

/**
 * Payload sizes to try for an opcode: {0} without payload, PMTU sizes for
 * FIRST/MIDDLE, 0/1/3/4/255/256/1024/4096 for LAST/ONLY.
 * @return how many were written to sizes (at most RXD_TEST_MAX_SIZES).
 */
unsigned int rxd_test_payload_sizes(uint8_t opcode, uint32_t *sizes);

/** A realistic single payload size (PMTU 1024 for FIRST/MIDDLE). */
uint32_t rxd_test_payload_typical(uint8_t opcode);

/** Fill len bytes with a pattern that depends on seed. */
void rxd_test_payload_fill(uint8_t *buf, uint32_t len, uint32_t seed);

/** Which parts rxd_test_pkt_diff() compares. */
enum rxd_test_cmp {
	RXD_TEST_CMP_L2 = 1u << 0,       /**< MACs, VLAN tags, ethertype */
	RXD_TEST_CMP_UDP_CSUM = 1u << 1, /**< the UDP checksum field */
	RXD_TEST_CMP_ICRC = 1u << 2,     /**< the ICRC field */
	RXD_TEST_CMP_ALL = 0x7,
};

/**
 * Compare two packets field by field: L3, UDP, BTH, the extension headers
 * of the opcode and the layout (offsets relative to the IP header,
 * payload and frame length), plus the parts selected by what.
 * @return NULL if equal, else the name of the first field that differs.
 */
const char *rxd_test_pkt_diff(const struct rxd_pkt *a,
			      const struct rxd_pkt *b, unsigned int what);

#endif /* RXD_TEST_PKT_H */
