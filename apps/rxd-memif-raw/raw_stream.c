/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-memif-raw's streaming modes: tx sends frames as fast as the port
 * takes them for --time seconds; rx counts what arrives, fwd echoes it
 * back.  At the end the sender sends RAW_END (its count) and the receiver
 * answers RAW_END_ACK (its count), so each side can report the other's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "memif_raw.h"

#define END_WAIT_S 2             /* for the peer's RAW_END_ACK */
#define RX_GRACE_S 5             /* rx: past --time, waiting for RAW_END */
#define MAX_BURST 512

static uint64_t
cycles(double seconds)
{
	return (uint64_t)(seconds * (double)rte_get_tsc_hz());
}

/* Drop whatever arrives; return how many of ours were RAW_DATA. */
static unsigned int
drain(const struct raw_port *p, struct raw_hdr *last_ctrl)
{
	struct rte_mbuf *m[64];
	struct raw_hdr h;
	unsigned int n, i, data = 0;

	n = rte_eth_rx_burst(p->id, 0, m, 64);
	for (i = 0; i < n; i++) {
		if (raw_frame_parse(m[i], &h)) {
			if (h.kind == RAW_DATA)
				data++;
			else if (last_ctrl != NULL)
				*last_ctrl = h;
		}
	}
	rte_pktmbuf_free_bulk(m, n);
	return data;
}

/* Tell the peer we are done; @return its count, or -1 without answer. */
int64_t
raw_end_exchange(const struct raw_port *p, uint64_t sent)
{
	uint64_t end = rte_get_tsc_cycles() + cycles(END_WAIT_S);
	struct raw_hdr h = { 0 };

	if (raw_send_one(p, RAW_END, 0, sent) < 0)
		return -1;
	do {
		drain(p, &h);
		if (h.kind == RAW_END_ACK)
			return (int64_t)h.value;
	} while (rte_get_tsc_cycles() < end);
	return -1;
}

/* What tx counts. */
struct tx_count {
	uint64_t frames, full, echoes;
	double seconds;
	int64_t peer_frames;    /* from RAW_END_ACK, -1 without */
};

static void
tx_report(const struct raw_opts *o, const struct tx_count *c)
{
	const struct raw_field f[] = {
		RAW_INT("size", o->size), RAW_INT("burst", o->burst),
		RAW_INT("seg", o->seg), RAW_INT("frames", c->frames),
		RAW_INT("bytes", c->frames * o->size),
		RAW_REAL("seconds", c->seconds),
		RAW_REAL("fps", c->frames / c->seconds),
		RAW_REAL("gbps", c->frames * o->size * 8.0 / c->seconds / 1e9),
		RAW_INT("tx_full", c->full), RAW_INT("echoes", c->echoes),
		RAW_INT("peer_frames", c->peer_frames),
	};

	raw_report(o, "tx", f, RTE_DIM(f));
}

/* tx: keep the queue full for --time seconds; count echoes of a fwd peer. */
int
raw_run_tx(const struct raw_port *p, const struct raw_opts *o)
{
	struct rte_mbuf *m[MAX_BURST];
	struct tx_count c = { 0 };
	uint64_t t0 = rte_get_tsc_cycles(), end = t0 + cycles(o->seconds), now;
	unsigned int n = 0, sent;

	do {
		if (n == 0)
			n = raw_frames_build(p, m, o->burst, o->size, RAW_DATA,
					     c.frames, 0);
		sent = rte_eth_tx_burst(p->id, 0, m, (uint16_t)n);
		c.frames += sent;
		c.full += sent < n;
		n -= sent;
		memmove(m, m + sent, n * sizeof(m[0]));
		c.echoes += drain(p, NULL);
		now = rte_get_tsc_cycles();
	} while (now < end);
	rte_pktmbuf_free_bulk(m, n);
	c.seconds = raw_seconds(now - t0);
	c.peer_frames = raw_end_exchange(p, c.frames);
	tx_report(o, &c);
	return c.frames > 0 ? 0 : 1;
}

/* What rx and fwd count. */
struct rx_count {
	uint64_t frames, bytes, segs, forwarded, first, last;
	int64_t peer_sent;      /* from RAW_END, -1 before */
};

/* Handle one burst; @return true once RAW_END came. */
static bool
rx_burst(const struct raw_port *p, bool fwd, struct rx_count *c)
{
	struct rte_mbuf *m[MAX_BURST], *echo[MAX_BURST];
	unsigned int n, i, ne = 0, sent;
	struct raw_hdr h;
	bool end = false;

	n = rte_eth_rx_burst(p->id, 0, m, MAX_BURST);
	if (n == 0)
		return false;
	c->last = rte_get_tsc_cycles();
	for (i = 0; i < n; i++) {
		if (!raw_frame_parse(m[i], &h)) {
			rte_pktmbuf_free(m[i]);
			continue;
		}
		if (h.kind == RAW_DATA) {
			c->first = c->frames++ == 0 ? c->last : c->first;
			c->bytes += m[i]->pkt_len;
			c->segs += m[i]->nb_segs;
		} else if (h.kind == RAW_END) {
			c->peer_sent = (int64_t)h.value;
			end = true;
		}
		if (fwd && h.kind == RAW_DATA)
			echo[ne++] = m[i];
		else
			rte_pktmbuf_free(m[i]);
	}
	sent = ne ? rte_eth_tx_burst(p->id, 0, echo, (uint16_t)ne) : 0;
	c->forwarded += sent;
	rte_pktmbuf_free_bulk(echo + sent, ne - sent);
	return end;
}

static void
rx_report(const struct raw_opts *o, const struct rx_count *c)
{
	double s = c->frames > 1 ? raw_seconds(c->last - c->first) : 0;
	double fps = s > 0 ? (double)c->frames / s : 0;
	uint64_t size = c->frames ? c->bytes / c->frames : 0;
	const struct raw_field f[] = {
		RAW_INT("size", size), RAW_INT("frames", c->frames),
		RAW_INT("bytes", c->bytes), RAW_REAL("seconds", s),
		RAW_REAL("fps", fps), RAW_REAL("gbps", fps * size * 8 / 1e9),
		RAW_REAL("segs_per_frame", c->frames ?
			 (double)c->segs / c->frames : 0),
		RAW_INT("forwarded", c->forwarded),
		RAW_INT("peer_sent", c->peer_sent),
		RAW_INT("lost", c->peer_sent < 0 ? -1 :
			c->peer_sent - (int64_t)c->frames),
	};

	raw_report(o, o->mode == RAW_FWD ? "fwd" : "rx", f, RTE_DIM(f));
	if (c->peer_sent >= 0 && c->frames > (uint64_t)c->peer_sent)
		fprintf(stderr, "rxd-memif-raw: %" PRIu64 " frames received, "
			"%" PRId64 " sent: frames longer than memif's buffer "
			"were split (DPDK 22.11); give memif a bsize of at "
			"least the frame size\n", c->frames, c->peer_sent);
}

/*
 * rx and fwd: from the link up, count (and echo) until RAW_END, or until
 * --time plus a grace period without it.  After answering RAW_END, stop
 * polling and wait for the peer to go (and for EAL's interrupt thread to
 * be done with that), so that the port is neither polled nor closed while
 * memif tears the shared memory down.
 */
int
raw_run_rx(const struct raw_port *p, const struct raw_opts *o)
{
	struct rx_count c = { .peer_sent = -1 };
	uint64_t end = rte_get_tsc_cycles() + cycles(o->seconds + RX_GRACE_S);
	bool got_end = false;

	while (!got_end && rte_get_tsc_cycles() < end)
		got_end = rx_burst(p, o->mode == RAW_FWD, &c);
	if (got_end && raw_send_one(p, RAW_END_ACK, 0, c.frames) == 0 &&
	    raw_port_wait_link(p, END_WAIT_S, false) == 0)
		raw_intr_sync();
	rx_report(o, &c);
	return c.frames > 0 ? 0 : 1;
}
