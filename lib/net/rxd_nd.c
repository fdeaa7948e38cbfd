/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbour discovery (RFC 4861), the part a host needs: answer
 * solicitations for our addresses, learn from solicitations and
 * advertisements, solicit peers and announce ourselves.
 */
#include <string.h>

#include "rxd_bytes.h"
#include "rxd_net_priv.h"

#define ND_NS 135
#define ND_NA 136
#define ND_LEN 24                   /* type..target */
#define ND_OPT_LEN 8                /* one link-layer address option */
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define NA_ROUTER 0x80
#define NA_SOLICITED 0x40
#define NA_OVERRIDE 0x20

static const uint8_t all_nodes[RXD_GID_LEN] = {
	0xff, 0x02, [15] = 0x01
};

static void
multicast_mac(const uint8_t ip[RXD_GID_LEN], struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(mac->addr_bytes + 2, ip + 12, 4);
}

static void
solicited_node(const uint8_t ip[RXD_GID_LEN], uint8_t out[RXD_GID_LEN])
{
	static const uint8_t prefix[13] = {
		0xff, 0x02, [11] = 0x01, [12] = 0xff
	};

	memcpy(out, prefix, sizeof(prefix));
	memcpy(out + 13, ip + 13, 3);
}

/* @return false when no mbuf was free for it. */
static bool
nd_send(struct rxd_net_port *np, uint8_t type, uint8_t flags,
	const uint8_t src[RXD_GID_LEN], const uint8_t dst[RXD_GID_LEN],
	const struct rte_ether_addr *dmac, const uint8_t target[RXD_GID_LEN])
{
	uint16_t len = ND_LEN + ND_OPT_LEN;
	uint8_t *ip, *icmp;
	struct rte_mbuf *m = rxd_net_frame(np, RXD_ETHER_IPV6, dmac,
					   (uint16_t)(RXD_IPV6_HLEN + len), &ip);

	if (m == NULL)
		return false;
	icmp = ip + RXD_IPV6_HLEN;
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, RXD_GID_LEN);
	icmp[ND_LEN] = type == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	icmp[ND_LEN + 1] = 1;
	memcpy(icmp + ND_LEN + 2, np->mac.addr_bytes, RXD_ETH_ALEN);
	rxd_ipv6_hdr(ip, src, dst, len, 255);
	rxd_put16(icmp + 2, rxd_icmp6_csum(ip, icmp, len));
	np->stats.nd_tx++;
	np->tx(np->tx_ctx, m);
	return true;
}

void
rxd_nd_solicit(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN],
	       const struct rte_ether_addr *unicast)
{
	uint8_t src[RXD_GID_LEN], dst[RXD_GID_LEN];
	struct rte_ether_addr mac;

	if (rxd_net_source(np, ip, src) != 0)
		return;
	if (unicast != NULL) {
		nd_send(np, ND_NS, 0, src, ip, unicast, ip);
		return;
	}
	solicited_node(ip, dst);
	multicast_mac(dst, &mac);
	nd_send(np, ND_NS, 0, src, dst, &mac, ip);
}

void
rxd_nd_advertise(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN])
{
	struct rte_ether_addr mac;

	multicast_mac(all_nodes, &mac);
	nd_send(np, ND_NA, NA_OVERRIDE, gid, all_nodes, &mac, gid);
}

/* The link-layer address option of the given type, or NULL. */
static const uint8_t *
find_lla(const uint8_t *opt, uint32_t len, uint8_t type)
{
	while (len >= ND_OPT_LEN && opt[1] != 0 && opt[1] * 8u <= len) {
		if (opt[0] == type && opt[1] == 1)
			return opt + 2;
		len -= opt[1] * 8u;
		opt += opt[1] * 8u;
	}
	return NULL;
}

static bool
unspecified(const uint8_t ip[RXD_GID_LEN])
{
	static const uint8_t zero[RXD_GID_LEN];

	return memcmp(ip, zero, RXD_GID_LEN) == 0;
}

static void
count_answer(struct rxd_net_port *np, bool sent)
{
	if (sent)
		np->stats.nd_solicits_answered++;
	else
		np->stats.reply_failed++;
}

/* A solicitation: answer it when it asks for one of our addresses, and
 * learn the sender when it gives its MAC (RFC 4861 7.2.3). */
static void
ns_input(struct rxd_net_port *np, const struct rxd_pkt *pkt,
	 const uint8_t *target, const uint8_t *slla)
{
	struct rte_ether_addr mac;
	struct rxd_neigh *n;

	if (!rxd_net_is_local(np, target)) {
		np->stats.not_for_us++;
		return;
	}
	if (unspecified(pkt->sgid)) {   /* duplicate address detection */
		multicast_mac(all_nodes, &mac);
		count_answer(np, nd_send(np, ND_NA, NA_OVERRIDE, target,
					 all_nodes, &mac, target));
		return;
	}
	if (slla != NULL) {
		memcpy(mac.addr_bytes, slla, RXD_ETH_ALEN);
		n = rxd_net_is_local(np, pkt->sgid) ? NULL :
			rxd_neigh_lookup(np, pkt->sgid, RXD_NEIGH_LEARN);
		if (n != NULL)
			rxd_neigh_confirm(np, n, &mac);
	} else {
		memcpy(mac.addr_bytes, pkt->smac, RXD_ETH_ALEN);
	}
	count_answer(np, nd_send(np, ND_NA, NA_SOLICITED | NA_OVERRIDE, target,
				 pkt->sgid, &mac, target));
}

/*
 * An advertisement updates a peer already in the cache, nothing else.
 * Without a link-layer option (Linux leaves it out when answering a
 * unicast solicitation, as rxd's probes are), a solicited one confirms
 * the MAC the entry has (RFC 4861 7.2.5); an incomplete entry has none.
 */
static void
na_input(struct rxd_net_port *np, const uint8_t *icmp, const uint8_t *tlla)
{
	struct rxd_neigh *n = rxd_neigh_lookup(np, icmp + 8, RXD_NEIGH_FIND);
	struct rte_ether_addr mac;

	if (n == NULL || (tlla == NULL && (!(icmp[4] & NA_SOLICITED) ||
	    n->state == RXD_NEIGH_INCOMPLETE || n->state == RXD_NEIGH_FAILED))) {
		np->stats.neigh_ignored++;
		return;
	}
	if (tlla != NULL)
		memcpy(mac.addr_bytes, tlla, RXD_ETH_ALEN);
	else
		mac = n->mac;
	rxd_neigh_confirm(np, n, &mac);
	np->stats.neigh_confirmed++;
}

void
rxd_nd_input(struct rxd_net_port *np, const struct rxd_pkt *pkt,
	     const uint8_t *icmp, uint32_t len)
{
	const uint8_t *lla;

	np->stats.nd_rx++;
	if (len < ND_LEN || pkt->ttl != 255 || icmp[1] != 0) {
		np->stats.malformed++;
		return;
	}
	lla = find_lla(icmp + ND_LEN, len - ND_LEN,
		       icmp[0] == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA);
	if (icmp[0] == ND_NS)
		ns_input(np, pkt, icmp + 8, lla);
	else
		na_input(np, icmp, lla);
}
