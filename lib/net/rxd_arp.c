/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826) for IPv4 peers: answer requests for our addresses, learn
 * senders that ask for us, send requests and gratuitous announcements.
 * As Linux does by default (arp_accept=0), a reply only updates a peer
 * already in the cache: nobody adds an entry by announcing itself.  A
 * frame claiming one of our addresses goes to rxd_arp_acd.c instead, and
 * our own frames coming back are ignored.
 */
#include <string.h>

#include "rxd_bytes.h"
#include "rxd_net_priv.h"

#define ARP_LEN 28

static const struct rte_ether_addr broadcast = {
	.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
};

/* @return false when no mbuf was free for it. */
static bool
arp_send(struct rxd_net_port *np, uint16_t op,
	 const struct rte_ether_addr *dmac, const uint8_t sip[RXD_GID_LEN],
	 const struct rte_ether_addr *tha, const uint8_t tip[RXD_GID_LEN])
{
	uint8_t *a;
	struct rte_mbuf *m = rxd_net_frame(np, RXD_ETHER_ARP, dmac, ARP_LEN, &a);

	if (m == NULL)
		return false;
	rxd_put16(a, 1);                 /* Ethernet */
	rxd_put16(a + 2, RXD_ETHER_IPV4);
	a[4] = RXD_ETH_ALEN;
	a[5] = 4;
	rxd_put16(a + 6, op);
	memcpy(a + 8, np->mac.addr_bytes, RXD_ETH_ALEN);
	memcpy(a + 14, sip + 12, 4);
	if (tha != NULL)
		memcpy(a + 18, tha->addr_bytes, RXD_ETH_ALEN);
	memcpy(a + 24, tip + 12, 4);
	np->stats.arp_tx++;
	np->tx(np->tx_ctx, m);
	return true;
}

void
rxd_arp_request(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN],
		const struct rte_ether_addr *unicast)
{
	uint8_t sip[RXD_GID_LEN];

	if (rxd_net_is_local(np, ip)) { /* gratuitous */
		arp_send(np, RXD_ARP_REQUEST, &broadcast, ip, NULL, ip);
		return;
	}
	if (rxd_net_source(np, ip, sip) != 0)
		return;
	arp_send(np, RXD_ARP_REQUEST, unicast ? unicast : &broadcast, sip, NULL,
		 ip);
}

void
rxd_arp_probe(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN])
{
	static const uint8_t unspecified[RXD_GID_LEN];

	arp_send(np, RXD_ARP_REQUEST, &broadcast, unspecified, NULL, ip);
}

static bool
arp_well_formed(const struct rte_mbuf *m, const struct rxd_pkt *pkt,
		const uint8_t *a)
{
	return rte_pktmbuf_data_len(m) >= pkt->l3_off + ARP_LEN &&
		rxd_get16(a) == 1 && rxd_get16(a + 2) == RXD_ETHER_IPV4 &&
		a[4] == RXD_ETH_ALEN && a[5] == 4 &&
		!rte_is_multicast_ether_addr((const void *)(a + 8)) &&
		!rte_is_zero_ether_addr((const void *)(a + 8));
}

/* A request for one of our addresses: learn the sender, answer it. */
static void
arp_request_in(struct rxd_net_port *np, const struct rte_ether_addr *sha,
	       const uint8_t sip[RXD_GID_LEN], const uint8_t tip[RXD_GID_LEN])
{
	struct rxd_neigh *n = NULL;

	if (sip[12] != 0 && !rxd_net_is_local(np, sip))
		n = rxd_neigh_lookup(np, sip, RXD_NEIGH_LEARN);
	if (n != NULL)
		rxd_neigh_confirm(np, n, sha);
	if (arp_send(np, RXD_ARP_REPLY, sha, tip, sha, sip))
		np->stats.arp_requests_answered++;
	else
		np->stats.reply_failed++;
}

/*
 * One of our own frames came back. On a port that receives what it sends
 * (net_ring), rxd asking for one of its own addresses reaches itself: the
 * entry rxd is resolving gets our MAC. Anything else of ours is ignored.
 */
static void
arp_own_input(struct rxd_net_port *np, uint16_t op,
	      const uint8_t tip[RXD_GID_LEN])
{
	struct rxd_neigh *n = NULL;

	if (op == RXD_ARP_REQUEST && rxd_net_is_local(np, tip))
		n = rxd_neigh_lookup(np, tip, RXD_NEIGH_FIND);
	if (n == NULL) {
		np->stats.not_for_us++;
		return;
	}
	rxd_neigh_confirm(np, n, &np->mac);
	np->stats.neigh_confirmed++;
}

void
rxd_arp_input(struct rxd_net_port *np, struct rte_mbuf *m,
	      const struct rxd_pkt *pkt)
{
	const uint8_t *a = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						   pkt->l3_off);
	uint8_t sip[RXD_GID_LEN], tip[RXD_GID_LEN];
	struct rte_ether_addr sha;
	struct rxd_neigh *n;
	uint16_t op;

	if (!arp_well_formed(m, pkt, a)) {
		np->stats.malformed++;
		goto out;
	}
	memcpy(sha.addr_bytes, a + 8, RXD_ETH_ALEN);
	rxd_gid_from_v4(sip, a + 14);
	rxd_gid_from_v4(tip, a + 24);
	op = rxd_get16(a + 6);
	if (rte_is_same_ether_addr(&sha, &np->mac)) {
		arp_own_input(np, op, tip);
	} else if (rxd_acd_conflict(np, op, &sha, sip, tip)) {
		np->stats.arp_conflicts++;
	} else if (op != RXD_ARP_REQUEST && op != RXD_ARP_REPLY) {
		np->stats.neigh_ignored++;
	} else if (op == RXD_ARP_REQUEST && rxd_net_is_local(np, tip)) {
		arp_request_in(np, &sha, sip, tip);
	} else if ((n = rxd_neigh_lookup(np, sip, RXD_NEIGH_FIND)) != NULL) {
		/* RFC 826: a known sender's MAC is updated, whoever asked */
		rxd_neigh_confirm(np, n, &sha);
		np->stats.neigh_confirmed++;
	} else if (op == RXD_ARP_REQUEST) {
		np->stats.not_for_us++;    /* one host asking another */
	} else {
		np->stats.neigh_ignored++;
	}
out:
	rte_pktmbuf_free(m);
}
