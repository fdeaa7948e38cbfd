/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host networking in one process: two rxd ports joined by a net_ring pair
 * (10.0.0.1 + fd00::1 and 10.0.0.2 + fd00::2) served by one engine lcore,
 * or inline by the test thread.  Each Criterion test runs in its own
 * process with its own EAL.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "rxd/rxd.h"
#include "rxd_port.h"
#include "rxd_test_eal.h"

static void
start(const char *lcores)
{
	uint16_t a, b;

	cr_assert_geq(rxd_test_eal("-l %s -m 256 --no-shconf", lcores), 0,
		      "EAL init");
	cr_assert_eq(rxd_port_ring_pair("ringA", "ringB", 0, &a, &b), 0);
	cr_assert_eq(rxd_test_rxd("--ip 0:10.0.0.1/24 --ip 0:fd00::1/64 "
		"--ip 1:10.0.0.2/24 --ip 1:fd00::2/64"), 0, "rxd_start: %s",
		rxd_last_error());
	cr_assert_eq(rxd_port_count(), 2);
}

static void
start_engine(void)
{
	start("0-1");
}

static void
start_inline(void)
{
	start("0");
}

static void
stop(void)
{
	rxd_stop();
	rte_eal_cleanup();
}

static void
gid_of(const char *s, uint8_t gid[16])
{
	uint8_t v4[4];

	if (inet_pton(AF_INET, s, v4) == 1) {
		memset(gid, 0, 16);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, v4, 4);
	} else {
		cr_assert_eq(inet_pton(AF_INET6, s, gid), 1);
	}
}

static void
counters(unsigned int port, struct rxd_port_counters *c)
{
	cr_assert_eq(rxd_port_counters(port, c), 0);
}

TestSuite(net_ring, .init = start_engine, .fini = stop, .timeout = 60);
TestSuite(net_inline, .init = start_inline, .fini = stop, .timeout = 60);

Test(net_ring, gid_table)
{
	struct rxd_port_info info;
	uint8_t gid[16], want[16];

	cr_assert_eq(rxd_port_info(0, &info), 0);
	cr_assert_eq(info.n_gids, 3);
	cr_assert_eq(rxd_query_gid(0, 0, gid), 0);
	memset(want, 0, 16);
	want[0] = 0xfe;
	want[1] = 0x80;
	want[8] = info.mac[0] ^ 2;
	want[9] = info.mac[1];
	want[10] = info.mac[2];
	want[11] = 0xff;
	want[12] = 0xfe;
	memcpy(want + 13, info.mac + 3, 3);
	cr_assert_arr_eq(gid, want, 16, "GID 0 is the EUI-64 link-local");
	cr_assert_eq(rxd_query_gid(0, 1, gid), 0);
	gid_of("10.0.0.1", want);
	cr_assert_arr_eq(gid, want, 16, "GID 1 is ::ffff:10.0.0.1");
	cr_assert_eq(rxd_query_gid(0, 2, gid), 0);
	gid_of("fd00::1", want);
	cr_assert_arr_eq(gid, want, 16, "GID 2 is fd00::1");
	cr_assert_eq(rxd_query_gid(0, 3, gid), -1);
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(rxd_query_gid(7, 0, gid), -1);
	cr_assert_eq(errno, ENODEV);
	cr_assert_eq(info.ib_mtu, 1024, "1500-byte MTU gives IB MTU 1024");
}

static void
check_resolve(const char *addr)
{
	struct rxd_port_info peer;
	uint8_t gid[16], mac[6];

	gid_of(addr, gid);
	cr_assert_eq(rxd_resolve(0, gid, mac, 5000), 0, "resolve %s: %s",
		     addr, rxd_last_error());
	cr_assert_eq(rxd_port_info(1, &peer), 0);
	cr_assert_arr_eq(mac, peer.mac, 6);
}

Test(net_ring, resolve_arp)
{
	struct rxd_port_counters c;

	check_resolve("10.0.0.2");
	counters(1, &c);
	cr_assert_geq(c.arp_rx, 1);
}

Test(net_ring, resolve_nd)
{
	struct rxd_port_counters c;

	check_resolve("fd00::2");
	counters(1, &c);
	cr_assert_geq(c.nd_rx, 1);
}

static void
check_ping(const char *addr, unsigned int n)
{
	struct rxd_port_counters before, after;
	uint8_t gid[16];

	gid_of(addr, gid);
	counters(1, &before);
	cr_assert_eq(rxd_ping(0, gid, n, 5000), (int)n, "ping %s", addr);
	counters(1, &after);
	cr_assert_eq(after.echo_answered - before.echo_answered, n);
}

Test(net_ring, ping_ipv4)
{
	check_ping("10.0.0.2", 5);
}

Test(net_ring, ping_ipv6)
{
	check_ping("fd00::2", 5);
}

Test(net_ring, ping_link_local_needs_no_nd)
{
	struct rxd_port_counters before, after;
	uint8_t gid[16];

	cr_assert_eq(rxd_query_gid(1, 0, gid), 0);
	counters(0, &before);
	cr_assert_eq(rxd_ping(0, gid, 3, 5000), 3);
	counters(0, &after);
	cr_assert_eq(after.nd_tx, before.nd_tx, "EUI-64 GIDs map to MACs");
}

Test(net_ring, arp_survives_10pct_drop)
{
	struct rxd_conf_fault f = { .drop = 0.10, .drop_opcode = -1 };
	struct rxd_port_counters c0, c1;
	uint8_t gid[16];
	int got;

	cr_assert_eq(rxd_fault_set(0, RXD_DIR_RX, &f, 7), 0);
	cr_assert_eq(rxd_fault_set(1, RXD_DIR_RX, &f, 11), 0);
	check_resolve("10.0.0.2");
	gid_of("10.0.0.2", gid);
	got = rxd_ping(0, gid, 100, 5000);
	counters(0, &c0);
	counters(1, &c1);
	cr_assert_gt(c0.fault_rx_dropped + c1.fault_rx_dropped, 0);
	cr_assert(got > 60 && got < 100, "%d of 100 replies at 10%% drop",
		  got);
}

/* only_qpn: a cut that applies to CM MADs only lets ARP and ICMP through. */
Test(net_ring, faults_for_one_qp_spare_other_frames)
{
	struct rxd_conf_fault f = { .cut = true, .drop_opcode = -1,
				    .only_qpn = 1 };
	struct rxd_port_counters c0, c1;
	uint8_t gid[16];

	cr_assert_eq(rxd_fault_set(0, RXD_DIR_RX, &f, 7), 0);
	cr_assert_eq(rxd_fault_set(1, RXD_DIR_RX, &f, 11), 0);
	check_resolve("10.0.0.2");
	gid_of("10.0.0.2", gid);
	cr_assert_eq(rxd_ping(0, gid, 3, 5000), 3);
	counters(0, &c0);
	counters(1, &c1);
	cr_assert_eq(c0.fault_rx_cut + c1.fault_rx_cut, 0);
}

Test(net_ring, fault_for_a_qpn_above_24_bits_is_refused)
{
	struct rxd_conf_fault f = { .drop = 0.5, .drop_opcode = -1,
				    .only_qpn = 0x1000000 };

	cr_assert_eq(rxd_fault_set(0, RXD_DIR_RX, &f, 7), -1);
	cr_assert_eq(errno, EINVAL);
	cr_assert_not_null(strstr(rxd_last_error(), "only_qpn"));
	check_resolve("10.0.0.2");     /* nothing was applied: no loss */
}

Test(net_ring, unreachable_neighbour_fails)
{
	struct rxd_port_counters c;
	uint8_t gid[16], mac[6];
	uint64_t t0 = rte_get_tsc_cycles();

	gid_of("10.0.0.77", gid);
	cr_assert_eq(rxd_resolve(0, gid, mac, 10000), -1);
	cr_assert_eq(errno, EHOSTUNREACH);
	cr_assert_geq(rte_get_tsc_cycles() - t0, rte_get_tsc_hz() * 2,
		      "gave up only after its retries");
	counters(0, &c);
	cr_assert_eq(c.resolve_failed, 1);
	cr_assert_geq(c.arp_tx, 5, "one request per try");
}

Test(net_ring, no_route_without_gateway)
{
	struct rxd_port_counters c;
	uint8_t gid[16], mac[6];

	gid_of("192.168.7.7", gid);
	cr_assert_eq(rxd_resolve(0, gid, mac, 1000), -1);
	cr_assert_eq(errno, EHOSTUNREACH);
	counters(0, &c);
	cr_assert_geq(c.no_route, 1);
}

Test(net_ring, capture_opens_in_tshark)
{
	char path[] = "/tmp/rxd-cap-XXXXXX", cmd[256];
	struct rxd_port_counters c;
	uint8_t gid[16];
	int fd = mkstemp(path);
	FILE *out;
	char line[512];
	int arp = 0, icmp = 0;

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(rxd_capture_start(0, path), 0, "%s", rxd_last_error());
	gid_of("10.0.0.2", gid);
	cr_assert_eq(rxd_ping(0, gid, 2, 5000), 2);
	counters(0, &c);
	cr_assert_geq(c.capture_written, 6, "ARP x2 + echo x4 at least");
	cr_assert_eq(rxd_capture_stop(0), 0);
	snprintf(cmd, sizeof(cmd), "tshark -r %s 2>&1", path);
	out = popen(cmd, "r");
	cr_assert_not_null(out);
	while (fgets(line, sizeof(line), out) != NULL) {
		arp += strstr(line, "ARP") != NULL;
		icmp += strstr(line, "Echo (ping)") != NULL;
	}
	cr_assert_eq(pclose(out), 0, "tshark reads %s", path);
	cr_assert_geq(arp, 2);
	cr_assert_eq(icmp, 4);
	unlink(path);
}

Test(net_inline, resolve_and_ping_inline)
{
	check_resolve("10.0.0.2");
	check_ping("fd00::2", 3);
}

/*
 * Port 0 with two receive queues; every frame port 1 sends lands on port
 * 0's queue 1 (as RSS may put a flow on any queue): the engine must poll
 * them all.
 */
static void
start_two_rx_queues(void)
{
	struct rte_ring *idle, *ab, *ba;

	cr_assert_geq(rxd_test_eal("-l 0-1 -m 256 --no-shconf"), 0,
		      "EAL init");
	idle = rte_ring_create("rq_idle", 1024, 0, 0);
	ab = rte_ring_create("rq_ab", 1024, 0, 0);
	ba = rte_ring_create("rq_ba", 1024, 0, 0);
	cr_assert(idle != NULL && ab != NULL && ba != NULL);
	cr_assert_geq(rte_eth_from_rings("rqA", (struct rte_ring *[]){ idle, ba },
					 2, &ab, 1, 0), 0);
	cr_assert_geq(rte_eth_from_rings("rqB", &ab, 1, &ba, 1, 0), 0);
	cr_assert_eq(rxd_test_rxd("--ip 0:10.0.0.1/24 --ip 1:10.0.0.2/24 "
		"--set port0.rx_queues=2"), 0, "rxd_start: %s",
		rxd_last_error());
}

TestSuite(net_rx_queues, .init = start_two_rx_queues, .fini = stop,
	  .timeout = 60);

Test(net_rx_queues, frames_on_any_receive_queue_are_served)
{
	struct rxd_port_info info;

	cr_assert_eq(rxd_port_info(0, &info), 0);
	cr_assert_eq(info.rx_queues, 2);
	check_ping("10.0.0.2", 3);
}
