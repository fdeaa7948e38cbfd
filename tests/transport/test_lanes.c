/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lanes steering (pmd_glue/rxd_steer.h): two engines on each port of a
 * memif pair, and of the net_ring pair, so 2 x 2 queue pairs.  Every QP
 * pair has QPNs of different residues (its two QPs belong to shares of
 * different number): with one queue per engine each of their frames
 * would reach the engine that does not own its QP and be handed off.
 * With lanes rxd sends each frame on the queue the owner of its
 * destination QP reads: no frame is handed off, each engine's RoCE
 * frames are exactly its own QPs' frames, DPDK's per-queue counters show
 * RoCE only on the queues from one share to the other, and SEND, WRITE
 * and READ data arrive byte-exact with one completion per WR.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <rte_ethdev.h>

#include "rc_pair.h"
#include "rxd/rxd.h"

#define PAIRS 8
#define MSGS 8
#define MSG_LEN 3000          /* three frames at path MTU 1024 */
#define WRITE_LEN 8000
#define READ_LEN 6000
#define SLOT 65536            /* a pair's region of each buffer */
#define WRITE_OFF 32768
#define READ_OFF 49152

static const struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = PAIRS * SLOT, .wr = 64,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

static struct rc_pair p;
static struct ibv_qp *qa[PAIRS], *qb[PAIRS], *spare;

static void
lanes_stop(void)
{
	rc_pair_stop(&p);
}

TestSuite(lanes, .fini = lanes_stop, .timeout = 120);

/* Pairs whose QPNs differ in parity: a spare QP on b shifts b's QPNs. */
static void
connect_pairs(void)
{
	unsigned int i;

	spare = rc_create_qp(&p.b, &opts);
	for (i = 0; i < PAIRS; i++) {
		qa[i] = rc_create_qp(&p.a, &opts);
		qb[i] = rc_create_qp(&p.b, &opts);
		cr_assert_neq(qa[i]->qp_num % 2, qb[i]->qp_num % 2,
			      "pair %u: QPNs 0x%x and 0x%x of one residue", i,
			      qa[i]->qp_num, qb[i]->qp_num);
		rc_connect_qp(qa[i], qb[i]->qp_num, 2, 1, &opts);
		rc_connect_qp(qb[i], qa[i]->qp_num, 1, 1, &opts);
	}
}

static uint8_t
pattern(unsigned int pair, size_t off)
{
	return (uint8_t)(pair * 37 + off * 7 + off / 251);
}

static void
fill_buffers(void)
{
	unsigned int i;
	size_t off;

	for (i = 0; i < PAIRS; i++)
		for (off = 0; off < SLOT; off++) {
			p.a.buf[i * SLOT + off] = pattern(i, off);
			p.b.buf[i * SLOT + off] = off >= READ_OFF ?
				pattern(i + 100, off) : 0;
		}
}

static void
post_all(void)
{
	unsigned int i, k;

	for (i = 0; i < PAIRS; i++) {
		struct rc_end b = p.b, a = p.a;
		size_t base = i * SLOT;

		b.qp = qb[i];
		a.qp = qa[i];
		for (k = 0; k < MSGS; k++)
			cr_assert_eq(rc_recv(&b, i << 8 | k, base + k * 4096,
					     MSG_LEN), 0);
		for (k = 0; k < MSGS; k++)
			cr_assert_eq(rc_post(&a, IBV_WR_SEND, i << 8 | k,
					     base + k * 4096, MSG_LEN, 0, 0,
					     IBV_SEND_SIGNALED), 0);
		cr_assert_eq(rc_post(&a, IBV_WR_RDMA_WRITE, i << 8 | 0xfe,
			base + WRITE_OFF, WRITE_LEN,
			(uintptr_t)(p.b.buf + base + WRITE_OFF), p.b.mr->rkey,
			IBV_SEND_SIGNALED), 0);
		cr_assert_eq(rc_post(&a, IBV_WR_RDMA_READ, i << 8 | 0xff,
			base + READ_OFF, READ_LEN,
			(uintptr_t)(p.b.buf + base + READ_OFF), p.b.mr->rkey,
			IBV_SEND_SIGNALED), 0);
	}
}

/* n completions on cq, each wr_id once, all successful; then no more. */
static void
complete_once(struct ibv_cq *cq, unsigned int n, const char *side)
{
	static bool seen[PAIRS << 8];
	struct ibv_wc wc[32];
	unsigned int got = 0;
	int r, j;

	memset(seen, 0, sizeof(seen));
	while (got < n) {
		r = rc_poll(cq, wc, (int)RTE_MIN(32u, n - got), 20000);
		cr_assert_gt(r, 0, "%s: %u of %u completions", side, got, n);
		for (j = 0; j < r; j++) {
			cr_assert_eq(wc[j].status, IBV_WC_SUCCESS, "%s: %s",
				     side, ibv_wc_status_str(wc[j].status));
			cr_assert_lt(wc[j].wr_id, (uint64_t)(PAIRS << 8));
			cr_assert(!seen[wc[j].wr_id], "%s: wr_id 0x%lx twice",
				  side, (unsigned long)wc[j].wr_id);
			seen[wc[j].wr_id] = true;
		}
		got += (unsigned int)r;
	}
	cr_assert_eq(rc_poll(cq, wc, 1, 200), 0, "%s: a completion too many",
		     side);
}

static void
check_data(void)
{
	unsigned int i, k;
	size_t off;

	for (i = 0; i < PAIRS; i++) {
		const uint8_t *a = p.a.buf + i * SLOT, *b = p.b.buf + i * SLOT;

		for (k = 0; k < MSGS; k++)
			cr_assert_eq(memcmp(b + k * 4096, a + k * 4096,
					    MSG_LEN), 0, "pair %u SEND %u", i, k);
		cr_assert_eq(memcmp(b + WRITE_OFF, a + WRITE_OFF, WRITE_LEN),
			     0, "pair %u WRITE", i);
		for (off = READ_OFF; off < READ_OFF + READ_LEN; off++)
			cr_assert_eq(a[off], pattern(i + 100, off),
				     "pair %u READ byte %zu", i, off);
	}
}

/* The engine serving share s of port (port 0: engines 0, 1; 1: 1, 0). */
static unsigned int
engine_of(unsigned int port, unsigned int share)
{
	return (port + share) % 2;
}

/* The RoCE frames the QPs engine e owns on port took. */
static uint64_t
qp_frames(unsigned int e, unsigned int port)
{
	uint32_t qpns[64];
	struct rxd_qp_stats st;
	uint64_t sum = 0;
	int n = rxd_engine_qps(e, port, qpns, 64), i;

	cr_assert(n >= 0 && n <= 64);
	for (i = 0; i < n; i++) {
		cr_assert_eq(engine_of(port, qpns[i] == 1 ? 0 : qpns[i] % 2),
			     e, "port %u QP 0x%x on engine %u", port, qpns[i],
			     e);
		cr_assert_eq(rxd_qp_stats(port, qpns[i], &st), 0);
		sum += st.rx_pkts;
	}
	return sum;
}

static void
check_engines(void)
{
	struct rxd_engine_info info;
	struct rxd_port_info pi;
	unsigned int e, port;

	cr_assert_eq(rxd_engine_count(), 2);
	for (port = 0; port < 2; port++) {
		cr_assert_eq(rxd_port_info(port, &pi), 0);
		cr_assert_str_eq(pi.steering, "lanes");
		cr_assert_eq(pi.rx_queues, 4);
		cr_assert_eq(pi.tx_queues, 4);
	}
	for (e = 0; e < 2; e++) {
		cr_assert_eq(rxd_engine_info(e, &info), 0);
		cr_log_info("engine %u: roce_rx %lu, hand-offs sent %lu "
			    "received %lu", e, (unsigned long)info.roce_rx,
			    (unsigned long)info.handoff_sent,
			    (unsigned long)info.handoff_received);
		cr_assert_eq(info.handoff_sent, 0, "engine %u handed %lu "
			     "frames off", e,
			     (unsigned long)info.handoff_sent);
		cr_assert_eq(info.handoff_received, 0);
		cr_assert_eq(info.handoff_dropped, 0);
		cr_assert_gt(info.roce_rx, 0, "engine %u took no frame", e);
		cr_assert_eq(info.roce_rx, qp_frames(e, 0) + qp_frames(e, 1),
			     "engine %u took frames of QPs it does not own",
			     e);
	}
}

/*
 * DPDK's own counters: the peer's share j sends to our share k on its
 * queue j*2 + k, our receive queue j*2 + k.  Every pair crosses shares,
 * so RoCE comes in on queues 1 and 2 only; queue 0 carries the first
 * engines' ARP and ND, queue 3 nothing.
 */
static void
check_queues(uint16_t port_id)
{
	struct rte_eth_stats st;

	cr_assert_eq(rte_eth_stats_get(port_id, &st), 0);
	cr_log_info("port %u: frames by receive queue %lu %lu %lu %lu",
		    port_id, (unsigned long)st.q_ipackets[0],
		    (unsigned long)st.q_ipackets[1],
		    (unsigned long)st.q_ipackets[2],
		    (unsigned long)st.q_ipackets[3]);
	cr_assert_gt(st.q_ipackets[1], 0);
	cr_assert_gt(st.q_ipackets[2], 0);
	cr_assert_eq(st.q_ipackets[3], 0, "port %u: frames from share 1 "
		     "to share 1", port_id);
}

static void
run(const char *link)
{
	rc_pair_start_2eng(&p, &opts, link);
	connect_pairs();
	fill_buffers();
	post_all();
	complete_once(p.a.cq, PAIRS * (MSGS + 2), "sender");
	complete_once(p.b.cq, PAIRS * MSGS, "receiver");
	check_data();
	check_engines();
	check_queues(p.port_a);
	check_queues(p.port_b);
}

Test(lanes, memif_owner_only_no_handoff)
{
	run("memif");
}

Test(lanes, ring_owner_only_no_handoff)
{
	run("ring");
}
