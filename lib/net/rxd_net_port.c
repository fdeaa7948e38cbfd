/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses, GID table, next hop (a multicast GID's is its group MAC, no
 * resolution) and the input dispatcher of lib/net.
 */
#include <errno.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "rxd_bytes.h"
#include "rxd_net_priv.h"

static void
gid_of_conf(uint8_t gid[RXD_GID_LEN], const struct rxd_conf_addr *a)
{
	if (a->family == AF_INET)
		rxd_gid_from_v4(gid, a->addr);
	else
		memcpy(gid, a->addr, RXD_GID_LEN);
}

static void
link_local_gid(uint8_t gid[RXD_GID_LEN], const struct rte_ether_addr *mac)
{
	const uint8_t *m = mac->addr_bytes;

	memset(gid, 0, RXD_GID_LEN);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = m[0] ^ 0x02;
	gid[9] = m[1];
	gid[10] = m[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = m[3];
	gid[14] = m[4];
	gid[15] = m[5];
}

static void
add_addr(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN],
	 uint8_t prefix)
{
	if (np->n_addrs < RXD_MAX_ADDRS) {
		memcpy(np->addrs[np->n_addrs].gid, gid, RXD_GID_LEN);
		np->addrs[np->n_addrs++].prefix = prefix;
	}
	if (np->n_gids < RXD_MAX_GIDS)
		memcpy(np->gids[np->n_gids++], gid, RXD_GID_LEN);
}

void
rxd_net_port_init(struct rxd_net_port *np, const struct rxd_conf_port *c,
		  const struct rte_ether_addr *mac, struct rte_mempool *pool,
		  rxd_net_tx_fn tx, void *ctx)
{
	uint8_t gid[RXD_GID_LEN];
	unsigned int i;

	memset(np, 0, sizeof(*np));
	np->pool = pool;
	np->mac = *mac;
	np->vlan = c->vlan;
	np->tx = tx;
	np->tx_ctx = ctx;
	np->hz = rte_get_tsc_hz();
	np->neigh_gen = 1;             /* a zeroed hint notes nothing */
	np->acd.probe_ms = c->arp_probe_ms;
	link_local_gid(gid, mac);
	add_addr(np, gid, 64);
	for (i = 0; i < c->n_addrs; i++) {
		gid_of_conf(gid, &c->addrs[i]);
		if (!rxd_net_is_local(np, gid))
			add_addr(np, gid, (uint8_t)(c->addrs[i].prefix +
				(c->addrs[i].family == AF_INET ? 96 : 0)));
	}
	np->has_gw4 = c->has_gw4;
	np->has_gw6 = c->has_gw6;
	gid_of_conf(np->gw4, &c->gw4);
	gid_of_conf(np->gw6, &c->gw6);
}

void
rxd_net_port_fini(struct rxd_net_port *np)
{
	unsigned int i, k;

	for (i = 0; i < RXD_NEIGH_SLOTS; i++) {
		for (k = 0; k < np->neigh[i].n_held; k++)
			rte_pktmbuf_free(np->neigh[i].held[k]);
		np->neigh[i].n_held = 0;
	}
}

void
rxd_net_announce(struct rxd_net_port *np)
{
	unsigned int i;

	for (i = 0; i < np->n_addrs; i++)
		if (!rxd_gid_is_v4(np->addrs[i].gid))
			rxd_nd_advertise(np, np->addrs[i].gid);
	rxd_acd_start(np, rte_rdtsc());
	rxd_group_announce(np);
}

bool
rxd_net_is_local(const struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN])
{
	unsigned int i;

	for (i = 0; i < np->n_gids; i++)
		if (memcmp(np->gids[i], gid, RXD_GID_LEN) == 0)
			return true;
	return false;
}

bool
rxd_net_l2_accept(const struct rxd_net_port *np, const struct rxd_pkt *pkt)
{
	uint16_t vid = pkt->vlan_count ? pkt->vlan_tci[0] & 0xfff : 0;

	if (vid != np->vlan || pkt->vlan_count > 1)
		return false;
	return (pkt->dmac[0] & 1) ||
		memcmp(pkt->dmac, np->mac.addr_bytes, RXD_ETH_ALEN) == 0;
}

static bool
prefix_match(const uint8_t *a, const uint8_t *b, unsigned int bits)
{
	unsigned int bytes = bits / 8, rest = bits % 8;

	if (memcmp(a, b, bytes) != 0)
		return false;
	return rest == 0 ||
		((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

int
rxd_net_source(const struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN],
	       uint8_t sgid[RXD_GID_LEN])
{
	bool v4 = rxd_gid_is_v4(dgid);
	int first = -1;
	unsigned int i;

	for (i = 0; i < np->n_addrs; i++) {
		if (rxd_gid_is_v4(np->addrs[i].gid) != v4)
			continue;
		if (prefix_match(np->addrs[i].gid, dgid, np->addrs[i].prefix)) {
			memcpy(sgid, np->addrs[i].gid, RXD_GID_LEN);
			return 0;
		}
		if (first < 0)
			first = (int)i;
	}
	if (first < 0)
		return -EHOSTUNREACH;
	memcpy(sgid, np->addrs[first].gid, RXD_GID_LEN);
	return 0;
}

static bool
on_link(const struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN])
{
	unsigned int i;

	for (i = 0; i < np->n_addrs; i++)
		if (prefix_match(np->addrs[i].gid, dgid, np->addrs[i].prefix))
			return true;
	return false;
}

/* The IP whose MAC a frame to dgid needs, or NULL without a route. */
static const uint8_t *
next_hop(const struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN])
{
	if (on_link(np, dgid))
		return dgid;
	if (rxd_gid_is_v4(dgid))
		return np->has_gw4 ? np->gw4 : NULL;
	return np->has_gw6 ? np->gw6 : NULL;
}

static bool
eui64_mac(const uint8_t gid[RXD_GID_LEN], struct rte_ether_addr *mac)
{
	uint8_t *m = mac->addr_bytes;

	if (gid[0] != 0xfe || (gid[1] & 0xc0) != 0x80 ||
	    gid[11] != 0xff || gid[12] != 0xfe)
		return false;
	m[0] = gid[8] ^ 0x02;
	m[1] = gid[9];
	m[2] = gid[10];
	m[3] = gid[13];
	m[4] = gid[14];
	m[5] = gid[15];
	return true;
}

int
rxd_net_resolve(struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN],
		struct rte_ether_addr *mac)
{
	const uint8_t *hop = next_hop(np, dgid);
	struct rxd_neigh *n;

	if (rxd_gid_is_mcast(dgid)) {
		rxd_net_mcast_mac(dgid, mac);
		return 0;
	}
	if (eui64_mac(dgid, mac))
		return 0;
	if (hop == NULL) {
		np->stats.no_route++;
		return -EHOSTUNREACH;
	}
	n = rxd_neigh_lookup(np, hop, RXD_NEIGH_NEED);
	if (n == NULL)
		return -EAGAIN;
	switch (n->state) {
	case RXD_NEIGH_REACHABLE:
	case RXD_NEIGH_PROBE:
		*mac = n->mac;
		return 0;
	case RXD_NEIGH_FAILED:
		/* a recent failure stands; an old one is tried again */
		if (rte_rdtsc() < n->deadline)
			return -EHOSTUNREACH;
		n->state = RXD_NEIGH_INCOMPLETE;
		n->tries = 1;
		n->deadline = rte_rdtsc() + np->hz / 1000 * RXD_NEIGH_RETRY_MS;
		rxd_neigh_solicit(np, hop, NULL);
		return -EAGAIN;
	default:
		return -EAGAIN;
	}
}

int
rxd_net_peek(const struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN],
	     struct rte_ether_addr *mac)
{
	const uint8_t *hop = next_hop(np, dgid);
	const struct rxd_neigh *n;

	if (rxd_gid_is_mcast(dgid)) {
		rxd_net_mcast_mac(dgid, mac);
		return 0;
	}
	if (eui64_mac(dgid, mac))
		return 0;
	if (hop == NULL)
		return -EHOSTUNREACH;
	n = rxd_neigh_peek(np, hop);
	if (n != NULL && n->state == RXD_NEIGH_FAILED &&
	    rte_rdtsc() < n->deadline)
		return -EHOSTUNREACH;
	if (n == NULL || (n->state != RXD_NEIGH_REACHABLE &&
			  n->state != RXD_NEIGH_PROBE))
		return -EAGAIN;
	*mac = n->mac;
	return 0;
}

int
rxd_net_output(struct rxd_net_port *np, const uint8_t dgid[RXD_GID_LEN],
	       struct rte_mbuf *m, struct rxd_net_hint *hint)
{
	struct rte_ether_addr mac;
	struct rxd_neigh *n;
	int rc;

	if (hint != NULL && hint->gen == np->neigh_gen) {
		rxd_net_frame_set_dmac(m, &hint->mac);
		np->tx(np->tx_ctx, m);
		return 0;
	}
	rc = rxd_net_resolve(np, dgid, &mac);
	if (rc == 0) {
		if (hint != NULL) {
			hint->mac = mac;
			hint->gen = np->neigh_gen;
		}
		rxd_net_frame_set_dmac(m, &mac);
		np->tx(np->tx_ctx, m);
		return 0;
	}
	n = rc == -EAGAIN ? rxd_neigh_lookup(np, next_hop(np, dgid),
					   RXD_NEIGH_FIND) :
		NULL;
	if (n == NULL || n->n_held >= RXD_NEIGH_PENDING) {
		np->stats.held_dropped++;
		rte_pktmbuf_free(m);
		return n == NULL ? -EHOSTUNREACH : -ENOBUFS;
	}
	n->held[n->n_held++] = m;
	return 0;
}

void
rxd_net_input(struct rxd_net_port *np, struct rte_mbuf *m,
	      const struct rxd_pkt *pkt)
{
	if (pkt->kind == RXD_FRAME_ARP)
		np->stats.arp_rx++;
	else if (pkt->kind == RXD_FRAME_ICMP4)
		np->stats.icmp_rx++;
	else if (pkt->kind == RXD_FRAME_ICMP6)
		np->stats.icmp6_rx++;
	else if (pkt->kind == RXD_FRAME_IGMP)
		np->stats.igmp_rx++;
	if (!rxd_net_l2_accept(np, pkt)) {
		np->stats.not_for_us++;
		rte_pktmbuf_free(m);
		return;
	}
	switch (pkt->kind) {
	case RXD_FRAME_ARP:
		rxd_arp_input(np, m, pkt);
		break;
	case RXD_FRAME_ICMP4:
		rxd_icmp4_input(np, m, pkt);
		break;
	case RXD_FRAME_ICMP6:
		rxd_icmp6_input(np, m, pkt);
		break;
	case RXD_FRAME_IGMP:
		rxd_igmp_input(np, m, pkt);
		break;
	default:
		np->stats.other_dropped++;
		rte_pktmbuf_free(m);
	}
}

struct rte_mbuf *
rxd_net_frame(struct rxd_net_port *np, uint16_t ethertype,
	      const struct rte_ether_addr *dmac, uint16_t len, uint8_t **l3)
{
	uint16_t l2 = RXD_ETH_HLEN + (np->vlan ? RXD_VLAN_HLEN : 0);
	struct rte_mbuf *m = rte_pktmbuf_alloc(np->pool);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(l2 + len));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0, l2 + len);
	if (dmac != NULL)
		memcpy(p, dmac->addr_bytes, RXD_ETH_ALEN);
	memcpy(p + RXD_ETH_ALEN, np->mac.addr_bytes, RXD_ETH_ALEN);
	if (np->vlan) {
		rxd_put16(p + 12, RXD_ETHER_VLAN);
		rxd_put16(p + 14, np->vlan);
	}
	rxd_put16(p + l2 - 2, ethertype);
	*l3 = p + l2;
	return m;
}

void
rxd_net_frame_set_dmac(struct rte_mbuf *m, const struct rte_ether_addr *mac)
{
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), mac->addr_bytes, RXD_ETH_ALEN);
}

void
rxd_ipv4_hdr(struct rxd_net_port *np, uint8_t *ip,
	     const uint8_t src[RXD_GID_LEN], const uint8_t dst[RXD_GID_LEN],
	     uint8_t proto, uint16_t plen)
{
	ip[0] = 0x45;
	ip[1] = 0;
	rxd_put16(ip + 2, (uint16_t)(RXD_IPV4_HLEN + plen));
	rxd_put16(ip + 4, np->ip_id++);
	rxd_put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, src + 12, 4);
	memcpy(ip + 16, dst + 12, 4);
	rxd_put16(ip + 10, rxd_ipv4_csum(ip));
}

void
rxd_ipv6_hdr(uint8_t *ip, const uint8_t src[RXD_GID_LEN],
	     const uint8_t dst[RXD_GID_LEN], uint16_t plen, uint8_t hops)
{
	rxd_put32(ip, 6u << 28);
	rxd_put16(ip + 4, plen);
	ip[6] = 58;
	ip[7] = hops;
	memcpy(ip + 8, src, RXD_GID_LEN);
	memcpy(ip + 24, dst, RXD_GID_LEN);
}

uint16_t
rxd_icmp6_csum(const uint8_t *ip6, const uint8_t *icmp, uint32_t len)
{
	uint32_t sum = len + 58;

	sum = rxd_csum_add(sum, ip6 + 8, 32);
	sum = rxd_csum_add(sum, icmp, len);
	return rxd_csum_fold(sum);
}
