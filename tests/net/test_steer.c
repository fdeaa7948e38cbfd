/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pure parts of steering (pmd_glue/rxd_steer_hash.c, rxd_steer.c):
 * the software Toeplitz hash against the verification values Microsoft
 * publishes for RSS (with the key rxd programs, which is that suite's),
 * for IPv4 and IPv6, addresses only and with ports; the RETA entry a
 * flow takes under the hash types RSS runs with; and which ports get
 * lanes (N x N queue pairs).
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <rte_ethdev.h>

#include "rxd_steer.h"

/* One verification row: source and destination, the two hashes. */
struct vector {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t hash_ip, hash_ip_ports;
};

#define V4(a, b, c, d) { [10] = 0xff, [11] = 0xff, a, b, c, d }

static const struct vector v4_rows[] = {
	{ V4(66, 9, 149, 187), V4(161, 142, 100, 80), 2794, 1766,
	  0x323e8fc2, 0x51ccc178 },
	{ V4(199, 92, 111, 2), V4(65, 69, 140, 83), 14230, 4739,
	  0xd718262a, 0xc626b0ea },
	{ V4(24, 19, 198, 95), V4(12, 22, 207, 184), 12898, 38024,
	  0xd2d0a5de, 0x5c2b394a },
	{ V4(38, 27, 205, 30), V4(209, 142, 163, 6), 48228, 2217,
	  0x82989176, 0xafc7327f },
	{ V4(153, 39, 163, 191), V4(202, 188, 127, 2), 44251, 1303,
	  0x5d1809c5, 0x10e828a2 },
};

static const struct vector v6_rows[] = {
	{ { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff,
	    0, 0, 0, 0, 0, 0, 0, 0x07 },
	  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03,
	    0, 0, 0, 0, 0, 0, 0, 0x01 }, 2794, 1766,
	  0x2cc18cd5, 0x40207d3d },
};

static struct rxd_steer_flow
flow_of(const struct vector *v)
{
	struct rxd_steer_flow f;

	memset(&f, 0, sizeof(f));
	memcpy(f.src, v->src, 16);
	memcpy(f.dst, v->dst, 16);
	f.sport = v->sport;
	f.dport = v->dport;
	return f;
}

static void
check_rows(const struct vector *rows, size_t n, bool v4)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct rxd_steer_flow f = flow_of(&rows[i]);

		cr_assert_eq(rxd_steer_flow_is_v4(&f), v4);
		cr_expect_eq(rxd_steer_hash(rxd_steer_key, &f, false),
			     rows[i].hash_ip, "row %zu: 0x%08x, not 0x%08x",
			     i, rxd_steer_hash(rxd_steer_key, &f, false),
			     rows[i].hash_ip);
		cr_expect_eq(rxd_steer_hash(rxd_steer_key, &f, true),
			     rows[i].hash_ip_ports,
			     "row %zu: 0x%08x, not 0x%08x", i,
			     rxd_steer_hash(rxd_steer_key, &f, true),
			     rows[i].hash_ip_ports);
	}
}

Test(steer, toeplitz_ipv4)
{
	check_rows(v4_rows, RTE_DIM(v4_rows), true);
}

Test(steer, toeplitz_ipv6)
{
	check_rows(v6_rows, RTE_DIM(v6_rows), false);
}

/* The entry is the hash modulo the table, over what RSS hashes. */
Test(steer, reta_entry_follows_hash_types)
{
	struct rxd_steer s;
	struct rxd_steer_flow f = flow_of(&v4_rows[0]);
	uint16_t entry = UINT16_MAX;

	memset(&s, 0, sizeof(s));
	s.reta_size = 128;
	s.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	cr_assert(rxd_steer_reta_entry(&s, &f, &entry));
	cr_expect_eq(entry, v4_rows[0].hash_ip_ports % 128);
	s.rss_hf = RTE_ETH_RSS_IPV4;            /* addresses only */
	cr_assert(rxd_steer_reta_entry(&s, &f, &entry));
	cr_expect_eq(entry, v4_rows[0].hash_ip % 128);
	s.rss_hf = RTE_ETH_RSS_NONFRAG_IPV6_UDP; /* nothing of IPv4 */
	cr_expect_not(rxd_steer_reta_entry(&s, &f, &entry));
	f = flow_of(&v6_rows[0]);
	s.reta_size = 64;
	cr_assert(rxd_steer_reta_entry(&s, &f, &entry));
	cr_expect_eq(entry, v6_rows[0].hash_ip_ports % 64);
}

Test(steer, mode_names)
{
	cr_expect_str_eq(rxd_steer_mode_name(RXD_STEER_NONE), "none");
	cr_expect_str_eq(rxd_steer_mode_name(RXD_STEER_RETA), "reta");
	cr_expect_str_eq(rxd_steer_mode_name(RXD_STEER_FLOW), "flow");
	cr_expect_str_eq(rxd_steer_mode_name(RXD_STEER_LANES), "lanes");
}

/* The lanes rxd_steer_init() gives n engines on a driver with max queue
 * pairs under RXD_STEERING=mode (NULL: unset); 0 when it refuses. */
static uint16_t
lanes(const char *driver, uint16_t n, uint16_t max, const char *mode)
{
	struct rte_eth_dev_info info = { .driver_name = driver };
	struct rxd_steer s;
	char err[128];

	if (mode != NULL)
		setenv("RXD_STEERING", mode, 1);
	else
		unsetenv("RXD_STEERING");
	if (rxd_steer_init(&s, &info, n, max, err, sizeof(err)) != 0)
		return 0;
	return s.lanes;
}

Test(steer, lanes_where_queue_q_reaches_queue_q)
{
	cr_expect_eq(lanes("net_memif", 2, 64, NULL), 2);
	cr_expect_eq(lanes("net_memif", 8, 64, "auto"), 8);
	cr_expect_eq(lanes("net_ring", 2, 4, "lanes"), 2);
	cr_expect_eq(lanes("net_ring", 3, 4, NULL), 1, "9 queues of 4");
	cr_expect_eq(lanes("net_memif", 1, 64, NULL), 1);
	cr_expect_eq(lanes("net_memif", 2, 64, "none"), 1);
	cr_expect_eq(lanes("net_memif", 2, 64, "flow"), 1);
	cr_expect_eq(lanes("net_af_packet", 2, 8, NULL), 1);
	cr_expect_eq(lanes("net_virtio", 2, 64, "lanes"), 1);
	cr_expect_eq(lanes("net_memif", 2, 64, "lane"), 0);
}
