/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive template (rxd_rx_tmpl.h): learnt from an accepted frame,
 * matched against the frames the connection expects next.  Every check
 * the match makes up to the BTH stands for one of rxd_wire_parse(): the
 * fixed bytes for the addresses, ports, VLAN, QPN, P_Key, TVer and the
 * reserved bits (all accepted once), the rest for the IP and UDP lengths
 * and the IPv4 header checksum; after the BTH it runs the parser's own
 * checks (rxd_wire_parse_after_bth()).
 */
#include <stddef.h>

#include "rxd_bytes.h"
#include "rxd_parse_tail.h"
#include "rxd_rx_tmpl.h"

#define BTH_SE_PAD 0xb0u     /* BTH byte 1: solicited event, pad count */
#define BTH_ACKREQ 0x80u     /* BTH byte 8 */

/* Bytes off..off+n differ from frame to frame of the connection. */
static void
vary(struct rxd_rx_tmpl *t, uint32_t off, uint32_t n)
{
	memset(t->mask + off, 0, n);
}

static void
set_mask(struct rxd_rx_tmpl *t, const struct rxd_pkt *pkt, uint32_t end)
{
	uint32_t ip = pkt->l3_off, bth = pkt->bth_off;

	memset(t->mask, 0, sizeof(t->mask));
	memset(t->mask, 0xff, end);
	if (pkt->ip_ver == 4) {
		vary(t, ip + 2, 4);        /* total length, identification */
		vary(t, ip + 10, 2);       /* header checksum */
	} else {
		vary(t, ip + 4, 2);        /* payload length */
	}
	vary(t, pkt->l4_off + 4, 2);       /* UDP length */
	vary(t, bth, 1);                   /* opcode */
	t->mask[bth + 1] = (uint8_t)~BTH_SE_PAD;
	t->mask[bth + 8] = (uint8_t)~BTH_ACKREQ;
	vary(t, bth + 9, 3);               /* PSN */
}

void
rxd_rx_tmpl_learn(struct rxd_rx_tmpl *t, const uint8_t *frame,
		  const struct rxd_pkt *pkt)
{
	uint32_t end = pkt->bth_off + RXD_BTH_LEN, i;

	if (pkt->kind != RXD_FRAME_ROCE || pkt->op == NULL ||
	    pkt->op->service != RXD_SVC_RC || pkt->udp_csum != 0 ||
	    (pkt->tos & RXD_ECN_MASK) == RXD_ECN_CE ||
	    end > RXD_RX_TMPL_MAX)
		return;
	set_mask(t, pkt, end);
	memset(t->hdr, 0, sizeof(t->hdr));
	for (i = 0; i < end; i++)
		t->hdr[i] = frame[i] & t->mask[i];
	t->pkt = *pkt;
	/* the extension headers, reth_va up to op, are the learnt frame's */
	memset(&t->pkt.reth_va, 0, offsetof(struct rxd_pkt, op) -
	       offsetof(struct rxd_pkt, reth_va));
	t->len = (uint8_t)end;
	/* IPv4: the sum of the header's words but length, ID and checksum */
	t->ip_sum = pkt->ip_ver == 4 ? rxd_csum_add(0, t->hdr + pkt->l3_off,
						    RXD_IPV4_HLEN) : 0;
	t->armed = true;
}

static uint64_t
load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The masked difference of the 8 bytes at off from the template's. */
static uint64_t
word_diff(const struct rxd_rx_tmpl *t, const uint8_t *frame, uint32_t off)
{
	return (load64(frame + off) ^ load64(t->hdr + off)) &
		load64(t->mask + off);
}

/* Every byte the connection keeps fixed is as learnt: 8 bytes at a time,
 * the last word ending at the BTH's end (overlapping the one before). */
static bool
fixed_bytes_match(const struct rxd_rx_tmpl *t, const uint8_t *frame)
{
	uint64_t diff = word_diff(t, frame, t->len - 8u);
	uint32_t off;

	for (off = 0; off + 8 < t->len; off += 8)
		diff |= word_diff(t, frame, off);
	return diff == 0;
}

/* The IP datagram's length as its header gives it, 0 if the frame, its
 * IPv4 checksum or its UDP length says otherwise. */
static uint32_t
datagram_len(const struct rxd_rx_tmpl *t, const uint8_t *frame, uint32_t len,
	     unsigned int flags)
{
	const struct rxd_pkt *k = &t->pkt;
	const uint8_t *ip = frame + k->l3_off;
	uint32_t hlen = k->l4_off - k->l3_off, ip_len;

	ip_len = k->ip_ver == 4 ? rxd_get16(ip + 2) :
		RXD_IPV6_HLEN + rxd_get16(ip + 4);
	if (ip_len > len - k->l3_off ||
	    ip_len < hlen + RXD_UDP_HLEN + RXD_BTH_LEN + RXD_ICRC_LEN ||
	    rxd_get16(frame + k->l4_off + 4) != ip_len - hlen)
		return 0;
	/* the header's fixed words are the template's: their sum is too */
	if (k->ip_ver == 4 &&
	    !(flags & (RXD_PARSE_NO_CSUM | RXD_PARSE_IP_CSUM_OK)) &&
	    rxd_csum_fold(t->ip_sum + ip_len + rxd_get16(ip + 4) +
			  rxd_get16(ip + 10)) != 0)
		return 0;
	return ip_len;
}

/* The opcode is one of the set ops (valid RC opcodes, rxd_rx_tmpl.h). */
static bool
op_expected(uint8_t op, uint32_t ops)
{
	return op < 32 && (ops >> op & 1);
}

bool
rxd_rx_tmpl_match(const struct rxd_rx_tmpl *t, const uint8_t *frame,
		  uint32_t len, unsigned int flags, uint32_t ops,
		  uint32_t psn, uint32_t n_psn, struct rxd_pkt *pkt)
{
	const struct rxd_pkt *k = &t->pkt;
	const uint8_t *bth = frame + k->bth_off;
	uint32_t ip_len;

	if (!t->armed || len < t->len + (uint32_t)RXD_ICRC_LEN ||
	    !op_expected(bth[0], ops) ||
	    ((rxd_get24(bth + 9) - psn) & RXD_PSN_MASK) >= n_psn ||
	    !fixed_bytes_match(t, frame))
		return false;
	ip_len = datagram_len(t, frame, len, flags);
	if (ip_len == 0)
		return false;
	*pkt = *k;
	pkt->opcode = bth[0];
	pkt->op = &rxd_opcode_table[bth[0]];
	pkt->se = bth[1] & 0x80;
	pkt->padcnt = (bth[1] >> 4) & 3;
	pkt->ackreq = bth[8] & BTH_ACKREQ;
	pkt->psn = rxd_get24(bth + 9);
	pkt->icrc_deferred = false;
	if (k->ip_ver == 4)
		pkt->ip_id = rxd_get16(frame + k->l3_off + 4);
	return rxd_wire_parse_after_bth(frame + k->l3_off, ip_len, pkt,
					flags) == RXD_WIRE_OK;
}

bool
rxd_rx_tmpl_match_ack(const struct rxd_rx_tmpl *t, const uint8_t *frame,
		      uint32_t len, unsigned int flags, uint32_t psn,
		      uint32_t n_psn, struct rxd_pkt *pkt)
{
	/* the syndrome first (the byte after the BTH is inside any frame
	 * long enough for the template: an AETH or the ICRC), so that a
	 * NAK costs no ICRC here before the full path checks it again */
	return t->armed && len >= t->len + (uint32_t)RXD_ICRC_LEN &&
		rxd_aeth_type(frame[t->len]) == RXD_AETH_ACK &&
		rxd_rx_tmpl_match(t, frame, len, flags,
				  RXD_RX_TMPL_OP(RXD_OP_RC_ACK), psn, n_psn,
				  pkt);
}
