/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addressing a QP's frames and the binding's queue of frames waiting for
 * their next hop (see rxd_tx_addr.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_malloc.h>

#include "rxd_engine.h"
#include "rxd_tx_addr.h"

/* lib/net gives up on a next hop after RXD_NEIGH_TRIES requests; a frame
 * still waiting one retry interval later is dropped (the transport
 * resends it). */
#define WAIT_MS ((RXD_NEIGH_TRIES + 1) * RXD_NEIGH_RETRY_MS)
/* distinct next hops a drain remembers as unresolved */
#define DRAIN_BLOCKED 4

int
rxd_tx_addr_init(struct rxd_engine_port *ep)
{
	ep->wait = rte_zmalloc_socket("rxd_tx_wait",
				      RXD_TX_WAIT * sizeof(*ep->wait), 0,
				      ep->port->socket);
	ep->n_wait = 0;
	return ep->wait == NULL ? -ENOMEM : 0;
}

void
rxd_tx_addr_fini(struct rxd_engine_port *ep)
{
	uint16_t i;

	for (i = 0; i < ep->n_wait; i++)
		rte_pktmbuf_free(ep->wait[i].m);
	rte_free(ep->wait);
	ep->wait = NULL;
	ep->n_wait = 0;
}

/*
 * The MAC of dgid's next hop: the QP's hint while the neighbour table has
 * not changed, else the table, which the first engine resolves from and
 * the others only read.  @return 0, -EAGAIN (resolving) or -EHOSTUNREACH.
 */
static int
next_mac(struct rxd_engine_port *ep, const uint8_t dgid[RXD_GID_LEN],
	 struct rxd_net_hint *hint, struct rte_ether_addr *mac)
{
	uint32_t gen = __atomic_load_n(&ep->net->neigh_gen, __ATOMIC_ACQUIRE);
	int rc;

	if (hint != NULL && hint->gen == gen && gen != 0) {
		*mac = hint->mac;
		return 0;
	}
	rc = ep->first == ep ? rxd_net_resolve(ep->net, dgid, mac) :
		rxd_net_peek(ep->net, dgid, mac);
	if (rc == 0 && hint != NULL) {
		hint->mac = *mac;
		hint->gen = gen;
	}
	return rc;
}

static void
put_addressed(struct rxd_engine_port *ep, uint16_t lane,
	      const struct rte_ether_addr *mac, struct rte_mbuf *m)
{
	rte_ether_addr_copy(mac,
		&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr);
	rxd_tx_lane_put(ep, lane, m);
}

static void
drop(struct rxd_engine_port *ep, struct rte_mbuf *m)
{
	ep->addr_stats.dropped++;
	rte_pktmbuf_free(m);
}

struct resolve_arg {
	struct rxd_net_port *net;
	uint8_t dgid[RXD_GID_LEN];
};

/* Start resolving on the port's first engine (posted: frees its arg). */
static int
resolve_cmd(struct rxd_engine *e, void *arg)
{
	struct resolve_arg *a = arg;
	struct rte_ether_addr mac;

	(void)e;
	rxd_net_resolve(a->net, a->dgid, &mac);
	free(a);
	return 0;
}

void
rxd_tx_addr_resolve(struct rxd_engine_port *ep,
		    const uint8_t dgid[RXD_GID_LEN])
{
	struct rte_ether_addr mac;
	struct resolve_arg *a;

	if (ep->first == ep) {
		rxd_net_resolve(ep->net, dgid, &mac);
		return;
	}
	a = malloc(sizeof(*a));
	if (a == NULL)
		return;   /* asked again once these frames are dropped */
	a->net = ep->net;
	memcpy(a->dgid, dgid, RXD_GID_LEN);
	if (rxd_engine_post(ep->first->engine, resolve_cmd, a) != 0)
		free(a);
}

static bool
waiting_for(const struct rxd_engine_port *ep, const uint8_t dgid[RXD_GID_LEN])
{
	uint16_t i;

	for (i = 0; i < ep->n_wait; i++)
		if (memcmp(ep->wait[i].dgid, dgid, RXD_GID_LEN) == 0)
			return true;
	return false;
}

/* Queue a frame behind those waiting; the first for its destination
 * asks the first engine to resolve it (which itself resolves while
 * draining).  A request lost (no memory, a full control ring) is made
 * again by the next frame to that destination after the waiting ones
 * were dropped (WAIT_MS), and lib/net repeats a request it sent. */
static void
wait_put(struct rxd_engine_port *ep, uint16_t lane,
	 const uint8_t dgid[RXD_GID_LEN], struct rte_mbuf *m)
{
	struct rxd_tx_wait *w;

	ep->addr_stats.waited++;
	if (ep->n_wait == RXD_TX_WAIT) {
		drop(ep, m);
		return;
	}
	if (ep->first != ep && !waiting_for(ep, dgid))
		rxd_tx_addr_resolve(ep, dgid);
	w = &ep->wait[ep->n_wait++];
	w->m = m;
	w->since = rte_rdtsc();
	w->lane = lane;
	memcpy(w->dgid, dgid, RXD_GID_LEN);
}

void
rxd_tx_addr_send(struct rxd_engine_port *ep, uint16_t lane,
		 const uint8_t dgid[RXD_GID_LEN], struct rxd_net_hint *hint,
		 struct rte_mbuf *m)
{
	struct rte_ether_addr mac;
	int rc;

	if (ep->n_wait != 0 && waiting_for(ep, dgid)) {
		wait_put(ep, lane, dgid, m);   /* behind its next hop's others */
		return;
	}
	rc = next_mac(ep, dgid, hint, &mac);
	if (rc == 0)
		put_addressed(ep, lane, &mac, m);
	else if (rc == -EAGAIN)
		wait_put(ep, lane, dgid, m);
	else
		drop(ep, m);
}

/* Next hops found unresolved during one drain: a later frame to one of
 * them stays behind the earlier, even if the table changes meanwhile. */
struct blocked {
	unsigned int n;
	const uint8_t *dgid[DRAIN_BLOCKED];
};

static bool
is_blocked(const struct blocked *b, const uint8_t dgid[RXD_GID_LEN])
{
	unsigned int i;

	if (b->n > DRAIN_BLOCKED)
		return true;
	for (i = 0; i < b->n; i++)
		if (memcmp(b->dgid[i], dgid, RXD_GID_LEN) == 0)
			return true;
	return false;
}

static void
block(struct blocked *b, const uint8_t dgid[RXD_GID_LEN])
{
	if (is_blocked(b, dgid))
		return;
	if (b->n < DRAIN_BLOCKED)
		b->dgid[b->n] = dgid;
	b->n++;   /* past DRAIN_BLOCKED: everything after stays */
}

unsigned int
rxd_tx_addr_drain(struct rxd_engine_port *ep)
{
	/* its own clock: frames may have been stamped after the pass began */
	uint64_t limit = rte_get_tsc_hz() / 1000 * WAIT_MS, now = rte_rdtsc();
	struct blocked b = { .n = 0 };
	uint16_t i, kept = 0;
	struct rte_ether_addr mac;
	unsigned int sent = 0;
	int rc;

	for (i = 0; i < ep->n_wait; i++) {
		struct rxd_tx_wait *w = &ep->wait[i];

		rc = is_blocked(&b, w->dgid) ? -EAGAIN :
			next_mac(ep, w->dgid, NULL, &mac);
		if (rc == 0) {
			put_addressed(ep, w->lane, &mac, w->m);
			sent++;
		} else if (rc != -EAGAIN || now - w->since > limit) {
			drop(ep, w->m);
		} else {
			if (kept != i)
				ep->wait[kept] = *w;
			/* slot kept is final: later entries move below it */
			block(&b, ep->wait[kept++].dgid);
		}
	}
	ep->n_wait = kept;
	return sent;
}
