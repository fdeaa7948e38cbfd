/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive template of a connection: the header bytes (Ethernet to
 * BTH) of a frame the full parse and every check of the engine and the
 * transport accepted, learnt once, and the few compares that tell whether
 * a later frame is the MIDDLE or LAST the connection's message in
 * progress expects next.  Such a frame skips the table-driven parse; any
 * other frame, and any frame that differs from the template in a byte the
 * connection keeps fixed, goes the full way (rxd_wire_parse()).
 */
#ifndef RXD_RX_TMPL_H
#define RXD_RX_TMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "rxd_wire.h"

/** Ethernet, two VLAN tags, IPv6, UDP and BTH. */
#define RXD_RX_TMPL_MAX 82

/** A connection's receive template. */
struct rxd_rx_tmpl {
	uint8_t hdr[RXD_RX_TMPL_MAX];  /**< the learnt frame's headers */
	uint8_t mask[RXD_RX_TMPL_MAX]; /**< 0xff where frames must equal hdr */
	struct rxd_pkt pkt;  /**< the learnt frame parsed, per-frame fields 0 */
	uint32_t ip_sum;     /**< IPv4: sum of the header's fixed words */
	uint8_t len;         /**< bytes of hdr compared: up to the BTH's end */
	bool armed;          /**< learnt: match() may take frames */
};

/**
 * Learn the template from a frame the full path accepted (pkt is its
 * parse): an RC frame without UDP checksum or CE mark.  Other frames
 * leave the template as it is.
 */
void rxd_rx_tmpl_learn(struct rxd_rx_tmpl *t, const uint8_t *frame,
		       const struct rxd_pkt *pkt);

/**
 * True if the frame (len bytes, parse flags as for rxd_wire_parse()) is
 * the connection's next request packet: opcode middle_op (a SEND or WRITE
 * MIDDLE) or the LAST after it, PSN psn, every fixed header byte as
 * learnt and every length, pad and checksum check of rxd_wire_parse()
 * passed.  Then pkt is what rxd_wire_parse() with RXD_PARSE_DEFER_ICRC
 * would have made of it (its ICRC left to the transport); otherwise pkt
 * is undefined and the frame must take the full path.
 */
bool rxd_rx_tmpl_match(const struct rxd_rx_tmpl *t, const uint8_t *frame,
		       uint32_t len, unsigned int flags, uint8_t middle_op,
		       uint32_t psn, struct rxd_pkt *pkt);

#endif /* RXD_RX_TMPL_H */
