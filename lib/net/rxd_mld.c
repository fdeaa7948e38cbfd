/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MLD, the host side: reports and dones for the IPv6 groups the port has
 * joined, in MLDv2 (RFC 3810) or MLDv1 (RFC 2710) once an MLDv1 querier
 * is heard; queries of both versions schedule the answers (rxd_group.c).
 * Frames go from the link-local address with hop limit 1 and a Hop-by-Hop
 * Router Alert option (RFC 2711, value 0: MLD).
 */
#include <string.h>

#include "rxd_bytes.h"
#include "rxd_net_priv.h"

#define MLD_QUERY 130
#define MLD_V1_REPORT 131
#define MLD_V1_DONE 132
#define MLD_V2_REPORT 143
#define MLD_V1_LEN 24              /* v1 message, v1 query */
#define MLD_V2_QUERY_LEN 28
#define MLD_V2_HDR_LEN 8
#define MLD_V2_RECORD_LEN 20
#define HBH_LEN 8
#define IPPROTO_HOPOPTS 0
#define IPPROTO_ICMPV6 58

/* MLDv2 multicast address record types (RFC 3810 5.2.12) */
#define MODE_IS_EXCLUDE 2
#define CHANGE_TO_INCLUDE 3
#define CHANGE_TO_EXCLUDE 4

/* ff02::2 all routers, ff02::16 MLDv2 routers */
static const uint8_t all_routers[RXD_GID_LEN] = { 0xff, 0x02, [15] = 0x02 };
static const uint8_t v2_routers[RXD_GID_LEN] = { 0xff, 0x02, [15] = 0x16 };

/* Next header ICMPv6, Router Alert (type 5, length 2, value 0), PadN. */
static const uint8_t hbh_router_alert[HBH_LEN] = {
	IPPROTO_ICMPV6, 0, 5, 2, 0, 0, 1, 0 };

/* What each record becomes, by version (NULL: to the group itself). */
static const struct {
	uint8_t v2_record;
	uint8_t v1_type;
	const uint8_t *v1_dst;
} record_out[] = {
	[RXD_GROUP_CURRENT] = { MODE_IS_EXCLUDE, MLD_V1_REPORT, NULL },
	[RXD_GROUP_JOIN] = { CHANGE_TO_EXCLUDE, MLD_V1_REPORT, NULL },
	[RXD_GROUP_LEAVE] = { CHANGE_TO_INCLUDE, MLD_V1_DONE, all_routers },
};

bool
rxd_mld_send(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN],
	     enum rxd_group_record r)
{
	bool v1 = np->mld_v1_querier;
	const uint8_t *dst = v1 ? record_out[r].v1_dst : v2_routers;
	uint16_t len = v1 ? MLD_V1_LEN : MLD_V2_HDR_LEN + MLD_V2_RECORD_LEN;
	struct rte_ether_addr mac;
	uint8_t *ip, *mld;
	struct rte_mbuf *m;

	if (dst == NULL)
		dst = gid;
	rxd_net_mcast_mac(dst, &mac);
	m = rxd_net_frame(np, RXD_ETHER_IPV6, &mac,
			  (uint16_t)(RXD_IPV6_HLEN + HBH_LEN + len), &ip);
	if (m == NULL)
		return false;
	rxd_ipv6_hdr(ip, np->gids[0], dst, (uint16_t)(HBH_LEN + len), 1);
	ip[6] = IPPROTO_HOPOPTS;
	memcpy(ip + RXD_IPV6_HLEN, hbh_router_alert, HBH_LEN);
	mld = ip + RXD_IPV6_HLEN + HBH_LEN;
	if (v1) {
		mld[0] = record_out[r].v1_type;
		memcpy(mld + 8, gid, RXD_GID_LEN);
	} else {
		mld[0] = MLD_V2_REPORT;
		rxd_put16(mld + 6, 1);
		mld[8] = record_out[r].v2_record;
		memcpy(mld + 12, gid, RXD_GID_LEN);
	}
	rxd_put16(mld + 2, rxd_icmp6_csum(ip, mld, len));
	np->tx(np->tx_ctx, m);
	return true;
}

/* Maximum Response Code (RFC 3810 5.1.3) in milliseconds. */
static uint32_t
max_resp_ms(uint16_t code)
{
	if (code < 32768)
		return code;
	return ((code & 0xfffu) | 0x1000u) << (((code >> 12) & 7) + 3);
}

/* A query: MLDv1 (24 bytes) or MLDv2 (28 or more); 25 to 27 are not one
 * (RFC 3810 8.1). @return false if malformed. */
static bool
query(struct rxd_net_port *np, const uint8_t *msg, uint32_t len)
{
	static const uint8_t any[RXD_GID_LEN];
	const uint8_t *group = msg + 8;

	if (len > MLD_V1_LEN && len < MLD_V2_QUERY_LEN)
		return false;
	if (memcmp(group, any, RXD_GID_LEN) != 0 && !rxd_gid_is_mcast(group))
		return false;
	np->mld_v1_querier = len == MLD_V1_LEN;
	rxd_group_query(np, memcmp(group, any, RXD_GID_LEN) ? group : NULL,
			false, max_resp_ms(rxd_get16(msg + 4)));
	return true;
}

/* Each MLD message type, its least length, and what rxd does with it. */
static const struct rxd_group_msg mld_msgs[] = {
	{ MLD_QUERY, MLD_V1_LEN, query },
	{ MLD_V1_REPORT, MLD_V1_LEN, rxd_group_msg_ignore },
	{ MLD_V1_DONE, MLD_V1_LEN, rxd_group_msg_ignore },
	{ MLD_V2_REPORT, MLD_V2_HDR_LEN, rxd_group_msg_ignore },
};

bool
rxd_mld_type(uint8_t type)
{
	return rxd_group_msg_find(mld_msgs, RTE_DIM(mld_msgs), type) != NULL;
}

void
rxd_mld_input(struct rxd_net_port *np, const struct rxd_pkt *pkt,
	      const uint8_t *icmp, uint32_t len)
{
	const struct rxd_group_msg *gm;

	np->stats.mld_rx++;
	/* a query from other than a link-local source is none (5.1.14) */
	if (icmp[0] == MLD_QUERY &&
	    (pkt->sgid[0] != 0xfe || (pkt->sgid[1] & 0xc0) != 0x80)) {
		np->stats.malformed++;
		return;
	}
	gm = rxd_group_msg_find(mld_msgs, RTE_DIM(mld_msgs), icmp[0]);
	if (gm != NULL && (len < gm->min_len || !gm->handle(np, icmp, len)))
		np->stats.malformed++;
}
