/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMP and ICMPv6 echo: answer requests to our addresses, count replies to
 * ours, and send requests (rxd_net_ping).  ICMPv6 neighbour discovery
 * messages are handed to rxd_nd.c, MLD messages to rxd_mld.c.
 */
#include <errno.h>
#include <string.h>

#include "rxd_bytes.h"
#include "rxd_net_priv.h"

#define ICMP4_ECHO_REPLY 0
#define ICMP4_ECHO_REQUEST 8
#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
#define ICMP6_NS 135
#define ICMP6_NA 136
#define ICMP_ECHO_HLEN 8
#define PING_MAX_DATA 1400

static uint32_t
icmp_len(const struct rte_mbuf *m, const struct rxd_pkt *pkt)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    pkt->l3_off);

	if (pkt->ip_ver == 4)
		return rxd_get16(ip + 2) - (uint32_t)(pkt->l4_off - pkt->l3_off);
	return rxd_get16(ip + 4) -
		(uint32_t)(pkt->l4_off - pkt->l3_off - RXD_IPV6_HLEN);
}

/* Echo reply from the request's own bytes: same id, seq and data. */
static void
echo_reply(struct rxd_net_port *np, const struct rxd_pkt *pkt,
	   const uint8_t *req, uint32_t len)
{
	uint8_t *ip, *icmp;
	uint16_t l3 = pkt->ip_ver == 4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN;
	struct rte_ether_addr smac;
	struct rte_mbuf *m;

	memcpy(smac.addr_bytes, pkt->smac, RXD_ETH_ALEN);
	m = rxd_net_frame(np, pkt->ip_ver == 4 ? RXD_ETHER_IPV4 :
			  RXD_ETHER_IPV6, &smac, (uint16_t)(l3 + len), &ip);
	if (m == NULL) {
		np->stats.reply_failed++;
		return;
	}
	icmp = ip + l3;
	memcpy(icmp, req, len);
	icmp[2] = icmp[3] = 0;
	if (pkt->ip_ver == 4) {
		icmp[0] = ICMP4_ECHO_REPLY;
		rxd_ipv4_hdr(np, ip, pkt->dgid, pkt->sgid, 1, (uint16_t)len);
		rxd_put16(icmp + 2, rxd_csum_fold(rxd_csum_add(0, icmp, len)));
	} else {
		icmp[0] = ICMP6_ECHO_REPLY;
		rxd_ipv6_hdr(ip, pkt->dgid, pkt->sgid, (uint16_t)len, 64);
		rxd_put16(icmp + 2, rxd_icmp6_csum(ip, icmp, len));
	}
	np->stats.echo_requests_answered++;
	np->tx(np->tx_ctx, m);
}

void
rxd_icmp4_input(struct rxd_net_port *np, struct rte_mbuf *m,
		const struct rxd_pkt *pkt)
{
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						      pkt->l4_off);
	uint32_t len = icmp_len(m, pkt);

	if (!rxd_net_is_local(np, pkt->dgid)) {
		np->stats.not_for_us++;
	} else if (len < ICMP_ECHO_HLEN ||
		   rxd_csum_fold(rxd_csum_add(0, icmp, len)) != 0) {
		np->stats.malformed++;
	} else if (icmp[0] == ICMP4_ECHO_REQUEST) {
		echo_reply(np, pkt, icmp, len);
	} else if (icmp[0] == ICMP4_ECHO_REPLY) {
		np->stats.echo_replies_rx++;
	} else {
		np->stats.other_dropped++;
	}
	rte_pktmbuf_free(m);
}

void
rxd_icmp6_input(struct rxd_net_port *np, struct rte_mbuf *m,
		const struct rxd_pkt *pkt)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    pkt->l3_off);
	const uint8_t *icmp = ip + (pkt->l4_off - pkt->l3_off);
	uint32_t len = icmp_len(m, pkt);

	if (len < ICMP_ECHO_HLEN || rxd_icmp6_csum(ip, icmp, len) != 0) {
		np->stats.malformed++;
	} else if (rxd_mld_type(icmp[0])) {
		rxd_mld_input(np, pkt, icmp, len);
	} else if (icmp[0] == ICMP6_NS || icmp[0] == ICMP6_NA) {
		rxd_nd_input(np, pkt, icmp, len);
	} else if (!rxd_net_is_local(np, pkt->dgid)) {
		np->stats.not_for_us++;
	} else if (icmp[0] == ICMP6_ECHO_REQUEST) {
		echo_reply(np, pkt, icmp, len);
	} else if (icmp[0] == ICMP6_ECHO_REPLY) {
		np->stats.echo_replies_rx++;
	} else {
		np->stats.other_dropped++;
	}
	rte_pktmbuf_free(m);
}

int
rxd_net_ping(struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN],
	     uint16_t id, uint16_t seq, uint16_t data_len)
{
	bool v4 = rxd_gid_is_v4(dgid);
	uint16_t l3 = v4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN;
	uint16_t len = (uint16_t)(ICMP_ECHO_HLEN + data_len);
	uint8_t sgid[RXD_GID_LEN], *ip, *icmp;
	struct rte_mbuf *m;
	uint16_t i;

	if (data_len > PING_MAX_DATA)
		return -EINVAL;
	if (rxd_net_source(np, dgid, sgid) != 0)
		return -EHOSTUNREACH;
	m = rxd_net_frame(np, v4 ? RXD_ETHER_IPV4 : RXD_ETHER_IPV6, NULL,
			  (uint16_t)(l3 + len), &ip);
	if (m == NULL)
		return -ENOMEM;
	icmp = ip + l3;
	icmp[0] = v4 ? ICMP4_ECHO_REQUEST : ICMP6_ECHO_REQUEST;
	rxd_put16(icmp + 4, id);
	rxd_put16(icmp + 6, seq);
	for (i = 0; i < data_len; i++)
		icmp[ICMP_ECHO_HLEN + i] = (uint8_t)i;
	if (v4) {
		rxd_ipv4_hdr(np, ip, sgid, dgid, 1, len);
		rxd_put16(icmp + 2, rxd_csum_fold(rxd_csum_add(0, icmp, len)));
	} else {
		rxd_ipv6_hdr(ip, sgid, dgid, len, 64);
		rxd_put16(icmp + 2, rxd_icmp6_csum(ip, icmp, len));
	}
	return rxd_net_output(np, dgid, m, NULL);
}
