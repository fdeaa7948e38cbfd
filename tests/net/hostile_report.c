/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostile-peer's report of its own rxd (see hostile_report.h): one table
 * of the counters it prints and of the two sums that account for every
 * frame received.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_malloc.h>

#include "hostile_report.h"

#define PC(f) { #f, offsetof(struct rxd_port_counters, f) }

struct counter {
	const char *name;
	size_t off;
};

/* What became of each frame received: rx_pkts is the sum of these ... */
static const struct counter frame_fates[] = {
	PC(roce_rx), PC(roce_not_local), PC(roce_unknown_qp),
	PC(roce_bad_peer), PC(roce_bad_cnp), PC(other_dropped), PC(arp_rx), PC(icmp_rx),
	PC(icmp6_rx), PC(roce_mcast_no_member), PC(igmp_rx),
};

/* ... less net_other_dropped (in other_dropped, and a fate of the next
 * sum's), plus the wire errors; arp_rx + icmp_rx + icmp6_rx is this sum. */
static const struct counter net_fates[] = {
	PC(arp_answered), PC(nd_answered), PC(echo_answered),
	PC(echo_replies), PC(neigh_confirmed), PC(neigh_ignored),
	PC(not_for_us), PC(net_other_dropped), PC(malformed),
	PC(reply_failed), PC(group_queries), PC(group_ignored),
	PC(arp_conflicts),
};

static const struct counter others[] = {
	PC(rx_pkts), PC(tx_pkts), PC(tx_full), PC(qkey_viol), PC(nd_rx),
	PC(arp_tx), PC(nd_tx), PC(neigh_evicted), PC(resolve_failed),
	PC(held_dropped), PC(no_route), PC(mbufs_in_use),
};

static uint64_t
get(const struct rxd_port_counters *c, const struct counter *k)
{
	uint64_t v;

	memcpy(&v, (const char *)c + k->off, sizeof(v));
	return v;
}

static uint64_t
sum(const struct rxd_port_counters *c, const struct counter *k, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += get(c, &k[i]);
	return s;
}

static void
print_table(const char *tag, const struct rxd_port_counters *c,
	    const struct counter *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%s %s %lu\n", tag, k[i].name,
		       (unsigned long)get(c, &k[i]));
}

static void
print_all(const char *tag, const struct rxd_port_counters *c)
{
	unsigned int i;

	print_table(tag, c, frame_fates, RTE_DIM(frame_fates));
	print_table(tag, c, net_fates, RTE_DIM(net_fates));
	print_table(tag, c, others, RTE_DIM(others));
	for (i = 0; i < RTE_DIM(c->wire_err); i++)
		if (c->wire_err[i] != 0)
			printf("%s wire_%u %lu (%s)\n", tag, i,
			       (unsigned long)c->wire_err[i],
			       rxd_wire_err_name(i));
	fflush(stdout);
}

static size_t
heap_size(void)
{
	struct rte_malloc_socket_stats st;

	if (rte_malloc_get_socket_stats(0, &st) != 0)
		return 0;
	return st.heap_allocsz_bytes;
}

void
hostile_base_take(struct hostile_base *b)
{
	rxd_port_counters(0, &b->c);
	b->heap = heap_size();
	print_all("base", &b->c);
}

static int
check_accounting(const char *role, const struct rxd_port_counters *c)
{
	uint64_t wire = 0, fates, net;
	unsigned int i;
	int bad = 0;

	for (i = 0; i < RTE_DIM(c->wire_err); i++)
		wire += c->wire_err[i];
	fates = sum(c, frame_fates, RTE_DIM(frame_fates)) -
		c->net_other_dropped + wire;
	net = c->arp_rx + c->icmp_rx + c->icmp6_rx + c->igmp_rx;
	printf("%s: %lu frames received, %lu accounted for; %lu ARP/ICMP, "
	       "%lu accounted for\n", role, (unsigned long)c->rx_pkts,
	       (unsigned long)fates, (unsigned long)net,
	       (unsigned long)sum(c, net_fates, RTE_DIM(net_fates)));
	if (fates != c->rx_pkts) {
		printf("FAIL: %s: frames received %lu, counted by fate %lu\n",
		       role, (unsigned long)c->rx_pkts, (unsigned long)fates);
		bad++;
	}
	if (net != sum(c, net_fates, RTE_DIM(net_fates))) {
		printf("FAIL: %s: ARP/ICMP frames not accounted for\n", role);
		bad++;
	}
	return bad;
}

static void
print_neighbours(void)
{
	struct rxd_neigh_info n[64];
	char ip[INET6_ADDRSTRLEN];
	int i, k = rxd_neigh_list(0, n, 64);

	for (i = 0; i < k; i++) {
		if (memcmp(n[i].ip, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0)
			inet_ntop(AF_INET, n[i].ip + 12, ip, sizeof(ip));
		else
			inet_ntop(AF_INET6, n[i].ip, ip, sizeof(ip));
		printf("neigh %s %02x:%02x:%02x:%02x:%02x:%02x %s\n", ip,
		       n[i].mac[0], n[i].mac[1], n[i].mac[2], n[i].mac[3],
		       n[i].mac[4], n[i].mac[5], n[i].state);
	}
}

/* Frames held for peers that never answer are dropped within the
 * resolver's retries (5 x 500 ms): wait that long for mbufs to return. */
static uint64_t
settled_mbufs(uint64_t level, struct rxd_port_counters *c)
{
	int i;

	for (i = 0; i < 40; i++) {
		rxd_port_counters(0, c);
		if (c->mbufs_in_use <= level)
			break;
		usleep(100000);
	}
	return c->mbufs_in_use;
}

int
hostile_report(const char *role, const struct hostile_base *b)
{
	struct rxd_port_counters c;
	uint64_t mbufs = settled_mbufs(b->c.mbufs_in_use, &c);
	size_t heap = heap_size();
	int bad = check_accounting(role, &c);

	print_all("end", &c);
	print_neighbours();
	printf("%s: mbufs in use %lu (before %lu), heap %zu (before %zu)\n",
	       role, (unsigned long)mbufs, (unsigned long)b->c.mbufs_in_use,
	       heap, b->heap);
	if (mbufs > b->c.mbufs_in_use) {
		printf("FAIL: %s: %lu mbufs more in use than before\n", role,
		       (unsigned long)(mbufs - b->c.mbufs_in_use));
		bad++;
	}
	if (heap > b->heap) {
		printf("FAIL: %s: DPDK's heap grew by %zu bytes\n", role,
		       heap - b->heap);
		bad++;
	}
	fflush(stdout);
	return bad;
}
