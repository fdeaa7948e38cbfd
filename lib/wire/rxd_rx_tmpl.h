/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive template of a connection: the header bytes (Ethernet to
 * BTH) of a frame the full parse and every check of the engine and the
 * transport accepted, learnt once, and the few compares that tell whether
 * a later frame is one the connection expects next (opcode and PSN): the
 * MIDDLE or LAST of its message in progress, the ONLY of a small one, a
 * plain ACK.  Such a frame skips the parse up to its BTH; any other
 * frame, and any frame that differs from the template in a byte the
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

/** The bit of RC opcode op (below 0x20) in a set of opcodes. */
#define RXD_RX_TMPL_OP(op) (1u << (op))

/**
 * True if the frame (len bytes, parse flags as for rxd_wire_parse()) is
 * one the connection expects: its opcode one of the set ops (bits
 * RXD_RX_TMPL_OP() of valid RC opcodes), its PSN one of the n_psn from
 * psn on, every fixed header byte as learnt, and every length, pad and
 * checksum check of rxd_wire_parse() passed (the part after the BTH is
 * rxd_wire_parse_after_bth(), the ICRC checked or deferred as there).
 * Then pkt is what rxd_wire_parse() would have made of it; otherwise pkt
 * is undefined and the frame must take the full path.
 */
bool rxd_rx_tmpl_match(const struct rxd_rx_tmpl *t, const uint8_t *frame,
		       uint32_t len, unsigned int flags, uint32_t ops,
		       uint32_t psn, uint32_t n_psn, struct rxd_pkt *pkt);

/**
 * rxd_rx_tmpl_match() for a plain ACK (an ACKNOWLEDGE whose AETH
 * syndrome is ACK) of one of the n_psn PSNs from psn on; NAKs, RNR NAKs,
 * READ responses and atomic ACKs are refused (the full path takes them).
 */
bool rxd_rx_tmpl_match_ack(const struct rxd_rx_tmpl *t, const uint8_t *frame,
			   uint32_t len, unsigned int flags, uint32_t psn,
			   uint32_t n_psn, struct rxd_pkt *pkt);

#endif /* RXD_RX_TMPL_H */
