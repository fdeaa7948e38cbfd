/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-memif-raw's frames: an Ethernet header (broadcast, EtherType
 * RAW_ETHERTYPE), struct raw_hdr, then whatever the mbuf held; a frame
 * longer than the pool's data room is a chain of mbufs.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "memif_raw.h"

/* Extend head to size bytes with more segments. */
static int
add_segments(const struct raw_port *p, struct rte_mbuf *head, uint32_t size)
{
	struct rte_mbuf *seg;
	uint32_t left = size - head->data_len, len;

	while (left > 0) {
		seg = rte_pktmbuf_alloc(p->pool);
		if (seg == NULL)
			return -1;
		len = left < p->seg ? left : p->seg;
		seg->data_len = (uint16_t)len;
		seg->pkt_len = len;
		if (rte_pktmbuf_chain(head, seg) != 0) {
			rte_pktmbuf_free(seg);
			return -1;
		}
		left -= len;
	}
	return 0;
}

static void
write_headers(const struct raw_port *p, struct rte_mbuf *m,
	      enum raw_kind kind, uint64_t seq, uint64_t value)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct raw_hdr h = { .magic = RAW_MAGIC, .kind = (uint16_t)kind,
		.seq = seq, .value = value };

	memset(&eth->dst_addr, 0xff, sizeof(eth->dst_addr));
	rte_ether_addr_copy(&p->mac, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RAW_ETHERTYPE);
	memcpy(eth + 1, &h, sizeof(h));
}

/*
 * Build n frames of size bytes, numbered from seq, into m.
 * @return how many were built (fewer when the pool runs dry).
 */
unsigned int
raw_frames_build(const struct raw_port *p, struct rte_mbuf **m,
		 unsigned int n, uint32_t size, enum raw_kind kind,
		 uint64_t seq, uint64_t value)
{
	uint16_t first = (uint16_t)(size < p->seg ? size : p->seg);
	unsigned int i;

	if (rte_pktmbuf_alloc_bulk(p->pool, m, n) != 0)
		return 0;
	for (i = 0; i < n; i++) {
		m[i]->data_len = first;
		m[i]->pkt_len = first;
		write_headers(p, m[i], kind, seq + i, value);
		if (size > first && add_segments(p, m[i], size) < 0)
			break;
	}
	if (i < n)
		rte_pktmbuf_free_bulk(m + i, n - i);
	return i;
}

/* Read the header of a received frame; false if it is not ours. */
bool
raw_frame_parse(const struct rte_mbuf *m, struct raw_hdr *h)
{
	uint8_t copy[RAW_HDR_LEN];
	const uint8_t *b = rte_pktmbuf_read(m, 0, RAW_HDR_LEN, copy);
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)b;

	if (b == NULL ||
	    eth->ether_type != rte_cpu_to_be_16(RAW_ETHERTYPE))
		return false;
	memcpy(h, b + RTE_ETHER_HDR_LEN, sizeof(*h));
	return h->magic == RAW_MAGIC;
}

/* Send one minimum-size frame, retrying for up to a second. */
int
raw_send_one(const struct raw_port *p, enum raw_kind kind, uint64_t seq,
	     uint64_t value)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz();
	struct rte_mbuf *m;

	if (raw_frames_build(p, &m, 1, RAW_MIN_FRAME, kind, seq, value) != 1)
		return -1;
	do {
		if (rte_eth_tx_burst(p->id, 0, &m, 1) == 1)
			return 0;
	} while (rte_get_tsc_cycles() < end);
	rte_pktmbuf_free(m);
	return -1;
}
