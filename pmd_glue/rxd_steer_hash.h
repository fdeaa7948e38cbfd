/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Toeplitz hash a NIC's RSS computes over a RoCEv2 frame's addresses
 * and UDP ports, computed in software (rte_softrss()), so that rxd can
 * tell which RETA entry a connection's frames will take before the first
 * arrives (rxd_steer.c).  Pure: no device is touched.
 */
#ifndef RXD_STEER_HASH_H
#define RXD_STEER_HASH_H

#include <stdbool.h>
#include <stdint.h>

#define RXD_STEER_KEY_LEN 40   /**< bytes of RSS key rxd programs */

/** What RSS hashes of the frames a peer sends to one of rxd's QPs. */
struct rxd_steer_flow {
	uint8_t src[16];   /**< the peer's GID (IPv4-mapped for IPv4) */
	uint8_t dst[16];   /**< rxd's GID the peer sends to */
	uint16_t sport;    /**< the peer's UDP source port */
	uint16_t dport;    /**< UDP destination port (4791) */
};

/** rxd's RSS key (RXD_STEER_KEY_LEN bytes, 4-byte aligned). */
extern const uint8_t rxd_steer_key[RXD_STEER_KEY_LEN];

/** True when the flow's addresses are IPv4 (IPv4-mapped GIDs). */
bool rxd_steer_flow_is_v4(const struct rxd_steer_flow *f);

/**
 * The Toeplitz hash of the flow under key (RXD_STEER_KEY_LEN bytes,
 * 4-byte aligned): over the source and destination addresses, then when
 * l4 the source and destination ports, as RSS's IPv4/IPv6 and
 * IPv4-UDP/IPv6-UDP hash types take them.
 */
uint32_t rxd_steer_hash(const uint8_t *key, const struct rxd_steer_flow *f,
			bool l4);

#endif /* RXD_STEER_HASH_H */
