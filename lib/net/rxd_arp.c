/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP (RFC 826) for IPv4 peers: answer requests for our addresses, learn
 * senders that talk to us, send requests and gratuitous announcements.
 */
#include <string.h>

#include "rxd_bytes.h"
#include "rxd_net_priv.h"

#define ARP_LEN 28
#define ARP_REQUEST 1
#define ARP_REPLY 2

static const struct rte_ether_addr broadcast = {
	.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
};

static void
arp_send(struct rxd_net_port *np, uint16_t op,
	 const struct rte_ether_addr *dmac, const uint8_t sip[RXD_GID_LEN],
	 const struct rte_ether_addr *tha, const uint8_t tip[RXD_GID_LEN])
{
	uint8_t *a;
	struct rte_mbuf *m = rxd_net_frame(np, RXD_ETHER_ARP, dmac, ARP_LEN, &a);

	if (m == NULL)
		return;
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
}

void
rxd_arp_request(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN],
		const struct rte_ether_addr *unicast)
{
	uint8_t sip[RXD_GID_LEN];

	if (rxd_net_is_local(np, ip)) { /* gratuitous */
		arp_send(np, ARP_REQUEST, &broadcast, ip, NULL, ip);
		return;
	}
	if (rxd_net_source(np, ip, sip) != 0)
		return;
	arp_send(np, ARP_REQUEST, unicast ? unicast : &broadcast, sip, NULL,
		 ip);
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
	bool for_us;

	np->stats.arp_rx++;
	if (rte_pktmbuf_data_len(m) < pkt->l3_off + ARP_LEN ||
	    rxd_get16(a) != 1 || rxd_get16(a + 2) != RXD_ETHER_IPV4 ||
	    a[4] != RXD_ETH_ALEN || a[5] != 4) {
		np->stats.malformed++;
		goto out;
	}
	memcpy(sha.addr_bytes, a + 8, RXD_ETH_ALEN);
	rxd_gid_from_v4(sip, a + 14);
	rxd_gid_from_v4(tip, a + 24);
	for_us = rxd_net_is_local(np, tip);
	if (rte_is_multicast_ether_addr(&sha) || rte_is_zero_ether_addr(&sha)) {
		np->stats.malformed++;
		goto out;
	}
	/* RFC 826: update a known sender; learn it if it talks to us */
	n = rxd_neigh_lookup(np, sip, for_us && sip[12] != 0);
	if (n != NULL)
		rxd_neigh_confirm(np, n, &sha);
	if (for_us && rxd_get16(a + 6) == ARP_REQUEST) {
		np->stats.arp_requests_answered++;
		arp_send(np, ARP_REPLY, &sha, tip, &sha, sip);
	}
out:
	rte_pktmbuf_free(m);
}
