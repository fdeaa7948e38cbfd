/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net's multicast groups, directly (one port, frames captured by the
 * tx callback): the group MAC of IPv4 and IPv6 GIDs; a join sends an
 * IGMPv3 or MLDv2 report byte by byte as RFC 3376/3810 lay it out (Router
 * Alert, TTL/hop limit 1, checksums); queries of each version are answered
 * for joined groups only, in the querier's version; a leave is reported;
 * malformed IGMP and MLD messages are counted and change nothing; a link
 * coming up reports every group again.
 */
#include <errno.h>
#include <sys/socket.h>
#include <string.h>

#include <criterion/criterion.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "rxd_bytes.h"
#include "rxd_net.h"
#include "rxd_net_priv.h"
#include "rxd_test_eal.h"

static struct rte_mempool *pool;
static struct rxd_net_port np;
static struct rte_mbuf *sent;          /* the last frame np sent */
static unsigned int n_sent;
static unsigned int n_igmp;     /* of n_sent: IPv4 protocol 2 */
static const struct rte_ether_addr mac0 = {{ 0x02, 0, 0, 0, 0, 1 }};
static const uint8_t g4[RXD_GID_LEN] = { [10] = 0xff, 0xff, 239, 129, 2, 3 };
static const uint8_t g6[RXD_GID_LEN] = { 0xff, 0x0e, [11] = 1, [13] = 2,
	[15] = 3 };

static void
capture_tx(void *ctx, struct rte_mbuf *m)
{
	(void)ctx;
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	rte_pktmbuf_free(sent);
	sent = m;
	n_sent++;
	n_igmp += f[12] == 0x08 && f[13] == 0x00 && f[14 + 9] == 2;
}

static void
start(void)
{
	struct rxd_conf c;

	cr_assert_geq(rxd_test_eal("-m 64 --no-shconf"), 0);
	pool = rte_pktmbuf_pool_create("group", 256, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	cr_assert_not_null(pool);
	rxd_conf_defaults(&c);
	c.port[0].present = true;
	c.port[0].n_addrs = 1;
	c.port[0].addrs[0] = (struct rxd_conf_addr){ .family = AF_INET,
		.prefix = 24, .addr = { 10, 0, 0, 1 } };
	rxd_net_port_init(&np, &c.port[0], &mac0, pool, capture_tx, NULL);
}

static void
stop(void)
{
	rte_pktmbuf_free(sent);
	rxd_net_port_fini(&np);
	rte_mempool_free(pool);
	rte_eal_cleanup();
}

TestSuite(net_group, .init = start, .fini = stop, .timeout = 30);

static const uint8_t *
frame(void)
{
	cr_assert_not_null(sent);
	return rte_pktmbuf_mtod(sent, const uint8_t *);
}

static uint16_t
fold(const uint8_t *p, uint32_t len)
{
	return rxd_csum_fold(rxd_csum_add(0, p, len));
}

/* Parse what was sent, as a receiver would. */
static struct rxd_pkt
parsed(void)
{
	struct rxd_pkt pkt;

	cr_assert_eq(rxd_wire_parse(frame(), rte_pktmbuf_data_len(sent),
				    &pkt, 0), RXD_WIRE_OK);
	return pkt;
}

/* Hand a frame of len bytes to lib/net as the engine does. */
static void
receive(const uint8_t *bytes, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rxd_pkt pkt;

	cr_assert_not_null(m);
	memcpy(rte_pktmbuf_append(m, len), bytes, len);
	cr_assert_eq(rxd_wire_parse(bytes, len, &pkt, 0), RXD_WIRE_OK);
	rxd_net_input(&np, m, &pkt);
}

/* Run the timer far enough ahead that every report is due. */
static void
run_timer(void)
{
	rxd_net_timer(&np, rte_rdtsc() + 60 * rte_get_tsc_hz());
}

Test(net_group, group_macs)
{
	static const uint8_t sn[RXD_GID_LEN] = { 0xff, 0x02, [11] = 1,
		0xff, 0x00, 0x12, 0x34 };
	struct rte_ether_addr m;

	rxd_net_mcast_mac(g4, &m);
	cr_assert_arr_eq(m.addr_bytes, "\x01\x00\x5e\x01\x02\x03", 6,
			 "low 23 bits: the top bit of 129 is dropped");
	rxd_net_mcast_mac(sn, &m);
	cr_assert_arr_eq(m.addr_bytes, "\x33\x33\xff\x00\x12\x34", 6);
	cr_assert_eq(rxd_net_resolve(&np, g4, &m), 0, "no ARP for a group");
	cr_assert_arr_eq(m.addr_bytes, "\x01\x00\x5e\x01\x02\x03", 6);
}

Test(net_group, igmpv3_join_report_and_leave)
{
	const uint8_t *f, *ip, *igmp;
	struct rxd_pkt pkt;

	cr_assert_eq(rxd_net_join(&np, g4), 0);
	cr_assert_eq(rxd_net_join(&np, g4), -EEXIST);
	cr_assert(rxd_net_is_member(&np, g4));
	f = frame();
	cr_assert_arr_eq(f, "\x01\x00\x5e\x00\x00\x16", 6, "to 224.0.0.22");
	cr_assert_eq(rxd_get16(f + 12), 0x0800);
	ip = f + 14;
	cr_assert_eq(ip[0], 0x46, "24-byte header");
	cr_assert_eq(ip[8], 1, "TTL 1");
	cr_assert_eq(ip[9], 2, "IGMP");
	cr_assert_arr_eq(ip + 12, "\x0a\x00\x00\x01", 4);
	cr_assert_arr_eq(ip + 16, "\xe0\x00\x00\x16", 4);
	cr_assert_arr_eq(ip + 20, "\x94\x04\x00\x00", 4, "Router Alert");
	cr_assert_eq(fold(ip, 24), 0, "IP checksum");
	igmp = ip + 24;
	cr_assert_eq(rxd_get16(ip + 2), 24 + 16);
	cr_assert_eq(igmp[0], 0x22, "IGMPv3 report");
	cr_assert_eq(rxd_get16(igmp + 6), 1, "one record");
	cr_assert_eq(igmp[8], 4, "CHANGE_TO_EXCLUDE_MODE: join");
	cr_assert_eq(rxd_get16(igmp + 10), 0, "no sources");
	cr_assert_arr_eq(igmp + 12, g4 + 12, 4);
	cr_assert_eq(fold(igmp, 16), 0, "IGMP checksum");
	pkt = parsed();
	cr_assert_eq(pkt.kind, RXD_FRAME_IGMP);

	n_sent = 0;
	run_timer();
	cr_assert_eq(n_sent, 1, "the join is repeated once");
	run_timer();
	cr_assert_eq(n_sent, 1, "and only once");

	cr_assert_eq(rxd_net_leave(&np, g4), 0);
	cr_assert_eq(frame()[14 + 24 + 8], 3, "CHANGE_TO_INCLUDE_MODE: leave");
	cr_assert_eq(rxd_net_leave(&np, g4), -ENOENT);
	cr_assert_not(rxd_net_is_member(&np, g4));
}

/* An IPv4 IGMP frame to dst with the message msg (len bytes). */
static void
igmp_frame(uint8_t *f, const uint8_t dst[4], const uint8_t *msg,
	   uint16_t len)
{
	uint8_t *ip = f + 14;

	memset(f, 0, 14 + 20);
	memcpy(f, "\x01\x00\x5e\x00\x00\x01", 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x09", 6);
	rxd_put16(f + 12, 0x0800);
	ip[0] = 0x45;
	rxd_put16(ip + 2, (uint16_t)(20 + len));
	ip[8] = 1;
	ip[9] = 2;
	memcpy(ip + 12, "\x0a\x00\x00\x09", 4);
	memcpy(ip + 16, dst, 4);
	rxd_put16(ip + 10, rxd_ipv4_csum(ip));
	memcpy(ip + 20, msg, len);
	rxd_put16(ip + 22, 0);
	rxd_put16(ip + 22, fold(ip + 20, len));
}

Test(net_group, igmp_queries_answered_in_their_version)
{
	static const uint8_t all_hosts[4] = { 224, 0, 0, 1 };
	static const uint8_t other[RXD_GID_LEN] = { [10] = 0xff, 0xff,
		239, 9, 9, 9 };
	uint8_t f[64], v2q[8] = { 0x11, 10 }, v3q[12] = { 0x11, 10 };
	uint8_t specific[8] = { 0x11, 10, 0, 0, 239, 9, 9, 9 };

	cr_assert_eq(rxd_net_join(&np, g4), 0);
	run_timer();                           /* the repeat goes */
	n_sent = 0;

	/* IGMPv3 general query: a v3 report, MODE_IS_EXCLUDE */
	igmp_frame(f, all_hosts, v3q, sizeof(v3q));
	receive(f, 14 + 20 + sizeof(v3q));
	cr_assert_eq(np.stats.group_queries, 1);
	run_timer();
	cr_assert_eq(n_sent, 1);
	cr_assert_eq(frame()[14 + 24], 0x22);
	cr_assert_eq(frame()[14 + 24 + 8], 2, "MODE_IS_EXCLUDE");

	/* IGMPv2 general query: a v2 report to the group itself */
	igmp_frame(f, all_hosts, v2q, sizeof(v2q));
	receive(f, 14 + 20 + sizeof(v2q));
	run_timer();
	cr_assert_eq(n_sent, 2);
	cr_assert_arr_eq(frame(), "\x01\x00\x5e\x01\x02\x03", 6);
	cr_assert_eq(frame()[14 + 24], 0x16, "IGMPv2 report");
	cr_assert_arr_eq(frame() + 14 + 24 + 4, g4 + 12, 4);
	cr_assert_eq(fold(frame() + 14 + 24, 8), 0);

	/* a group-specific query for a group not joined: no answer */
	igmp_frame(f, other + 12, specific, sizeof(specific));
	receive(f, 14 + 20 + sizeof(specific));
	run_timer();
	cr_assert_eq(n_sent, 2);
	cr_assert_eq(np.stats.group_queries, 3);
	cr_assert_eq(np.stats.malformed, 0);
}

Test(net_group, malformed_igmp_counted)
{
	static const uint8_t all_hosts[4] = { 224, 0, 0, 1 };
	uint8_t f[64], q10[10] = { 0x11, 10 }, short4[4] = { 0x11 };
	uint8_t unicast_group[8] = { 0x11, 10, 0, 0, 10, 0, 0, 7 };
	uint8_t report[8] = { 0x16, 0, 0, 0, 239, 1, 1, 1 };

	cr_assert_eq(rxd_net_join(&np, g4), 0);
	run_timer();
	n_sent = 0;
	igmp_frame(f, all_hosts, q10, sizeof(q10));
	receive(f, 14 + 20 + sizeof(q10));        /* 9..11 bytes: no query */
	igmp_frame(f, all_hosts, short4, sizeof(short4));
	receive(f, 14 + 20 + sizeof(short4));
	igmp_frame(f, all_hosts, unicast_group, sizeof(unicast_group));
	receive(f, 14 + 20 + sizeof(unicast_group));
	igmp_frame(f, all_hosts, unicast_group, sizeof(unicast_group));
	f[14 + 20 + 7] ^= 1;                      /* checksum now wrong */
	receive(f, 14 + 20 + sizeof(unicast_group));
	cr_assert_eq(np.stats.malformed, 4);
	cr_assert_eq(np.stats.igmp_rx, 4);
	cr_assert_eq(np.stats.group_queries, 0);
	igmp_frame(f, all_hosts, report, sizeof(report));
	receive(f, 14 + 20 + sizeof(report));
	cr_assert_eq(np.stats.group_ignored, 1, "another host's report");
	run_timer();
	cr_assert_eq(n_sent, 0, "nothing answered");
}

Test(net_group, mldv2_join_report)
{
	const uint8_t *f, *ip, *mld;
	struct rxd_pkt pkt;

	cr_assert_eq(rxd_net_join(&np, g6), 0);
	f = frame();
	cr_assert_arr_eq(f, "\x33\x33\x00\x00\x00\x16", 6, "to ff02::16");
	ip = f + 14;
	cr_assert_eq(ip[6], 0, "Hop-by-Hop first");
	cr_assert_eq(ip[7], 1, "hop limit 1");
	cr_assert_eq(ip[8], 0xfe, "from the link-local address");
	cr_assert_arr_eq(ip + 40, "\x3a\x00\x05\x02\x00\x00\x01\x00", 8,
			 "Router Alert (MLD), then ICMPv6");
	cr_assert_eq(rxd_get16(ip + 4), 8 + 28);
	mld = ip + 48;
	cr_assert_eq(mld[0], 143, "MLDv2 report");
	cr_assert_eq(rxd_get16(mld + 6), 1);
	cr_assert_eq(mld[8], 4, "CHANGE_TO_EXCLUDE_MODE");
	cr_assert_arr_eq(mld + 12, g6, 16);
	cr_assert_eq(rxd_icmp6_csum(ip, mld, 28), 0, "ICMPv6 checksum");
	pkt = parsed();
	cr_assert_eq(pkt.kind, RXD_FRAME_ICMP6, "past the Hop-by-Hop header");
	cr_assert_eq(pkt.l4_off, 14 + 48);
}

/* An MLD query (len 24: v1, 28: v2) for group (NULL: general). */
static uint16_t
mld_query(uint8_t *f, const uint8_t *group, uint16_t len)
{
	static const uint8_t all_nodes[RXD_GID_LEN] = { 0xff, 0x02,
		[15] = 1 };
	static const uint8_t src[RXD_GID_LEN] = { 0xfe, 0x80, [15] = 9 };
	uint8_t *ip = f + 14, *mld = ip + 48;

	memset(f, 0, 14 + 48 + len);
	memcpy(f, "\x33\x33\x00\x00\x00\x01", 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x09", 6);
	rxd_put16(f + 12, 0x86dd);
	rxd_ipv6_hdr(ip, src, group ? group : all_nodes,
		     (uint16_t)(8 + len), 1);
	ip[6] = 0;
	memcpy(ip + 40, "\x3a\x00\x05\x02\x00\x00\x01\x00", 8);
	mld[0] = 130;
	rxd_put16(mld + 4, 100);               /* 100 ms */
	if (group != NULL)
		memcpy(mld + 8, group, RXD_GID_LEN);
	rxd_put16(mld + 2, rxd_icmp6_csum(ip, mld, len));
	return (uint16_t)(14 + 48 + len);
}

Test(net_group, mld_queries_answered_in_their_version)
{
	uint8_t f[128];
	uint16_t len;

	cr_assert_eq(rxd_net_join(&np, g6), 0);
	run_timer();
	n_sent = 0;
	len = mld_query(f, NULL, 28);
	receive(f, len);
	cr_assert_eq(np.stats.mld_rx, 1);
	cr_assert_eq(np.stats.group_queries, 1);
	run_timer();
	cr_assert_eq(n_sent, 1);
	cr_assert_eq(frame()[14 + 48], 143);
	cr_assert_eq(frame()[14 + 48 + 8], 2, "MODE_IS_EXCLUDE");

	len = mld_query(f, g6, 24);            /* MLDv1, group-specific */
	receive(f, len);
	run_timer();
	cr_assert_eq(n_sent, 2);
	cr_assert_arr_eq(frame(), "\x33\x33\x00\x02\x00\x03", 6, "to the group");
	cr_assert_eq(frame()[14 + 48], 131, "MLDv1 report");
	cr_assert_arr_eq(frame() + 14 + 48 + 8, g6, 16);

	len = mld_query(f, NULL, 26);          /* 25..27: not a query */
	receive(f, len);
	cr_assert_eq(np.stats.malformed, 1);
	len = mld_query(f, NULL, 28);
	f[14 + 8] = 0xfd;                      /* from a global address */
	f[14 + 48 + 2] = f[14 + 48 + 3] = 0;
	rxd_put16(f + 14 + 48 + 2, rxd_icmp6_csum(f + 14, f + 14 + 48, 28));
	receive(f, len);
	cr_assert_eq(np.stats.malformed, 2, "a query not from link-local");
	cr_assert_eq(np.stats.group_queries, 2);
	run_timer();
	cr_assert_eq(n_sent, 2);
	cr_assert_eq(rxd_net_leave(&np, g6), 0);
	cr_assert_eq(frame()[14 + 48], 132, "MLDv1 done (v1 querier heard)");
	cr_assert_arr_eq(frame(), "\x33\x33\x00\x00\x00\x02", 6,
			 "to all routers");
}

Test(net_group, link_up_reports_every_group)
{
	cr_assert_eq(rxd_net_join(&np, g4), 0);
	run_timer();
	n_sent = 0;
	rxd_net_announce(&np);
	cr_assert_geq(n_sent, 2, "addresses announced, then the group");
	cr_assert_eq(frame()[14 + 24], 0x22);
	cr_assert_eq(frame()[14 + 24 + 8], 4, "reported as a join");
	n_igmp = 0;
	run_timer();       /* address conflict probes may go out as well */
	cr_assert_eq(n_igmp, 1, "and repeated once");
}
