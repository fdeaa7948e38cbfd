/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour cache: an open-addressed table of IP -> MAC with the frames held
 * while a peer is resolved, retries, expiry and re-confirmation.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>

#include "rxd_net_priv.h"

static uint32_t
slot_of(const uint8_t ip[RXD_GID_LEN])
{
	uint64_t words[RXD_GID_LEN / 8];   /* aligned: ip may sit in a frame */

	memcpy(words, ip, RXD_GID_LEN);
	return rte_hash_crc(words, RXD_GID_LEN, 0) & (RXD_NEIGH_SLOTS - 1);
}

/* Hints taken before now are stale (0 stays "nothing noted"). */
static void
changed(struct rxd_net_port *np)
{
	if (++np->neigh_gen == 0)
		np->neigh_gen = 1;
}

/* A slot a new entry may take: free, failed, or (for a needed peer) an
 * entry nobody asked for that holds no frame. */
static bool
reusable(const struct rxd_neigh *n, enum rxd_neigh_want want)
{
	if (n->state == RXD_NEIGH_FREE || n->state == RXD_NEIGH_FAILED)
		return true;
	return want == RXD_NEIGH_NEED && n->learned && n->n_held == 0;
}

const struct rxd_neigh *
rxd_neigh_peek(const struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN])
{
	const struct rxd_neigh *n;
	uint32_t i, s = slot_of(ip);

	for (i = 0; i < RXD_NEIGH_SLOTS; i++) {
		n = &np->neigh[(s + i) & (RXD_NEIGH_SLOTS - 1)];
		if (n->state == RXD_NEIGH_FREE)
			return NULL;
		if (memcmp(n->ip, ip, RXD_GID_LEN) == 0)
			return n;
	}
	return NULL;
}

struct rxd_neigh *
rxd_neigh_lookup(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN],
		 enum rxd_neigh_want want)
{
	struct rxd_neigh *spare = NULL, *n;
	uint32_t i, s = slot_of(ip);

	for (i = 0; i < RXD_NEIGH_SLOTS; i++) {
		n = &np->neigh[(s + i) & (RXD_NEIGH_SLOTS - 1)];
		if (n->state != RXD_NEIGH_FREE &&
		    memcmp(n->ip, ip, RXD_GID_LEN) == 0) {
			n->learned &= want != RXD_NEIGH_NEED;
			return n;
		}
		if (spare == NULL && reusable(n, want))
			spare = n;
		if (n->state == RXD_NEIGH_FREE)
			break;
	}
	if (want == RXD_NEIGH_FIND || spare == NULL)
		return NULL;
	if (spare->state != RXD_NEIGH_FREE && spare->state != RXD_NEIGH_FAILED)
		np->stats.neigh_evicted++;
	memset(spare, 0, sizeof(*spare));
	memcpy(spare->ip, ip, RXD_GID_LEN);
	spare->learned = want == RXD_NEIGH_LEARN;
	changed(np);
	spare->state = RXD_NEIGH_FAILED; /* caller starts resolution */
	return spare;
}

void
rxd_neigh_confirm(struct rxd_net_port *np, struct rxd_neigh *n,
		  const struct rte_ether_addr *mac)
{
	uint8_t i;

	if (!rte_is_same_ether_addr(&n->mac, mac))
		changed(np);             /* hints of the old MAC are stale */
	n->mac = *mac;
	n->state = RXD_NEIGH_REACHABLE;
	n->tries = 0;
	n->deadline = rte_rdtsc() + np->hz * RXD_NEIGH_REACHABLE_S;
	for (i = 0; i < n->n_held; i++) {
		rxd_net_frame_set_dmac(n->held[i], mac);
		np->tx(np->tx_ctx, n->held[i]);
	}
	n->n_held = 0;
}

void
rxd_neigh_solicit(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN],
		  const struct rte_ether_addr *unicast)
{
	if (rxd_gid_is_v4(ip))
		rxd_arp_request(np, ip, unicast);
	else
		rxd_nd_solicit(np, ip, unicast);
}

static void
fail(struct rxd_net_port *np, struct rxd_neigh *n, uint64_t now)
{
	uint8_t i;

	for (i = 0; i < n->n_held; i++)
		rte_pktmbuf_free(n->held[i]);
	np->stats.held_dropped += n->n_held;
	np->stats.resolve_failed++;
	n->n_held = 0;
	n->state = RXD_NEIGH_FAILED;
	changed(np);
	/* a new attempt may start after one retry interval */
	n->deadline = now + np->hz / 1000 * RXD_NEIGH_RETRY_MS;
}

static void
expire(struct rxd_net_port *np, struct rxd_neigh *n, uint64_t now)
{
	uint64_t retry = np->hz / 1000 * RXD_NEIGH_RETRY_MS;

	switch (n->state) {
	case RXD_NEIGH_INCOMPLETE:
	case RXD_NEIGH_PROBE:
		if (n->tries >= RXD_NEIGH_TRIES) {
			fail(np, n, now);
			return;
		}
		n->tries++;
		n->deadline = now + retry;
		rxd_neigh_solicit(np, n->ip,
			n->state == RXD_NEIGH_PROBE ? &n->mac : NULL);
		return;
	case RXD_NEIGH_REACHABLE:
		n->state = RXD_NEIGH_PROBE;
		n->tries = 1;
		n->deadline = now + retry;
		rxd_neigh_solicit(np, n->ip, &n->mac);
		return;
	default:
		return;
	}
}

void
rxd_net_timer(struct rxd_net_port *np, uint64_t now)
{
	unsigned int i;

	rxd_acd_timer(np, now);
	for (i = 0; i < RXD_NEIGH_SLOTS; i++) {
		struct rxd_neigh *n = &np->neigh[i];

		if (n->state != RXD_NEIGH_FREE &&
		    n->state != RXD_NEIGH_FAILED && now >= n->deadline)
			expire(np, n, now);
	}
	rxd_group_timer(np, now);
}
