/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper: reference implementations the wire tests compare lib/wire
 * against, written independently of it and deliberately simple (bit-at-a-
 * time CRC-32, byte-wise Internet checksum), plus the frame edits the tests
 * make (fixing the IPv4 header and UDP checksums after a change).
 */
#ifndef RXD_TEST_REF_H
#define RXD_TEST_REF_H

#include <stddef.h>
#include <stdint.h>

/** Bit-at-a-time CRC-32 (reflected 0xEDB88320), raw state in and out. */
uint32_t rxd_test_crc32_bitwise(uint32_t state, const void *buf, size_t len);

/**
 * Reference ICRC of a RoCEv2 packet: ip points at the IP header (IPv4 with
 * a 20-byte header or IPv6), len counts the bytes up to the ICRC.  Returns
 * the value whose least significant byte goes first on the wire.
 */
uint32_t rxd_test_icrc_ref(const uint8_t *ip, uint32_t len);

/** The 4 ICRC bytes at p, least significant first. */
uint32_t rxd_test_get_le32(const uint8_t *p);

/** Recompute the IPv4 header checksum of the 20-byte header at ip. */
void rxd_test_ipv4_fix_csum(uint8_t *ip);

/**
 * UDP checksum of the datagram after the IP header at ip (IPv4 or IPv6
 * pseudo header), as it goes on the wire (0 is sent as 0xffff).  The
 * checksum field is taken as zero.
 */
uint16_t rxd_test_udp_csum(const uint8_t *ip);

/** Store a fresh UDP checksum if the current one is non-zero. */
void rxd_test_udp_fix_csum(uint8_t *ip);

#endif /* RXD_TEST_REF_H */
