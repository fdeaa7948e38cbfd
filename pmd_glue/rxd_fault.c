/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection (see rxd_fault.h).  The BTH opcode filter parses the frame
 * with the wire codec; everything else treats frames as opaque bytes.
 */
#include <string.h>

#include <rte_cycles.h>

#include "rxd_fault.h"
#include "rxd_wire.h"

static uint64_t
rng_next(struct rxd_fault *f)
{
	/* xorshift64*: small, fast, good enough for fault patterns */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 0x2545f4914f6cdd1dull;
}

static bool
chance(struct rxd_fault *f, double p)
{
	if (p <= 0.0)
		return false;
	return (double)(rng_next(f) >> 11) * 0x1.0p-53 < p;
}

void
rxd_fault_configure(struct rxd_fault *f, const struct rxd_conf_fault *c,
		    uint64_t seed)
{
	f->conf = *c;
	f->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
	f->active = c->drop > 0 || c->dup > 0 || c->reorder > 0 ||
		c->corrupt > 0 || c->cut || c->drop_opcode >= 0;
	if (f->conf.reorder_depth == 0)
		f->conf.reorder_depth = 1;
	if (f->conf.reorder_depth > RXD_FAULT_MAX_HELD)
		f->conf.reorder_depth = RXD_FAULT_MAX_HELD;
}

/* Parse a frame's headers; false if it is not a RoCEv2 frame. */
static bool
roce_parse(const struct rte_mbuf *m, struct rxd_pkt *pkt)
{
	return rxd_wire_parse(rte_pktmbuf_mtod(m, const uint8_t *),
			      rte_pktmbuf_data_len(m), pkt,
			      RXD_PARSE_NO_ICRC | RXD_PARSE_NO_CSUM) ==
		RXD_WIRE_OK && pkt->kind == RXD_FRAME_ROCE;
}

static bool
opcode_matches(const struct rte_mbuf *m, int opcode)
{
	struct rxd_pkt pkt;

	return opcode >= 0 && roce_parse(m, &pkt) && pkt.opcode == opcode;
}

/* With only_qpn set, frames for other destinations are not faulted. */
static bool
spared(const struct rxd_fault *f, const struct rte_mbuf *m)
{
	struct rxd_pkt pkt;

	return f->conf.only_qpn != 0 &&
		!(roce_parse(m, &pkt) && pkt.dqpn == f->conf.only_qpn);
}

static void
corrupt(struct rxd_fault *f, struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_data_len(m);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t at;

	if (len <= RXD_ETH_HLEN)
		return;
	at = RXD_ETH_HLEN + (uint32_t)(rng_next(f) % (len - RXD_ETH_HLEN));
	p[at] ^= (uint8_t)(1u << (rng_next(f) & 7));
	/* what the NIC checked is no longer what the frame holds */
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK |
			 RTE_MBUF_F_RX_L4_CKSUM_MASK);
}

/* Age held frames by one; emit those that waited reorder_depth frames. */
static uint16_t
age_held(struct rxd_fault *f, struct rte_mbuf **out, uint16_t n, uint16_t cap)
{
	uint16_t i, kept = 0;

	for (i = 0; i < f->n_held; i++) {
		if (++f->held_age[i] >= f->conf.reorder_depth && n < cap) {
			out[n++] = f->held[i];
			continue;
		}
		f->held[kept] = f->held[i];
		f->held_age[kept++] = f->held_age[i];
	}
	f->n_held = kept;
	return n;
}

static bool
dropped(struct rxd_fault *f, struct rte_mbuf *m)
{
	if (f->conf.cut) {
		f->stats.cut++;
		return true;
	}
	if (opcode_matches(m, f->conf.drop_opcode)) {
		f->stats.opcode_dropped++;
		return true;
	}
	if (chance(f, f->conf.drop)) {
		f->stats.dropped++;
		return true;
	}
	return false;
}

uint16_t
rxd_fault_apply(struct rxd_fault *f, struct rte_mbuf **pkts, uint16_t n,
		uint16_t cap, struct rte_mempool *dup_pool)
{
	struct rte_mbuf *in[n ? n : 1];
	struct rte_mbuf *copy;
	uint16_t i, out = 0;

	if (!f->active || n == 0)
		return n;
	memcpy(in, pkts, sizeof(in));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = in[i];

		f->stats.seen++;
		out = age_held(f, pkts, out, cap);
		if (out < cap && spared(f, m)) {
			pkts[out++] = m;
			continue;
		}
		if (dropped(f, m) || out >= cap) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (chance(f, f->conf.corrupt)) {
			corrupt(f, m);
			f->stats.corrupted++;
		}
		if (chance(f, f->conf.reorder) &&
		    f->n_held < f->conf.reorder_depth) {
			if (f->n_held == 0)
				f->held_tsc = rte_rdtsc();
			f->held_age[f->n_held] = 0;
			f->held[f->n_held++] = m;
			f->stats.reordered++;
			continue;
		}
		pkts[out++] = m;
		if (chance(f, f->conf.dup) && out < cap &&
		    (copy = rte_pktmbuf_copy(m, dup_pool, 0, UINT32_MAX))) {
			pkts[out++] = copy;
			f->stats.duplicated++;
		}
	}
	return out;
}

uint16_t
rxd_fault_release(struct rxd_fault *f, struct rte_mbuf **pkts, uint16_t cap,
		  uint64_t now, uint64_t max_tsc)
{
	uint16_t i, n = 0;

	/* now may be a pass's clock read before the frames were held */
	if (f->n_held == 0 || now <= f->held_tsc ||
	    now - f->held_tsc < max_tsc)
		return 0;
	for (i = 0; i < f->n_held && n < cap; i++)
		pkts[n++] = f->held[i];
	memmove(f->held, f->held + n, (f->n_held - n) * sizeof(f->held[0]));
	memmove(f->held_age, f->held_age + n,
		(f->n_held - n) * sizeof(f->held_age[0]));
	f->n_held = (uint16_t)(f->n_held - n);
	f->held_tsc = now;
	return n;
}

void
rxd_fault_reset(struct rxd_fault *f)
{
	uint16_t i;

	for (i = 0; i < f->n_held; i++)
		rte_pktmbuf_free(f->held[i]);
	f->n_held = 0;
}
