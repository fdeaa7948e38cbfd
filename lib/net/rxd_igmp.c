/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IGMP, the host side: reports and leaves for the IPv4 groups the port
 * has joined, in IGMPv3 (RFC 3376) as Linux sends by default, or IGMPv2
 * (RFC 2236) once an IGMPv1/v2 querier is heard; queries of every version
 * schedule the answers (rxd_group.c).  Other hosts' reports are ignored.
 * Frames carry the Router Alert option (RFC 2113) and TTL 1.
 */
#include <string.h>

#include "rxd_bytes.h"
#include "rxd_net_priv.h"

#define IGMP_QUERY 0x11
#define IGMP_V1_REPORT 0x12
#define IGMP_V2_REPORT 0x16
#define IGMP_V2_LEAVE 0x17
#define IGMP_V3_REPORT 0x22
#define IGMP_LEN 8                 /* v1/v2 message, v3 report header */
#define IGMP_V3_QUERY_LEN 12
#define IGMP_V3_RECORD_LEN 8
#define IGMP_V1_MAX_RESP_MS 10000  /* v1 queries say 0: RFC 2236 4 */
#define IP_RA_HLEN 24              /* IPv4 header with Router Alert */
#define IPPROTO_IGMP 2

/* IGMPv3 group record types (RFC 3376 4.2.12) */
#define MODE_IS_EXCLUDE 2
#define CHANGE_TO_INCLUDE 3
#define CHANGE_TO_EXCLUDE 4

/* 224.0.0.2 all routers, 224.0.0.22 IGMPv3 routers */
static const uint8_t all_routers[RXD_GID_LEN] = {
	[10] = 0xff, 0xff, 224, 0, 0, 2 };
static const uint8_t v3_routers[RXD_GID_LEN] = {
	[10] = 0xff, 0xff, 224, 0, 0, 22 };

/* What each record becomes, by version: IGMPv3 record or IGMPv2 message
 * and where it goes (NULL: to the group itself). */
static const struct {
	uint8_t v3_record;
	uint8_t v2_type;
	const uint8_t *v2_dst;
} record_out[] = {
	[RXD_GROUP_CURRENT] = { MODE_IS_EXCLUDE, IGMP_V2_REPORT, NULL },
	[RXD_GROUP_JOIN] = { CHANGE_TO_EXCLUDE, IGMP_V2_REPORT, NULL },
	[RXD_GROUP_LEAVE] = { CHANGE_TO_INCLUDE, IGMP_V2_LEAVE, all_routers },
};

static void
ip_ra_hdr(struct rxd_net_port *np, uint8_t *ip, const uint8_t *src,
	  const uint8_t *dst, uint16_t plen)
{
	ip[0] = 0x46;
	ip[1] = 0xc0;                     /* internetwork control */
	rxd_put16(ip + 2, (uint16_t)(IP_RA_HLEN + plen));
	rxd_put16(ip + 4, np->ip_id++);
	ip[8] = 1;
	ip[9] = IPPROTO_IGMP;
	memcpy(ip + 12, src + 12, 4);
	memcpy(ip + 16, dst + 12, 4);
	ip[20] = 0x94;                    /* Router Alert, length 4, value 0 */
	ip[21] = 0x04;
	rxd_put16(ip + 10, rxd_csum_fold(rxd_csum_add(0, ip, IP_RA_HLEN)));
}

bool
rxd_igmp_send(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN],
	      enum rxd_group_record r)
{
	bool v2 = np->igmp_v2_querier;
	const uint8_t *dst = v2 ? record_out[r].v2_dst : v3_routers;
	uint16_t len = v2 ? IGMP_LEN : IGMP_LEN + IGMP_V3_RECORD_LEN;
	struct rte_ether_addr mac;
	uint8_t sgid[RXD_GID_LEN], *ip, *igmp;
	struct rte_mbuf *m;

	if (dst == NULL)
		dst = gid;
	if (rxd_net_source(np, dst, sgid) != 0)
		return false;
	rxd_net_mcast_mac(dst, &mac);
	m = rxd_net_frame(np, RXD_ETHER_IPV4, &mac,
			  (uint16_t)(IP_RA_HLEN + len), &ip);
	if (m == NULL)
		return false;
	igmp = ip + IP_RA_HLEN;
	if (v2) {
		igmp[0] = record_out[r].v2_type;
		memcpy(igmp + 4, gid + 12, 4);
	} else {
		igmp[0] = IGMP_V3_REPORT;
		rxd_put16(igmp + 6, 1);
		igmp[8] = record_out[r].v3_record;
		memcpy(igmp + 12, gid + 12, 4);
	}
	rxd_put16(igmp + 2, rxd_csum_fold(rxd_csum_add(0, igmp, len)));
	ip_ra_hdr(np, ip, sgid, dst, len);
	np->tx(np->tx_ctx, m);
	return true;
}

/* Max Resp Code in tenths of a second (RFC 3376 4.1.1) to milliseconds. */
static uint32_t
max_resp_ms(uint8_t code)
{
	if (code < 128)
		return code * 100u;
	return (((code & 0xfu) | 0x10u) << (((code >> 4) & 7) + 3)) * 100u;
}

/* A query: v1 (8 bytes, code 0), v2 (8 bytes), v3 (12 or more); lengths
 * 9 to 11 are not a query (RFC 3376 7.1). @return false if malformed. */
static bool
query(struct rxd_net_port *np, const uint8_t *msg, uint32_t len)
{
	uint8_t group[RXD_GID_LEN];
	uint32_t ms;

	if (len > IGMP_LEN && len < IGMP_V3_QUERY_LEN)
		return false;
	rxd_gid_from_v4(group, msg + 4);
	if (group[12] != 0 && !rxd_gid_is_mcast(group))
		return false;
	np->igmp_v2_querier = len == IGMP_LEN;
	ms = len == IGMP_LEN && msg[1] == 0 ? IGMP_V1_MAX_RESP_MS :
		max_resp_ms(msg[1]);
	rxd_group_query(np, group[12] != 0 ? group : NULL, true, ms);
	return true;
}

/* Each IGMP message type, its least length, and what rxd does with it. */
static const struct rxd_group_msg igmp_msgs[] = {
	{ IGMP_QUERY, IGMP_LEN, query },
	{ IGMP_V1_REPORT, IGMP_LEN, rxd_group_msg_ignore },
	{ IGMP_V2_REPORT, IGMP_LEN, rxd_group_msg_ignore },
	{ IGMP_V2_LEAVE, IGMP_LEN, rxd_group_msg_ignore },
	{ IGMP_V3_REPORT, IGMP_LEN, rxd_group_msg_ignore },
};

void
rxd_igmp_input(struct rxd_net_port *np, struct rte_mbuf *m,
	       const struct rxd_pkt *pkt)
{
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    pkt->l3_off);
	const uint8_t *msg = ip + (pkt->l4_off - pkt->l3_off);
	uint32_t len = rxd_get16(ip + 2) - (uint32_t)(pkt->l4_off - pkt->l3_off);
	const struct rxd_group_msg *gm;
	bool ok = false;

	if (len >= IGMP_LEN && rxd_csum_fold(rxd_csum_add(0, msg, len)) == 0) {
		gm = rxd_group_msg_find(igmp_msgs, RTE_DIM(igmp_msgs), msg[0]);
		if (gm == NULL) {
			np->stats.other_dropped++;
			ok = true;
		} else {
			ok = len >= gm->min_len && gm->handle(np, msg, len);
		}
	}
	if (!ok)
		np->stats.malformed++;
	rte_pktmbuf_free(m);
}
