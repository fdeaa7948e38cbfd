/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The software Toeplitz hash of a RoCEv2 flow (see rxd_steer_hash.h).
 * RSS reads its input as big-endian 32-bit words (addresses, then source
 * and destination port); rte_softrss() takes them in CPU order.
 */
#include <string.h>

#include <rte_common.h>
#include <rte_thash.h>

#include "rxd_steer_hash.h"

/* Any key works; this one spreads IPv4 and IPv6 flows well (it is the
 * one Microsoft's RSS verification suite uses). */
const uint8_t rxd_steer_key[RXD_STEER_KEY_LEN] __rte_aligned(4) = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static const uint8_t v4_mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

bool
rxd_steer_flow_is_v4(const struct rxd_steer_flow *f)
{
	return memcmp(f->src, v4_mapped, sizeof(v4_mapped)) == 0 &&
		memcmp(f->dst, v4_mapped, sizeof(v4_mapped)) == 0;
}

static uint32_t
be_word(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
		(uint32_t)b[2] << 8 | b[3];
}

/* The words of an address: the last one of IPv4, all four of IPv6. */
static uint32_t
put_addr(uint32_t *w, const uint8_t gid[16], bool v4)
{
	uint32_t i, n = v4 ? 1 : 4;

	for (i = 0; i < n; i++)
		w[i] = be_word(gid + 16 - 4 * (n - i));
	return n;
}

uint32_t
rxd_steer_hash(const uint8_t *key, const struct rxd_steer_flow *f, bool l4)
{
	uint32_t w[9];
	uint32_t n = 0;
	bool v4 = rxd_steer_flow_is_v4(f);

	n += put_addr(w + n, f->src, v4);
	n += put_addr(w + n, f->dst, v4);
	if (l4)
		w[n++] = (uint32_t)f->sport << 16 | f->dport;
	return rte_softrss(w, n, key);
}
