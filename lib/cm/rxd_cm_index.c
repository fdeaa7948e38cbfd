/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM's indexes, so that a storm of N connections costs O(N log N),
 * not O(N^2): ids by our comm ID and passive ids by the peer's comm ID
 * and GID (hash tables with chains through the ids, doubled when full),
 * the listeners (a list of their own), and the ids' timers (a binary
 * min-heap on the due time).  Emptied, a table or the heap gives its
 * memory back, so that a storm leaves no trace.  Callers hold rxd_cm.lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxd_cm_priv.h"

#define FIRST_BUCKETS 256u
#define FIRST_HEAP 256u

/* One hash table: buckets of chains through a link field of the ids. */
struct table {
	struct rxd_cm_id **b;
	unsigned int n_buckets;       /**< a power of two, or 0 */
	unsigned int n;
};

static struct table by_comm, by_peer;
static struct rxd_cm_id *listeners;

static struct {
	struct rxd_cm_id **at;        /**< at[0] is due first */
	unsigned int n, cap;
} heap;

static unsigned int
mix(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return (unsigned int)v;
}

static unsigned int
comm_hash(const struct rxd_cm_id *c)
{
	return mix(c->local_comm_id);
}

static unsigned int
peer_hash_of(uint32_t remote, const uint8_t gid[16])
{
	uint64_t g;

	memcpy(&g, gid + 8, sizeof(g));
	return mix(g ^ ((uint64_t)remote << 17));
}

static unsigned int
peer_hash(const struct rxd_cm_id *c)
{
	return peer_hash_of(c->remote_comm_id, c->dgid);
}

/* The chain link of an id in one of the two tables. */
static struct rxd_cm_id **
link_of(struct table *t, struct rxd_cm_id *c)
{
	return t == &by_comm ? &c->comm_next : &c->peer_next;
}

static unsigned int
hash_of(struct table *t, const struct rxd_cm_id *c)
{
	return t == &by_comm ? comm_hash(c) : peer_hash(c);
}

/* Double the buckets (or make the first ones) and rechain every id. */
static int
table_grow(struct table *t)
{
	unsigned int n = t->n_buckets ? 2 * t->n_buckets : FIRST_BUCKETS, i, h;
	struct rxd_cm_id **b = calloc(n, sizeof(*b)), *c, *next;

	if (b == NULL)
		return ENOMEM;
	for (i = 0; i < t->n_buckets; i++)
		for (c = t->b[i]; c != NULL; c = next) {
			next = *link_of(t, c);
			h = hash_of(t, c) & (n - 1);
			*link_of(t, c) = b[h];
			b[h] = c;
		}
	free(t->b);
	t->b = b;
	t->n_buckets = n;
	return 0;
}

static void
table_add(struct table *t, struct rxd_cm_id *c)
{
	unsigned int h;

	if (t->n >= t->n_buckets && table_grow(t) != 0 && t->n_buckets == 0)
		return;       /* no memory for a first table: not indexed */
	h = hash_of(t, c) & (t->n_buckets - 1);
	*link_of(t, c) = t->b[h];
	t->b[h] = c;
	t->n++;
}

static void
table_del(struct table *t, struct rxd_cm_id *c)
{
	struct rxd_cm_id **pp;

	if (t->n_buckets == 0)
		return;
	for (pp = &t->b[hash_of(t, c) & (t->n_buckets - 1)]; *pp != NULL;
	     pp = link_of(t, *pp))
		if (*pp == c) {
			*pp = *link_of(t, c);
			if (--t->n == 0) {
				free(t->b);
				t->b = NULL;
				t->n_buckets = 0;
			}
			return;
		}
}

size_t
rxd_cm_index_bytes(void)
{
	return (size_t)(by_comm.n_buckets + by_peer.n_buckets + heap.cap) *
		sizeof(struct rxd_cm_id *);
}

void
rxd_cm_index_comm_id(struct rxd_cm_id *c, uint32_t comm_id)
{
	if (c->local_comm_id != 0)
		table_del(&by_comm, c);
	c->local_comm_id = comm_id;
	table_add(&by_comm, c);
}

void
rxd_cm_index_peer(struct rxd_cm_id *c, uint32_t remote)
{
	c->remote_comm_id = remote;
	table_add(&by_peer, c);
	c->peer_indexed = true;
}

void
rxd_cm_index_listen(struct rxd_cm_id *c)
{
	c->listen_next = listeners;
	listeners = c;
	c->listening = true;
}

struct rxd_cm_id *
rxd_cm_index_listeners(void)
{
	return listeners;
}

struct rxd_cm_id *
rxd_cm_index_find_comm_id(uint32_t comm_id)
{
	struct rxd_cm_id *c;

	if (by_comm.n_buckets == 0)
		return NULL;
	for (c = by_comm.b[mix(comm_id) & (by_comm.n_buckets - 1)]; c != NULL;
	     c = c->comm_next)
		if (c->local_comm_id == comm_id)
			return c;
	return NULL;
}

struct rxd_cm_id *
rxd_cm_index_find_peer(uint32_t remote, const uint8_t gid[16])
{
	struct rxd_cm_id *c;

	if (by_peer.n_buckets == 0)
		return NULL;
	for (c = by_peer.b[peer_hash_of(remote, gid) &
			   (by_peer.n_buckets - 1)];
	     c != NULL; c = c->peer_next)
		if (c->remote_comm_id == remote && !memcmp(c->dgid, gid, 16))
			return c;
	return NULL;
}

/* Heap positions are 1-based in the ids (0: not in the heap). */
static void
heap_put(unsigned int i, struct rxd_cm_id *c)
{
	heap.at[i] = c;
	c->heap_pos = i + 1;
}

static void
heap_up(unsigned int i)
{
	struct rxd_cm_id *c = heap.at[i];

	while (i > 0 && heap.at[(i - 1) / 2]->timer_ms > c->timer_ms) {
		heap_put(i, heap.at[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_put(i, c);
}

static void
heap_down(unsigned int i)
{
	struct rxd_cm_id *c = heap.at[i];
	unsigned int k;

	for (;;) {
		k = 2 * i + 1;
		if (k >= heap.n)
			break;
		if (k + 1 < heap.n && heap.at[k + 1]->timer_ms < heap.at[k]->timer_ms)
			k++;
		if (heap.at[k]->timer_ms >= c->timer_ms)
			break;
		heap_put(i, heap.at[k]);
		i = k;
	}
	heap_put(i, c);
}

static int
heap_reserve(void)
{
	unsigned int cap = heap.cap ? 2 * heap.cap : FIRST_HEAP;
	struct rxd_cm_id **at;

	if (heap.n < heap.cap)
		return 0;
	at = realloc(heap.at, cap * sizeof(*at));
	if (at == NULL)
		return ENOMEM;
	heap.at = at;
	heap.cap = cap;
	return 0;
}

int
rxd_cm_timer_at(struct rxd_cm_id *c, uint64_t when)
{
	uint64_t was = c->timer_ms;

	c->timer_ms = when;
	if (c->heap_pos == 0) {
		if (heap_reserve() != 0)
			return ENOMEM;
		heap.at[heap.n] = c;
		heap_up(heap.n++);
	} else if (when < was) {
		heap_up(c->heap_pos - 1);
	} else {
		heap_down(c->heap_pos - 1);
	}
	return 0;
}

void
rxd_cm_timer_stop(struct rxd_cm_id *c)
{
	unsigned int i = c->heap_pos;
	struct rxd_cm_id *last;

	if (i == 0)
		return;
	c->heap_pos = 0;
	last = heap.at[--heap.n];
	if (heap.n == 0) {
		free(heap.at);
		heap.at = NULL;
		heap.cap = 0;
		return;
	}
	if (last == c)
		return;
	heap_put(i - 1, last);
	heap_up(i - 1);
	heap_down(last->heap_pos - 1);
}

struct rxd_cm_id *
rxd_cm_timer_due(uint64_t now)
{
	struct rxd_cm_id *c;

	if (heap.n == 0 || heap.at[0]->timer_ms > now)
		return NULL;
	c = heap.at[0];
	rxd_cm_timer_stop(c);
	return c;
}

uint64_t
rxd_cm_timer_next(void)
{
	return heap.n ? heap.at[0]->timer_ms : UINT64_MAX;
}

void
rxd_cm_index_forget(struct rxd_cm_id *c)
{
	struct rxd_cm_id **pp;

	rxd_cm_timer_stop(c);
	if (c->local_comm_id != 0)
		table_del(&by_comm, c);
	if (c->peer_indexed)
		table_del(&by_peer, c);
	if (!c->listening)
		return;
	for (pp = &listeners; *pp != NULL; pp = &(*pp)->listen_next)
		if (*pp == c) {
			*pp = c->listen_next;
			return;
		}
}
