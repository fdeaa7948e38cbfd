/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A QP's first frames, built before its next hop's MAC is known, with two
 * engines on each port and lanes steering (lib/engine/rxd_tx_addr.h).
 * rxd1 connects a QP to rxd0's second address, 10.0.0.9, which nothing
 * has resolved, while rxd0 drops everything it receives (a cut), so the
 * WRITEs posted wait in the owning engine.  Then the cut ends, rxd1's
 * next ARP request is answered and the frames leave.  For a QP of each
 * of rxd1's engines (the port's first, which owns the neighbour table,
 * and the other): the frames waited (tx_waited), none was dropped
 * (held_dropped) or handed to another engine, the responder saw no
 * request ahead of its expected PSN (out_of_sequence, sequence NAKs:
 * frames leaving through two queues can overtake each other), and the
 * data arrive byte-exact with one completion per WR.  Meanwhile a WRITE
 * of another QP of the same engine, to rxd0's known address, leaves at
 * once: waiting frames hold up only frames to their own destination.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define WRITES 16
#define WRITE_LEN 4096        /* four frames at path MTU 1024 */
#define SLOT (WRITES * WRITE_LEN)
#define OTHER_LEN 16384       /* the WRITE to a known peer meanwhile */
#define OTHER_OFF (2 * SLOT)

/* Retransmit timeout 18 (about 1 s), so the wait for rxd1's next ARP
 * request (500 ms apart) takes no retry away. */
static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = 2 * SLOT + OTHER_LEN, .wr = 64,
	.access = IBV_ACCESS_REMOTE_WRITE,
	.timeout = 18, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

static struct rc_pair p;

static void
wait_stop(void)
{
	rc_pair_stop(&p);
}

TestSuite(tx_wait, .fini = wait_stop, .timeout = 120);

static void
cut_rxd0(bool on)
{
	struct rxd_conf_fault f = { .cut = on, .drop_opcode = -1 };

	cr_assert_eq(rxd_fault_set(0, RXD_DIR_RX, &f, 1), 0, "%s",
		     rxd_last_error());
}

static uint64_t
handoffs(void)
{
	struct rxd_engine_info i0, i1;

	cr_assert_eq(rxd_engine_info(0, &i0), 0);
	cr_assert_eq(rxd_engine_info(1, &i1), 0);
	return i0.handoff_sent + i1.handoff_sent;
}

static struct rxd_port_counters
counters_of(unsigned int port)
{
	struct rxd_port_counters c;

	cr_assert_eq(rxd_port_counters(port, &c), 0);
	return c;
}

/* A pair whose rxd1 QP has QPN residue share (its engine's share): QPs
 * of the other residue made on the way are destroyed after (QPNs freed
 * are handed out again first). */
static void
make_pair(unsigned int share, struct ibv_qp **qa, struct ibv_qp **qb)
{
	struct ibv_qp *spare[4];
	unsigned int n = 0;

	for (*qb = rc_create_qp(&p.b, &opts); (*qb)->qp_num % 2 != share;
	     *qb = rc_create_qp(&p.b, &opts)) {
		cr_assert_lt(n, 4u, "no QPN of residue %u", share);
		spare[n++] = *qb;
	}
	*qa = rc_create_qp(&p.a, &opts);
	while (n > 0)
		cr_assert_eq(ibv_destroy_qp(spare[--n]), 0);
}

static void
complete_once(struct ibv_cq *cq, unsigned int n)
{
	bool seen[WRITES + 1] = { false };
	struct ibv_wc wc[WRITES + 1];
	unsigned int got = 0;
	int r, j;

	while (got < n) {
		r = rc_poll(cq, wc, (int)(n - got), 20000);
		cr_assert_gt(r, 0, "%u of %u completions", got, n);
		for (j = 0; j < r; j++) {
			cr_assert_eq(wc[j].status, IBV_WC_SUCCESS, "%s",
				     ibv_wc_status_str(wc[j].status));
			cr_assert_leq(wc[j].wr_id, (uint64_t)WRITES);
			cr_assert(!seen[wc[j].wr_id], "wr_id %lu twice",
				  (unsigned long)wc[j].wr_id);
			seen[wc[j].wr_id] = true;
		}
		got += (unsigned int)r;
	}
	cr_assert_eq(rc_poll(cq, wc, 1, 200), 0, "a completion too many");
}

/* Posted while rxd0 is cut off: the frames must wait, not leave. */
static void
post_waiting(struct ibv_qp *qb, size_t base)
{
	struct rc_end b = p.b;
	unsigned int k, tries;
	size_t off;

	for (off = 0; off < SLOT; off++) {
		p.b.buf[base + off] = (uint8_t)(off * 13 + off / 509 + base);
		p.a.buf[base + off] = 0;
	}
	b.qp = qb;
	for (k = 0; k < WRITES; k++)
		cr_assert_eq(rc_post(&b, IBV_WR_RDMA_WRITE, k,
				     base + k * WRITE_LEN, WRITE_LEN,
				     (uintptr_t)(p.a.buf + base +
						 k * WRITE_LEN),
				     p.a.mr->rkey, IBV_SEND_SIGNALED), 0);
	for (tries = 0; tries < 1000; tries++) {
		if (counters_of(1).tx_waited >= 4)
			break;
		usleep(1000);
	}
	cr_assert_geq(counters_of(1).tx_waited, 4,
		      "rxd1's frames did not wait for 10.0.0.9");
}

/* A WRITE of a QP of the same engine to a peer already known, posted
 * while the other QP's frames wait: it leaves at once (rxd1's port sends
 * its frames; rxd0 drops them, RC resends them after the cut). */
static void
post_past_the_waiting(struct ibv_qp *qb2)
{
	uint64_t tx0 = counters_of(1).tx_pkts, sent = 0;
	struct rc_end b = p.b;
	unsigned int tries;

	memset(p.b.buf + OTHER_OFF, 0x5a, OTHER_LEN);
	memset(p.a.buf + OTHER_OFF, 0, OTHER_LEN);
	b.qp = qb2;
	cr_assert_eq(rc_post(&b, IBV_WR_RDMA_WRITE, WRITES, OTHER_OFF,
			     OTHER_LEN, (uintptr_t)(p.a.buf + OTHER_OFF),
			     p.a.mr->rkey, IBV_SEND_SIGNALED), 0);
	for (tries = 0; tries < 2000 && sent < OTHER_LEN / 1024; tries++) {
		usleep(1000);
		sent = counters_of(1).tx_pkts - tx0;
	}
	cr_assert_geq(sent, OTHER_LEN / 1024, "a QP to a known peer was held "
		      "behind frames to another (%lu frames left)",
		      (unsigned long)sent);
}

static void
run_share(unsigned int share, size_t base)
{
	struct rxd_qp_stats sa, sb;
	struct ibv_qp *qa, *qb, *qa2, *qb2;
	uint64_t ho = handoffs();
	struct rxd_port_counters c;

	make_pair(share, &qa, &qb);
	make_pair(share, &qa2, &qb2);
	cut_rxd0(true);
	rc_connect_qp(qa, qb->qp_num, 2, 2, &opts);   /* from 10.0.0.9 */
	rc_connect_qp(qb, qa->qp_num, 9, 1, &opts);   /* to 10.0.0.9 */
	rc_connect_qp(qa2, qb2->qp_num, 2, 1, &opts); /* 10.0.0.1, known */
	rc_connect_qp(qb2, qa2->qp_num, 1, 1, &opts);
	post_waiting(qb, base);
	post_past_the_waiting(qb2);
	cut_rxd0(false);
	complete_once(p.b.cq, WRITES + 1);
	cr_assert_eq(memcmp(p.a.buf + base, p.b.buf + base, SLOT), 0,
		     "share %u: WRITE data", share);
	cr_assert_eq(memcmp(p.a.buf + OTHER_OFF, p.b.buf + OTHER_OFF,
			    OTHER_LEN), 0, "share %u: the other WRITE", share);
	c = counters_of(1);
	cr_log_info("share %u: tx_waited %lu held_dropped %lu", share,
		    (unsigned long)c.tx_waited,
		    (unsigned long)c.held_dropped);
	cr_assert_eq(c.held_dropped, 0, "share %u: frames dropped while "
		     "resolving", share);
	cr_assert_eq(handoffs(), ho, "share %u: frames handed off", share);
	cr_assert_eq(rxd_qp_stats(0, qa->qp_num, &sa), 0);
	cr_assert_eq(rxd_qp_stats(1, qb->qp_num, &sb), 0);
	cr_assert_eq(sa.out_of_sequence, 0, "share %u: %lu requests ahead "
		     "of the expected PSN", share,
		     (unsigned long)sa.out_of_sequence);
	cr_assert_eq(sa.naks_tx[0] + sb.naks_rx[0], 0,
		     "share %u: sequence NAKs", share);
	cr_assert_eq(ibv_destroy_qp(qa), 0);
	cr_assert_eq(ibv_destroy_qp(qb), 0);
	cr_assert_eq(ibv_destroy_qp(qa2), 0);
	cr_assert_eq(ibv_destroy_qp(qb2), 0);
}

/* rxd1's first engine (share 0) owns the neighbour table, the other
 * only reads it.  Each case starts afresh: 10.0.0.9 is known to rxd1
 * after one. */
static void
run(const char *link, unsigned int share)
{
	rc_pair_start_2eng(&p, &opts, link);
	run_share(share, (size_t)share * SLOT);
}

Test(tx_wait, memif_other_engine)
{
	run("memif", 1);
}

Test(tx_wait, memif_first_engine)
{
	run("memif", 0);
}

Test(tx_wait, ring_other_engine)
{
	run("ring", 1);
}

Test(tx_wait, ring_first_engine)
{
	run("ring", 0);
}
