/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame parser: Ethernet and VLAN tags, IPv4/IPv6, UDP, then the BTH, the
 * extension headers the opcode table names, payload, pad and ICRC.  Every
 * length is checked before the bytes it covers are read.
 */
#include "rxd_bytes.h"
#include "rxd_icrc.h"
#include "rxd_parse_tail.h"

#define IPPROTO_ICMP4 1
#define IPPROTO_UDP4 17
#define IPPROTO_ICMP6 58
#define IPPROTO_IGMP 2
#define IPPROTO_HOPOPTS 0

static enum rxd_wire_err parse_roce(const uint8_t *ip, uint32_t ip_len,
				    struct rxd_pkt *pkt, unsigned int flags);

static enum rxd_wire_err
parse_udp(const uint8_t *ip, uint32_t ip_len, struct rxd_pkt *pkt,
	  unsigned int flags)
{
	uint32_t hlen = pkt->l4_off - pkt->l3_off;
	const uint8_t *udp = ip + hlen;
	uint32_t udp_len;

	if (ip_len < hlen + RXD_UDP_HLEN)
		return RXD_WIRE_TRUNCATED;
	pkt->udp_sport = rxd_get16(udp);
	pkt->udp_dport = rxd_get16(udp + 2);
	udp_len = rxd_get16(udp + 4);
	pkt->udp_csum = rxd_get16(udp + 6);
	if (udp_len != ip_len - hlen)
		return RXD_WIRE_UDP_LEN;
	if (pkt->udp_dport != RXD_ROCE_UDP_PORT) {
		pkt->kind = RXD_FRAME_UDP;
		return RXD_WIRE_OK;
	}
	pkt->kind = RXD_FRAME_ROCE;
	if (pkt->udp_csum &&
	    !(flags & (RXD_PARSE_NO_CSUM | RXD_PARSE_UDP_CSUM_OK)) &&
	    rxd_udp_csum(ip, udp, udp_len) != pkt->udp_csum)
		return RXD_WIRE_UDP_CSUM;
	return parse_roce(ip, ip_len, pkt, flags);
}

static enum rxd_wire_err
parse_ipv4(const uint8_t *ip, uint32_t len, struct rxd_pkt *pkt,
	   unsigned int flags)
{
	uint32_t ihl, total;
	uint16_t frag;

	if (len < RXD_IPV4_HLEN)
		return RXD_WIRE_TRUNCATED;
	ihl = (ip[0] & 0xfu) * 4;
	if (ihl < RXD_IPV4_HLEN)
		return RXD_WIRE_IP_HDR;
	total = rxd_get16(ip + 2);
	if (total > len)
		return RXD_WIRE_TRUNCATED;
	if (total < ihl)
		return RXD_WIRE_IP_LEN;
	pkt->ip_ver = 4;
	pkt->tos = ip[1];
	pkt->ip_id = rxd_get16(ip + 4);
	frag = rxd_get16(ip + 6);
	pkt->ip_df = frag & 0x4000;
	pkt->ttl = ip[8];
	pkt->ip_proto = ip[9];
	rxd_gid_from_v4(pkt->sgid, ip + 12);
	rxd_gid_from_v4(pkt->dgid, ip + 16);
	pkt->l4_off = (uint16_t)(pkt->l3_off + ihl);
	if (!(flags & (RXD_PARSE_NO_CSUM | RXD_PARSE_IP_CSUM_OK)) &&
	    rxd_csum_fold(rxd_csum_add(0, ip, ihl)) != 0)
		return RXD_WIRE_IP_CSUM;
	if (frag & 0x3fff)
		return RXD_WIRE_IP_FRAG;
	if (pkt->ip_proto == IPPROTO_ICMP4) {
		pkt->kind = RXD_FRAME_ICMP4;
		return RXD_WIRE_OK;
	}
	if (pkt->ip_proto == IPPROTO_IGMP) {
		pkt->kind = RXD_FRAME_IGMP;
		return RXD_WIRE_OK;
	}
	if (pkt->ip_proto != IPPROTO_UDP4)
		return RXD_WIRE_OK;
	if (ihl != RXD_IPV4_HLEN)
		return RXD_WIRE_IP_HDR; /* ICRC coverage of options undefined */
	return parse_udp(ip, total, pkt, flags);
}

/*
 * A Hop-by-Hop options header (MLD carries Router Alert in one): only
 * ICMPv6 may follow it here; l4_off moves past it.
 */
static enum rxd_wire_err
skip_hop_by_hop(const uint8_t *ip, uint32_t total, struct rxd_pkt *pkt)
{
	uint32_t len;

	if (total < RXD_IPV6_HLEN + 8)
		return RXD_WIRE_TRUNCATED;
	len = (ip[RXD_IPV6_HLEN + 1] + 1u) * 8;
	if (total < RXD_IPV6_HLEN + len)
		return RXD_WIRE_TRUNCATED;
	if (ip[RXD_IPV6_HLEN] != IPPROTO_ICMP6)
		return RXD_WIRE_OK;
	pkt->ip_proto = IPPROTO_ICMP6;
	pkt->l4_off = (uint16_t)(pkt->l4_off + len);
	pkt->kind = RXD_FRAME_ICMP6;
	return RXD_WIRE_OK;
}

static enum rxd_wire_err
parse_ipv6(const uint8_t *ip, uint32_t len, struct rxd_pkt *pkt,
	   unsigned int flags)
{
	uint32_t total;

	if (len < RXD_IPV6_HLEN)
		return RXD_WIRE_TRUNCATED;
	total = RXD_IPV6_HLEN + rxd_get16(ip + 4);
	if (total > len)
		return RXD_WIRE_TRUNCATED;
	pkt->ip_ver = 6;
	pkt->tos = (uint8_t)(rxd_get16(ip) >> 4);
	pkt->flow_label = rxd_get32(ip) & 0xfffff;
	pkt->ip_proto = ip[6];
	pkt->ttl = ip[7];
	memcpy(pkt->sgid, ip + 8, RXD_GID_LEN);
	memcpy(pkt->dgid, ip + 24, RXD_GID_LEN);
	pkt->l4_off = (uint16_t)(pkt->l3_off + RXD_IPV6_HLEN);
	if (pkt->ip_proto == IPPROTO_HOPOPTS)
		return skip_hop_by_hop(ip, total, pkt);
	if (pkt->ip_proto == IPPROTO_ICMP6) {
		pkt->kind = RXD_FRAME_ICMP6;
		return RXD_WIRE_OK;
	}
	if (pkt->ip_proto != IPPROTO_UDP4)
		return RXD_WIRE_OK;
	return parse_udp(ip, total, pkt, flags);
}

static enum rxd_wire_err
parse_l3(const uint8_t *ip, uint32_t len, struct rxd_pkt *pkt,
	 unsigned int flags)
{
	if (len < 1)
		return RXD_WIRE_TRUNCATED;
	switch (ip[0] >> 4) {
	case 4:
		return parse_ipv4(ip, len, pkt, flags);
	case 6:
		return parse_ipv6(ip, len, pkt, flags);
	default:
		return RXD_WIRE_IP_HDR;
	}
}

static void
parse_bth(const uint8_t *bth, struct rxd_pkt *pkt)
{
	pkt->opcode = bth[0];
	pkt->se = bth[1] & 0x80;
	pkt->mig = bth[1] & 0x40;
	pkt->padcnt = (bth[1] >> 4) & 3;
	pkt->tver = bth[1] & 0xf;
	pkt->pkey = rxd_get16(bth + 2);
	pkt->fecn = bth[4] & 0x80;
	pkt->becn = bth[4] & 0x40;
	pkt->dqpn = rxd_get24(bth + 5);
	pkt->ackreq = bth[8] & 0x80;
	pkt->psn = rxd_get24(bth + 9);
}

/* ip_len counts the IP datagram: header, UDP, BTH ... ICRC. */
static enum rxd_wire_err
parse_roce(const uint8_t *ip, uint32_t ip_len, struct rxd_pkt *pkt,
	   unsigned int flags)
{
	uint32_t off = pkt->l4_off - pkt->l3_off + RXD_UDP_HLEN;
	const uint8_t *bth = ip + off;
	const struct rxd_opcode_info *op;

	if (ip_len < off + RXD_BTH_LEN + RXD_ICRC_LEN)
		return RXD_WIRE_TRUNCATED;
	pkt->bth_off = (uint16_t)(pkt->l3_off + off);
	parse_bth(bth, pkt);
	if (pkt->tver != 0)
		return RXD_WIRE_BTH_VERSION;
	op = &rxd_opcode_table[pkt->opcode];
	if (op->name == NULL)
		return RXD_WIRE_OPCODE;
	pkt->op = op;
	return rxd_wire_parse_after_bth(ip, ip_len, pkt, flags);
}

bool
rxd_wire_icrc_ok(const uint8_t *frame, const struct rxd_pkt *pkt)
{
	return rxd_icrc_compute(frame + pkt->l3_off, pkt->frame_len -
				pkt->l3_off - RXD_ICRC_LEN) == pkt->icrc;
}

bool
rxd_wire_place(const uint8_t *frame, const struct rxd_pkt *pkt, void *dst)
{
	uint32_t end = pkt->payload_off + pkt->payload_len;

	return rxd_icrc_place(frame + pkt->l3_off,
			      pkt->payload_off - pkt->l3_off, pkt->payload_len,
			      pkt->frame_len - RXD_ICRC_LEN - end, dst) ==
		pkt->icrc;
}

enum rxd_wire_err
rxd_wire_parse_ip(const uint8_t *ip, uint32_t len, struct rxd_pkt *pkt,
		  unsigned int flags)
{
	memset(pkt, 0, sizeof(*pkt));
	return parse_l3(ip, len, pkt, flags);
}

enum rxd_wire_err
rxd_wire_parse(const uint8_t *frame, uint32_t len, struct rxd_pkt *pkt,
	       unsigned int flags)
{
	uint32_t off = RXD_ETH_HLEN;
	uint16_t type;

	memset(pkt, 0, sizeof(*pkt));
	if (len < RXD_ETH_HLEN)
		return RXD_WIRE_TRUNCATED;
	memcpy(pkt->dmac, frame, RXD_ETH_ALEN);
	memcpy(pkt->smac, frame + RXD_ETH_ALEN, RXD_ETH_ALEN);
	if (pkt->smac[0] & 1)
		return RXD_WIRE_L2;
	type = rxd_get16(frame + 12);
	while ((type == RXD_ETHER_VLAN || type == RXD_ETHER_QINQ) &&
	       pkt->vlan_count < 2) {
		if (len < off + RXD_VLAN_HLEN)
			return RXD_WIRE_TRUNCATED;
		pkt->vlan_tpid[pkt->vlan_count] = type;
		pkt->vlan_tci[pkt->vlan_count++] = rxd_get16(frame + off);
		type = rxd_get16(frame + off + 2);
		off += RXD_VLAN_HLEN;
	}
	pkt->ethertype = type;
	pkt->l3_off = (uint16_t)off;
	if (type == RXD_ETHER_ARP) {
		pkt->kind = RXD_FRAME_ARP;
		return RXD_WIRE_OK;
	}
	if (type != RXD_ETHER_IPV4 && type != RXD_ETHER_IPV6)
		return RXD_WIRE_OK;
	if (len <= off)
		return RXD_WIRE_TRUNCATED;
	if ((frame[off] >> 4) != (type == RXD_ETHER_IPV4 ? 4 : 6))
		return RXD_WIRE_IP_HDR;
	return parse_l3(frame + off, len - off, pkt, flags);
}
