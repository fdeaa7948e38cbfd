/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The part of the frame parser after the BTH: extension headers, payload
 * and pad, the length, RETH and AETH checks and the ICRC.  Inline, so that
 * the full parse (rxd_parse.c) and the receive template's match
 * (rxd_rx_tmpl.c) run the same checks without a call per frame.
 */
#ifndef RXD_PARSE_TAIL_H
#define RXD_PARSE_TAIL_H

#include "rxd_bytes.h"
#include "rxd_exthdr.h"
#include "rxd_icrc.h"
#include "rxd_wire.h"

static inline enum rxd_wire_err
check_aeth(const struct rxd_pkt *pkt)
{
	uint8_t type = rxd_aeth_type(pkt->aeth_syndrome);

	if (pkt->aeth_syndrome & 0x80 || type == RXD_AETH_RESERVED)
		return RXD_WIRE_AETH;
	if (type == RXD_AETH_NAK &&
	    rxd_aeth_code(pkt->aeth_syndrome) > RXD_NAK_INVALID_RD)
		return RXD_WIRE_AETH;
	/* NAKs travel in ACKNOWLEDGE packets only. */
	if (type != RXD_AETH_ACK && !(pkt->op->flags & RXD_OPF_ACK))
		return RXD_WIRE_AETH;
	return RXD_WIRE_OK;
}

static inline bool
is_pmtu(uint32_t len)
{
	return len >= 256 && len <= RXD_MAX_PMTU && (len & (len - 1)) == 0;
}

static inline enum rxd_wire_err
check_length(const struct rxd_pkt *pkt, uint32_t with_pad)
{
	uint32_t f = pkt->op->flags;

	if (pkt->padcnt > with_pad || (with_pad & 3))
		return RXD_WIRE_PAD;
	if (!(f & RXD_OPF_PAYLOAD))
		return with_pad ? RXD_WIRE_LENGTH : RXD_WIRE_OK;
	if (!(f & RXD_OPF_LAST)) {
		if (pkt->padcnt)
			return RXD_WIRE_PAD;
		return is_pmtu(pkt->payload_len) ? RXD_WIRE_OK :
			RXD_WIRE_LENGTH;
	}
	if (pkt->payload_len > RXD_MAX_PMTU)
		return RXD_WIRE_LENGTH;
	if ((f & RXD_OPF_ATOMIC_WRITE) &&
	    pkt->payload_len != RXD_ATOMIC_WRITE_LEN)
		return RXD_WIRE_LENGTH;
	if (pkt->op->hdrs & RXD_HDR_RETH) {
		if (pkt->reth_len > 0x80000000u)
			return RXD_WIRE_LENGTH;
		if ((f & RXD_OPF_FIRST) && pkt->reth_len != pkt->payload_len)
			return RXD_WIRE_LENGTH;
	}
	return RXD_WIRE_OK;
}

static inline enum rxd_wire_err
check_first_reth(const struct rxd_pkt *pkt)
{
	if ((pkt->op->hdrs & RXD_HDR_RETH) && (pkt->op->flags & RXD_OPF_WRITE) &&
	    !(pkt->op->flags & RXD_OPF_LAST) &&
	    (pkt->reth_len <= pkt->payload_len || pkt->reth_len > 0x80000000u))
		return RXD_WIRE_LENGTH;
	return RXD_WIRE_OK;
}

/*
 * The opcodes whose ICRC check RXD_PARSE_DEFER_ICRC leaves to the
 * transport: the MIDDLE and LAST of an RC SEND, WRITE (neither with
 * immediate data or an rkey to invalidate) or READ response, whose place
 * in memory follows from the QP's state, not from the frame.
 */
static inline bool
placed_early(const struct rxd_opcode_info *op)
{
	uint16_t f = op->flags & (RXD_OPF_SEND | RXD_OPF_WRITE | RXD_OPF_READ |
				  RXD_OPF_FIRST | RXD_OPF_IMM | RXD_OPF_INV);

	return op->service == RXD_SVC_RC && (op->flags & RXD_OPF_PAYLOAD) &&
		(f == RXD_OPF_SEND || f == RXD_OPF_WRITE || f == RXD_OPF_READ);
}

/*
 * What rxd_wire_parse() does after the BTH, for a frame whose headers up
 * to the BTH are known good: ip is the IP header, ip_len the datagram's
 * length (at least its headers, BTH and ICRC); pkt->l3_off, bth_off, the
 * BTH's fields and op (a valid opcode's row) are set, the extension
 * headers' fields and icrc_deferred zero.  The ICRC is checked, or
 * deferred, as flags say.
 *
 * @return RXD_WIRE_OK or the reason rxd_wire_parse() gives.
 */
static inline enum rxd_wire_err
rxd_wire_parse_after_bth(const uint8_t *ip, uint32_t ip_len,
			 struct rxd_pkt *pkt, unsigned int flags)
{
	const struct rxd_opcode_info *op = pkt->op;
	uint32_t off = pkt->bth_off - pkt->l3_off + RXD_BTH_LEN;
	uint32_t rest = ip_len - off - RXD_ICRC_LEN, with_pad;
	enum rxd_wire_err err;

	if (rest < op->hdr_len)
		return RXD_WIRE_HDR_MISSING;
	if (op->hdrs)
		rxd_exthdr_get(pkt, ip + off);
	with_pad = rest - op->hdr_len;
	pkt->payload_off = (uint16_t)(pkt->bth_off + RXD_BTH_LEN + op->hdr_len);
	pkt->payload_len = with_pad >= pkt->padcnt ? with_pad - pkt->padcnt : 0;
	pkt->frame_len = pkt->l3_off + ip_len;
	/* the ICRC travels least significant byte first */
	pkt->icrc = __builtin_bswap32(rxd_get32(ip + ip_len - RXD_ICRC_LEN));
	err = check_length(pkt, with_pad);
	if (err == RXD_WIRE_OK)
		err = check_first_reth(pkt);
	if (err == RXD_WIRE_OK && (op->hdrs & RXD_HDR_AETH))
		err = check_aeth(pkt);
	if (err != RXD_WIRE_OK)
		return err;
	if (flags & RXD_PARSE_NO_ICRC)
		return RXD_WIRE_OK;
	if ((flags & RXD_PARSE_DEFER_ICRC) && placed_early(op)) {
		pkt->icrc_deferred = true;
		return RXD_WIRE_OK;
	}
	if (rxd_icrc_compute(ip, ip_len - RXD_ICRC_LEN) != pkt->icrc)
		return RXD_WIRE_ICRC;
	return RXD_WIRE_OK;
}

#endif /* RXD_PARSE_TAIL_H */
