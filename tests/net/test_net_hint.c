/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_net_output() with a connected QP's hint: the peer's MAC is noted on
 * the first frame and used without lookups while the neighbour table has
 * not changed; a new MAC for the peer, or the peer failing, makes the hint
 * stale (lib/net directly, one port, frames captured by the tx callback).
 */
#include <errno.h>
#include <sys/socket.h>
#include <string.h>

#include <criterion/criterion.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "rxd_net.h"
#include "rxd_net_priv.h"

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
	char *argv[] = { "test", "--no-pci", "--no-huge", "-m", "64",
		"--no-shconf", "--log-level=lib.eal:error", NULL };
	struct rxd_conf c;

	cr_assert_geq(rte_eal_init(7, argv), 0);
	pool = rte_pktmbuf_pool_create("hint", 256, 0, 0,
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

TestSuite(net_hint, .init = start, .fini = stop, .timeout = 30);

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
	struct rxd_neigh *n = rxd_neigh_lookup(&np, peer, true);
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
