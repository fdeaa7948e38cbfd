/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * handoff-bench: the cost of handing received frames from one engine lcore
 * to another, what QPN sharding over several engines would add per frame
 * (doc/performance.md, "Several engines").  A frame travels as an mbuf
 * pointer through a single-producer/single-consumer rte_ring in bursts of
 * 32: the producer writes a field of each mbuf (as a receiving engine that
 * parsed it), the consumer reads it and the mbuf's length (as the owning
 * engine) and returns the pointers through a second ring.  The inverse of
 * the rate the pair sustains bounds what a hand-off costs either engine
 * per frame (ring operations, the mbuf's cache line moving between the
 * cores, the return).  Prints:
 *   handoff burst=32 mpps=X ns_per_frame=Y
 * Usage: handoff-bench EAL-ARGS (two lcores: -l 0-1) [-- SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#define BURST 32
#define FRAMES 4096

static volatile uint64_t sink;   /* keeps the reads */

struct bench {
	struct rte_ring *to_owner, *back;
	struct rte_mbuf *m[FRAMES];
	uint64_t end_tsc;
	uint64_t moved;
	volatile int stop;
};

/* The receiving engine: stamp each frame, pass it on. */
static int
producer(void *arg)
{
	struct bench *b = arg;
	struct rte_mbuf *burst[BURST];
	uint64_t seq = 0;
	unsigned int n, i, done;

	while (!b->stop) {
		n = rte_ring_sc_dequeue_burst(b->back, (void **)burst, BURST,
					      NULL);
		for (i = 0; i < n; i++)
			burst[i]->hash.usr = (uint32_t)seq++;
		for (done = 0; done < n && !b->stop;)
			done += rte_ring_sp_enqueue_burst(b->to_owner,
				(void **)&burst[done], n - done, NULL);
	}
	return 0;
}

/* The owning engine: read what the receiver wrote, give the frame back. */
static uint64_t
owner(struct bench *b)
{
	struct rte_mbuf *burst[BURST];
	uint64_t moved = 0, sum = 0;
	unsigned int n, i, done;

	while (rte_rdtsc() < b->end_tsc) {
		n = rte_ring_sc_dequeue_burst(b->to_owner, (void **)burst,
					      BURST, NULL);
		for (i = 0; i < n; i++)
			sum += burst[i]->hash.usr + burst[i]->data_len;
		moved += n;
		for (done = 0; done < n;)
			done += rte_ring_sp_enqueue_burst(b->back,
				(void **)&burst[done], n - done, NULL);
	}
	b->stop = 1;
	sink = sum;
	return moved;
}

static void
report(uint64_t moved, double secs)
{
	double mpps = (double)moved / secs / 1e6;

	printf("handoff burst=%u mpps=%.3f ns_per_frame=%.2f\n", BURST, mpps,
	       1e3 / mpps);
}

int
main(int argc, char **argv)
{
	static struct bench b;
	struct rte_mempool *pool;
	unsigned int worker, i;
	double secs = 2;
	uint64_t moved;
	int n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "handoff-bench: EAL init failed\n");
		return 2;
	}
	if (argc - n > 1)
		secs = atof(argv[n + 1]);
	worker = rte_get_next_lcore(-1, 1, 0);
	pool = rte_pktmbuf_pool_create("hb", FRAMES + 1024, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	b.to_owner = rte_ring_create("hb_to", FRAMES, SOCKET_ID_ANY,
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	b.back = rte_ring_create("hb_back", FRAMES, SOCKET_ID_ANY,
				 RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (worker >= RTE_MAX_LCORE || pool == NULL || b.to_owner == NULL ||
	    b.back == NULL || rte_pktmbuf_alloc_bulk(pool, b.m, FRAMES) != 0) {
		fprintf(stderr, "handoff-bench: needs two lcores (-l 0-1) "
			"and memory for %u mbufs\n", FRAMES);
		return 2;
	}
	for (i = 0; i + 1 < FRAMES; i += BURST)
		rte_ring_sp_enqueue_burst(b.back, (void **)&b.m[i], BURST,
					  NULL);
	b.end_tsc = rte_rdtsc() + (uint64_t)(secs * rte_get_tsc_hz());
	rte_eal_remote_launch(producer, &b, worker);
	moved = owner(&b);
	rte_eal_wait_lcore(worker);
	report(moved, secs);
	rte_eal_cleanup();
	return 0;
}
