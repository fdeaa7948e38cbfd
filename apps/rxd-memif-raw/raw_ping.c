/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-memif-raw's ping mode: one frame at a time to a fwd peer, timed
 * from rte_eth_tx_burst() to the echo's rte_eth_rx_burst() with the TSC,
 * for --time seconds; reports min, median, mean, 99th percentile and max
 * (the percentiles to 10 ns, from a histogram that ends at 1 ms).
 */
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "memif_raw.h"

#define ECHO_TIMEOUT_MS 100
#define BUCKET_NS 10            /* histogram resolution */
#define BUCKETS 100000          /* up to 1 ms; the last holds the rest */

/* Round trips: a histogram of 10 ns buckets, plus exact min, max, sum. */
struct ping_run {
	uint32_t *hist;
	uint64_t samples, lost, min, max, sum;  /* TSC cycles */
	double bucket_cycles;
};

static void
record(struct ping_run *r, uint64_t rtt)
{
	uint64_t b = (uint64_t)((double)rtt / r->bucket_cycles);

	r->hist[b < BUCKETS ? b : BUCKETS - 1]++;
	r->min = r->samples == 0 || rtt < r->min ? rtt : r->min;
	r->max = rtt > r->max ? rtt : r->max;
	r->sum += rtt;
	r->samples++;
}

/* Wait for the echo of frame seq; @return its round trip, or 0. */
static uint64_t
await_echo(const struct raw_port *p, uint64_t seq, uint64_t t0)
{
	uint64_t limit = rte_get_tsc_hz() / 1000 * ECHO_TIMEOUT_MS, now;
	struct rte_mbuf *m[32];
	struct raw_hdr h;
	unsigned int n, i;
	bool found = false;

	do {
		n = rte_eth_rx_burst(p->id, 0, m, 32);
		now = rte_get_tsc_cycles();
		for (i = 0; i < n; i++)
			found |= raw_frame_parse(m[i], &h) &&
				h.kind == RAW_DATA && h.seq == seq;
		rte_pktmbuf_free_bulk(m, n);
	} while (!found && now - t0 < limit);
	return found ? now - t0 : 0;
}

/* One round trip; @return -1 if the frame could not even be sent. */
static int
ping_once(const struct raw_port *p, const struct raw_opts *o,
	  struct ping_run *r, uint64_t seq)
{
	struct rte_mbuf *m;
	uint64_t t0, rtt;

	if (raw_frames_build(p, &m, 1, o->size, RAW_DATA, seq, 0) != 1)
		return -1;
	t0 = rte_get_tsc_cycles();
	if (rte_eth_tx_burst(p->id, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return -1;
	}
	rtt = await_echo(p, seq, t0);
	if (rtt == 0)
		r->lost++;
	else
		record(r, rtt);
	return 0;
}

/* Round trips in microseconds (all 0 without samples). */
struct rtt_stats {
	double min, median, avg, p99, max;
};

/* The upper edge of the bucket holding sample rank (0-based), in us; the
 * max when that is the last bucket. */
static double
percentile(const struct ping_run *r, uint64_t rank, double us)
{
	uint64_t seen = 0;
	unsigned int b;

	for (b = 0; b < BUCKETS - 1; b++) {
		seen += r->hist[b];
		if (seen > rank)
			return (b + 1) * BUCKET_NS / 1000.0;
	}
	return (double)r->max * us;
}

static void
rtt_stats(const struct ping_run *r, struct rtt_stats *st)
{
	double us = 1e6 / (double)rte_get_tsc_hz();
	uint64_t n = r->samples;

	*st = (struct rtt_stats){ 0 };
	if (n == 0)
		return;
	st->min = (double)r->min * us;
	st->median = percentile(r, (n - 1) / 2, us);
	st->avg = (double)r->sum / (double)n * us;
	st->p99 = percentile(r, (n - 1) * 99 / 100, us);
	st->max = (double)r->max * us;
}

static void
ping_report(const struct raw_opts *o, const struct ping_run *r,
	    const struct rtt_stats *st)
{
	const struct raw_field f[] = {
		RAW_INT("size", o->size), RAW_INT("samples", r->samples),
		RAW_INT("lost", r->lost), RAW_REAL("min_us", st->min),
		RAW_REAL("median_us", st->median), RAW_REAL("avg_us", st->avg),
		RAW_REAL("p99_us", st->p99), RAW_REAL("max_us", st->max),
	};

	raw_report(o, "rtt", f, RTE_DIM(f));
}

int
raw_run_ping(const struct raw_port *p, const struct raw_opts *o)
{
	struct ping_run r = { .hist = calloc(BUCKETS, sizeof(uint32_t)),
		.bucket_cycles = (double)rte_get_tsc_hz() * BUCKET_NS / 1e9 };
	uint64_t end = rte_get_tsc_cycles() +
		(uint64_t)(o->seconds * (double)rte_get_tsc_hz()), seq = 0;
	struct rtt_stats st;

	if (r.hist == NULL) {
		fprintf(stderr, "rxd-memif-raw: out of memory\n");
		return 2;
	}
	while (rte_get_tsc_cycles() < end)
		if (ping_once(p, o, &r, seq++) < 0)
			r.lost++;
	raw_end_exchange(p, seq);
	rtt_stats(&r, &st);
	ping_report(o, &r, &st);
	free(r.hist);
	return r.samples > 0 ? 0 : 1;
}
