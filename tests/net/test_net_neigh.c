/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net's neighbour cache, directly (one port, frames captured by the tx
 * callback).  What ARP and ND may teach it: a request for us teaches the
 * sender, a reply or advertisement only updates a peer it has, an unknown
 * opcode nothing; a solicited advertisement without a link-layer option
 * confirms a probed peer; learnt entries give way to peers rxd needs in a
 * full table, needed ones never do.  And rxd_net_output() with a connected
 * QP's hint: the peer's MAC is noted on the first frame and used without
 * lookups while the table has not changed; a new MAC for the peer, or the
 * peer failing, makes the hint stale.
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
static const struct rte_ether_addr mac0 = {{ 0x02, 0, 0, 0, 0, 1 }},
	mac1 = {{ 0x02, 0, 0, 0, 0, 2 }}, mac2 = {{ 0x02, 0, 0, 0, 0, 3 }};
static const uint8_t peer[RXD_GID_LEN] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2 };

static void
capture_tx(void *ctx, struct rte_mbuf *m)
{
	(void)ctx;
	rte_pktmbuf_free(sent);
	sent = m;
}

static void
start(void)
{
	struct rxd_conf c;

	cr_assert_geq(rxd_test_eal("-m 64 --no-shconf"), 0);
	pool = rte_pktmbuf_pool_create("hint", 256, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	cr_assert_not_null(pool);
	rxd_conf_defaults(&c);
	c.port[0].present = true;
	c.port[0].n_addrs = 2;
	c.port[0].addrs[0] = (struct rxd_conf_addr){ .family = AF_INET,
		.prefix = 24, .addr = { 10, 0, 0, 1 } };
	c.port[0].addrs[1] = (struct rxd_conf_addr){ .family = AF_INET6,
		.prefix = 64, .addr = { 0xfd, 0x88, [15] = 1 } };
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

TestSuite(net_hint, .init = start, .fini = stop, .timeout = 30);
TestSuite(net_neigh, .init = start, .fini = stop, .timeout = 30);

/* Send a 64-byte frame to the peer; @return rxd_net_output()'s result. */
static int
output(struct rxd_net_hint *hint)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	cr_assert_not_null(m);
	memset(rte_pktmbuf_append(m, 64), 0, 64);
	return rxd_net_output(&np, peer, m, hint);
}

static void
expect_sent_to(const struct rte_ether_addr *mac)
{
	cr_assert_not_null(sent);
	cr_assert_arr_eq(rte_pktmbuf_mtod(sent, uint8_t *), mac->addr_bytes,
			 RTE_ETHER_ADDR_LEN);
}

Test(net_hint, noted_used_and_refreshed)
{
	struct rxd_neigh *n = rxd_neigh_lookup(&np, peer, RXD_NEIGH_NEED);
	struct rxd_net_hint hint = { 0 };

	cr_assert_not_null(n);
	rxd_neigh_confirm(&np, n, &mac1);
	cr_assert_eq(output(&hint), 0);
	expect_sent_to(&mac1);
	cr_assert_eq(hint.gen, np.neigh_gen, "the MAC is noted");
	cr_assert_eq(output(&hint), 0);
	expect_sent_to(&mac1);

	rxd_neigh_confirm(&np, n, &mac2);      /* the peer moved */
	cr_assert_eq(output(&hint), 0);
	expect_sent_to(&mac2);

	/* the peer stops answering: after its probes it fails, and the
	 * hint no longer sends anything there */
	n->state = RXD_NEIGH_PROBE;
	n->tries = RXD_NEIGH_TRIES;
	n->deadline = 0;
	rxd_net_timer(&np, rte_rdtsc());
	cr_assert_eq(n->state, RXD_NEIGH_FAILED);
	rte_pktmbuf_free(sent);
	sent = NULL;
	cr_assert_eq(output(&hint), -EHOSTUNREACH);
	cr_assert_null(sent, "nothing sent to a failed peer");
}

/* Parse a frame and hand lib/net a copy of it in an mbuf. */
static void
net_in(const uint8_t *f, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rxd_pkt pkt;
	char *p;

	cr_assert_not_null(m);
	p = rte_pktmbuf_append(m, len);
	cr_assert_not_null(p);
	memcpy(p, f, len);
	cr_assert_eq(rxd_wire_parse(f, len, &pkt, 0), RXD_WIRE_OK);
	rxd_net_input(&np, m, &pkt);
}

/* Hand lib/net a broadcast ARP frame: op, sender MAC and IP, target IP. */
static void
arp_in(uint16_t op, const struct rte_ether_addr *sha, const uint8_t sip[4],
       const uint8_t tip[4])
{
	uint8_t f[60] = { 0 };

	memset(f, 0xff, 6);
	memcpy(f + 6, sha->addr_bytes, 6);
	rxd_put16(f + 12, RXD_ETHER_ARP);
	rxd_put16(f + 14, 1);
	rxd_put16(f + 16, RXD_ETHER_IPV4);
	f[18] = 6;
	f[19] = 4;
	rxd_put16(f + 20, op);
	memcpy(f + 22, sha->addr_bytes, 6);
	memcpy(f + 28, sip, 4);
	memcpy(f + 38, tip, 4);
	net_in(f, sizeof(f));
}

static struct rxd_neigh *
find_v4(const uint8_t ip[4])
{
	uint8_t gid[RXD_GID_LEN];

	rxd_gid_from_v4(gid, ip);
	return rxd_neigh_lookup(&np, gid, RXD_NEIGH_FIND);
}

static const uint8_t me4[4] = { 10, 0, 0, 1 }, other4[4] = { 10, 0, 0, 77 },
	peer4[4] = { 10, 0, 0, 2 };

Test(net_neigh, arp_learns_only_from_requests_for_us)
{
	arp_in(2, &mac2, other4, me4);          /* "10.0.0.77 is-at" unasked */
	cr_assert_null(find_v4(other4), "no entry from an unsolicited reply");
	cr_assert_eq(np.stats.neigh_ignored, 1);
	arp_in(7, &mac2, other4, me4);          /* an opcode ARP has not */
	cr_assert_null(find_v4(other4));
	cr_assert_eq(np.stats.neigh_ignored, 2);
	arp_in(1, &mac2, other4, peer4);        /* asking someone else */
	cr_assert_null(find_v4(other4));
	cr_assert_eq(np.stats.not_for_us, 1);

	arp_in(1, &mac1, peer4, me4);           /* asking for us */
	cr_assert_eq(np.stats.arp_requests_answered, 1);
	cr_assert_not_null(sent, "answered");
	cr_assert_arr_eq(rte_pktmbuf_mtod(sent, uint8_t *), mac1.addr_bytes, 6);
	cr_assert_not_null(find_v4(peer4), "the asker is learnt");
	cr_assert_eq(find_v4(peer4)->state, RXD_NEIGH_REACHABLE);

	arp_in(2, &mac2, peer4, me4);           /* a known peer's new MAC */
	cr_assert(rte_is_same_ether_addr(&find_v4(peer4)->mac, &mac2));
	cr_assert_eq(np.stats.neigh_confirmed, 1);
	cr_assert_eq(np.stats.arp_rx, 5);
}

/* A neighbour advertisement for fd88::2 with flags, and a target
 * link-layer option when tlla is not NULL. */
static void
na_in(uint8_t flags, const struct rte_ether_addr *tlla)
{
	static const uint8_t src[RXD_GID_LEN] = { 0xfd, 0x88, [15] = 2 },
		dst[RXD_GID_LEN] = { 0xfd, 0x88, [15] = 1 };
	uint16_t len = (uint16_t)(24 + (tlla ? 8 : 0));
	uint8_t f[14 + 40 + 32] = { 0 }, *icmp;

	memcpy(f, mac0.addr_bytes, 6);
	memcpy(f + 6, mac1.addr_bytes, 6);
	rxd_put16(f + 12, RXD_ETHER_IPV6);
	rxd_ipv6_hdr(f + 14, src, dst, len, 255);
	icmp = f + 54;
	icmp[0] = 136;
	icmp[4] = flags;
	memcpy(icmp + 8, src, RXD_GID_LEN);
	if (tlla != NULL) {
		icmp[24] = 2;
		icmp[25] = 1;
		memcpy(icmp + 26, tlla->addr_bytes, 6);
	}
	rxd_put16(icmp + 2, rxd_icmp6_csum(f + 14, icmp, len));
	net_in(f, (uint16_t)(14 + 40 + len));
}

Test(net_neigh, solicited_na_without_option_confirms_a_probe)
{
	static const uint8_t peer6[RXD_GID_LEN] = { 0xfd, 0x88, [15] = 2 };
	struct rte_ether_addr mac;
	struct rxd_neigh *n;

	na_in(0x60, &mac1);                      /* nobody asked */
	cr_assert_null(rxd_neigh_lookup(&np, peer6, RXD_NEIGH_FIND));
	cr_assert_eq(rxd_net_resolve(&np, peer6, &mac), -EAGAIN);
	na_in(0x60, NULL);       /* no option: an incomplete entry stays so */
	n = rxd_neigh_lookup(&np, peer6, RXD_NEIGH_FIND);
	cr_assert_eq(n->state, RXD_NEIGH_INCOMPLETE);
	na_in(0x60, &mac1);
	cr_assert_eq(n->state, RXD_NEIGH_REACHABLE);

	n->deadline = 0;                         /* 60 s on: probed */
	rxd_net_timer(&np, rte_rdtsc());
	cr_assert_eq(n->state, RXD_NEIGH_PROBE);
	na_in(0x20, NULL);                       /* not solicited: ignored */
	cr_assert_eq(n->state, RXD_NEIGH_PROBE);
	na_in(0x60, NULL);   /* Linux's answer to a unicast solicitation */
	cr_assert_eq(n->state, RXD_NEIGH_REACHABLE);
	cr_assert(rte_is_same_ether_addr(&n->mac, &mac1));
	cr_assert_eq(np.stats.neigh_ignored, 3);
	cr_assert_eq(np.stats.neigh_confirmed, 2);
}

Test(net_neigh, learnt_entries_give_way_needed_ones_do_not)
{
	uint8_t ip[4] = { 10, 0, 1, 0 }, gid[RXD_GID_LEN];
	struct rte_ether_addr mac;
	unsigned int i;

	for (i = 0; i < RXD_NEIGH_SLOTS; i++) {  /* a flood of askers */
		ip[2] = (uint8_t)(1 + i / 250);
		ip[3] = (uint8_t)(1 + i % 250);
		arp_in(1, &mac2, ip, me4);
	}
	cr_assert_eq(np.stats.arp_requests_answered, RXD_NEIGH_SLOTS);
	rxd_gid_from_v4(gid, peer4);
	cr_assert_eq(rxd_net_resolve(&np, gid, &mac), -EAGAIN,
		     "resolution of a needed peer starts in a full table");
	cr_assert_eq(np.stats.neigh_evicted, 1);
	cr_assert_not_null(find_v4(peer4));

	for (i = 0; i < RXD_NEIGH_SLOTS; i++) {  /* rxd needs every entry */
		ip[2] = (uint8_t)(100 + i / 250);
		ip[3] = (uint8_t)(1 + i % 250);
		rxd_gid_from_v4(gid, ip);
		rxd_net_resolve(&np, gid, &mac);
	}
	cr_assert_not_null(find_v4(peer4), "a needed entry stays");
	ip[2] = 200;
	arp_in(1, &mac2, ip, me4);               /* no room: answered only */
	cr_assert_null(find_v4(ip));
	cr_assert_eq(np.stats.arp_requests_answered, RXD_NEIGH_SLOTS + 1);
}

/*
 * Address conflicts (RFC 5227).  A frame claiming rxd's address from
 * another MAC is never learnt nor answered, and is counted; rxd defends
 * once; its own frames coming back are no conflict.
 */
TestSuite(net_acd, .init = start, .fini = stop, .timeout = 30);

static const uint8_t zero4[4];

/* The last frame sent: an ARP frame with this op, sender and target IP,
 * to the broadcast address. */
static void
expect_arp_broadcast(uint16_t op, const uint8_t sip[4], const uint8_t tip[4])
{
	const uint8_t *f;

	cr_assert_not_null(sent);
	f = rte_pktmbuf_mtod(sent, const uint8_t *);
	cr_assert(rte_is_broadcast_ether_addr((const void *)f));
	cr_assert_eq(rxd_get16(f + 12), RXD_ETHER_ARP);
	cr_assert_eq(rxd_get16(f + 20), op);
	cr_assert_arr_eq(f + 22, mac0.addr_bytes, 6);
	cr_assert_arr_eq(f + 28, sip, 4);
	cr_assert_arr_eq(f + 38, tip, 4);
}

Test(net_acd, claims_of_our_address_are_counted_not_learnt)
{
	arp_in(1, &mac2, me4, peer4);            /* a request claiming it */
	cr_assert_null(find_v4(me4), "no entry for our own address");
	cr_assert_eq(np.stats.arp_conflicts, 1);
	cr_assert_eq(np.stats.arp_requests_answered, 0);
	expect_arp_broadcast(1, me4, me4);       /* defended: announced */
	rte_pktmbuf_free(sent);
	sent = NULL;

	arp_in(2, &mac2, me4, me4);              /* a reply claiming it */
	arp_in(1, &mac2, me4, me4);              /* its gratuitous ARP */
	cr_assert_null(find_v4(me4));
	cr_assert_eq(np.stats.arp_conflicts, 3);
	cr_assert_eq(np.stats.arp_requests_answered, 0);
	cr_assert_null(sent, "defended once per DEFEND_INTERVAL, not answered");
	cr_assert(np.acd.conflict);
	cr_assert(rte_is_same_ether_addr(&np.acd.conflict_mac, &mac2));
	cr_assert_arr_eq(np.acd.conflict_ip, me4, 4);

	arp_in(1, &mac0, me4, me4);              /* our own, looped back */
	cr_assert_eq(np.stats.arp_conflicts, 3);
	cr_assert_eq(np.stats.not_for_us, 1);
	cr_assert_null(sent);
	cr_assert_eq(np.stats.arp_rx, 4);
}

Test(net_acd, our_request_for_ourselves_resolves_on_a_looped_port)
{
	uint8_t gid[RXD_GID_LEN];
	struct rxd_neigh *n;

	/* net_ring receives what it sends: rxd asking for its own address
	 * must reach itself, and that is no conflict */
	rxd_gid_from_v4(gid, me4);
	n = rxd_neigh_lookup(&np, gid, RXD_NEIGH_NEED);
	cr_assert_not_null(n);
	arp_in(1, &mac0, me4, me4);
	cr_assert_eq(n->state, RXD_NEIGH_REACHABLE);
	cr_assert(rte_is_same_ether_addr(&n->mac, &mac0));
	cr_assert_eq(np.stats.neigh_confirmed, 1);
	cr_assert_eq(np.stats.arp_conflicts, 0);
	cr_assert_eq(np.stats.arp_requests_answered, 0);
}

/* Run the timer s seconds after t0; @return ARP frames sent so far. */
static uint64_t
acd_step(uint64_t t0, unsigned int s)
{
	rxd_net_timer(&np, t0 + s * np.hz);
	return np.stats.arp_tx;
}

Test(net_acd, probes_then_announcements)
{
	uint64_t t0 = rte_rdtsc();
	unsigned int s = 0;

	rxd_net_announce(&np);
	cr_assert_eq(np.stats.nd_tx, 2, "IPv6 (fe80::, fd88::1) advertised "
		     "at once");
	cr_assert_eq(np.stats.arp_tx, 0, "first probe within PROBE_WAIT");
	cr_assert_eq(acd_step(t0, s += 3), 1);
	expect_arp_broadcast(1, zero4, me4);     /* a probe */
	cr_assert_eq(acd_step(t0, s += 3), 2);
	cr_assert_eq(acd_step(t0, s += 3), 3);
	expect_arp_broadcast(1, zero4, me4);
	cr_assert_eq(np.acd.phase, RXD_ACD_ANNOUNCE);
	cr_assert_eq(acd_step(t0, s += 3), 4);
	expect_arp_broadcast(1, me4, me4);       /* an announcement */
	cr_assert_eq(acd_step(t0, s += 3), 5);
	cr_assert_eq(acd_step(t0, s += 3), 5, "then nothing");
	cr_assert_eq(np.acd.phase, RXD_ACD_IDLE);
}

Test(net_acd, another_probe_while_probing_is_a_conflict)
{
	uint64_t t0 = rte_rdtsc();

	arp_in(1, &mac2, zero4, me4);            /* not probing: answered */
	cr_assert_eq(np.stats.arp_requests_answered, 1);
	cr_assert_eq(np.stats.arp_conflicts, 0);
	cr_assert_eq(np.stats.arp_tx, 1);

	rxd_net_announce(&np);
	cr_assert_eq(acd_step(t0, 3), 2);
	arp_in(1, &mac2, zero4, me4);            /* it probes for our address */
	cr_assert_eq(np.stats.arp_conflicts, 1);
	cr_assert_eq(np.stats.arp_requests_answered, 1);
	cr_assert(np.acd.while_probing);
	cr_assert_eq(acd_step(t0, 6), 2, "probing stopped");
	cr_assert_eq(acd_step(t0, 20), 2, "nothing announced");
}

Test(net_acd, no_probes_when_probe_ms_is_zero)
{
	np.acd.probe_ms = 0;
	rxd_net_announce(&np);
	cr_assert_eq(np.stats.arp_tx, 1);
	expect_arp_broadcast(1, me4, me4);
	cr_assert_eq(acd_step(rte_rdtsc(), 10), 1);
}
