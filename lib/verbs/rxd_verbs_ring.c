/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The single-producer/single-consumer rings of send and receive queues,
 * SRQs and CQs (a CQ's multi-producer and an SRQ's multi-consumer when
 * several engines share the port).  They live in rte_malloc memory, set up with
 * rte_ring_init(): a ring from rte_ring_create() takes one of EAL's
 * memzones, of which there are 2560, and that capped a process at about
 * 1270 QPs whatever memory it had.
 */
#include <stdio.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring_elem.h>

#include "rxd_qp_engine.h"
#include "rxd_verbs.h"

static uint32_t ring_serial;

static struct rte_ring *
ring_with(const char *kind, uint32_t entries, size_t esize, unsigned int sync)
{
	unsigned int count = entries ? entries : 1;
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;
	ssize_t size;

	/* what rte_ring_create_elem() reserves for an exact-size ring */
	size = rte_ring_get_memsize_elem((unsigned int)esize,
					 rte_align32pow2(count + 1));
	if (size < 0)
		return NULL;
	snprintf(name, sizeof(name), "rxd_%s%u", kind,
		 __atomic_fetch_add(&ring_serial, 1, __ATOMIC_RELAXED));
	r = rte_zmalloc_socket(name, (size_t)size, RTE_CACHE_LINE_SIZE,
			       (int)rte_socket_id());
	if (r == NULL)
		return NULL;
	if (rte_ring_init(r, name, count, sync | RING_F_EXACT_SZ) != 0) {
		rte_free(r);
		return NULL;
	}
	return r;
}

struct rte_ring *
rxd_verbs_ring(const char *kind, uint32_t entries, size_t esize)
{
	return ring_with(kind, entries, esize, RING_F_SP_ENQ | RING_F_SC_DEQ);
}

struct rte_ring *
rxd_verbs_ring_shared(const char *kind, unsigned int port, uint32_t entries,
		      size_t esize)
{
	unsigned int sync = RING_F_SP_ENQ | RING_F_SC_DEQ;

	if (rxd_port_engines(port) > 1)
		sync &= strcmp(kind, "cq") == 0 ? ~RING_F_SP_ENQ :
			~RING_F_SC_DEQ;
	return ring_with(kind, entries, esize, sync);
}

void
rxd_verbs_ring_free(struct rte_ring *r)
{
	rte_free(r);
}
