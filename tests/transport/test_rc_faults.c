/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC under the fault injector: a long randomized run of SEND, WRITE, READ
 * and FETCH_ADD with 5% drop, 1% duplication, 1% reordering and 0.1%
 * corruption in every direction, checked byte for byte, with exactly one
 * completion per work request; ATOMIC WRITE and FLUSH executed once each
 * under the same faults; then retry and RNR exhaustion.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "rc_pair.h"
#include "rxd/rxd.h"
#include "rxd/rxd_flush.h"
#include "rxd_wire.h"

#define SLOT 8192
#define WINDOW 16
#define RECV_OFF (WINDOW * SLOT)
#define COUNTER_OFF (2 * WINDOW * SLOT)
#define BUF (COUNTER_OFF + 4096)

static struct rc_opts opts = {
	.eal_lcores = "0-1", .buf_len = BUF, .wr = 64,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC | RXD_ACCESS_FLUSH_GLOBAL,
	.timeout = 10, .retry_cnt = 7,   /* 4.2 ms: a loaded 2-core box */ .rnr_retry = 7, .min_rnr_timer = 1,
	.mtu = IBV_MTU_1024,
};

RC_PAIR_SUITE(rc_faults, opts, 1200);

/*
 * Every frame meets the faults once, as on one lossy link: port 0 applies
 * them to the frames it sends and to those it receives, port 1 to none.
 * (Faults at both ends would drop 1 - 0.95^2 = 9.75 % of frames.)
 */
static void
faults(double drop, double dup, double reorder, double corrupt, bool cut)
{
	struct rxd_conf_fault f = { .drop = drop, .dup = dup,
		.reorder = reorder, .corrupt = corrupt, .reorder_depth = 4,
		.cut = cut, .drop_opcode = -1 };
	struct rxd_conf_fault none = { .drop_opcode = -1 };

	cr_assert_eq(rxd_fault_set(0, RXD_DIR_TX, &f, 23), 0);
	cr_assert_eq(rxd_fault_set(0, RXD_DIR_RX, &f, 11), 0);
	cr_assert_eq(rxd_fault_set(1, RXD_DIR_TX, &none, 24), 0);
	cr_assert_eq(rxd_fault_set(1, RXD_DIR_RX, &none, 12), 0);
}

static void
fill(uint8_t *b, uint32_t len, uint64_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 7));
}

struct op {
	enum ibv_wr_opcode opcode;
	uint32_t len;
	uint64_t add;
	uint64_t before;   /* FETCH_ADD: counter before */
};

/* ", then wr N: STATUS" for the first completion that is not a flush. */
static const char *
first_error(const struct ibv_wc *wc, int n)
{
	static char text[96];
	int k;

	text[0] = '\0';
	for (k = 0; k < n; k++)
		if (wc[k].status != IBV_WC_SUCCESS &&
		    wc[k].status != IBV_WC_WR_FLUSH_ERR) {
			snprintf(text, sizeof(text), ", then wr %lu: %s",
				 (unsigned long)wc[k].wr_id,
				 ibv_wc_status_str(wc[k].status));
			break;
		}
	return text;
}

/* Both QPs' transport counters, for a failure message. */
static const char *
qp_state_text(void)
{
	static char text[512];
	struct rxd_qp_stats a, b;

	if (rxd_qp_stats(0, p.a.qp->qp_num, &a) != 0 ||
	    rxd_qp_stats(1, p.b.qp->qp_num, &b) != 0)
		return "(no counters)";
	snprintf(text, sizeof(text), "requester: tx %lu rx %lu retransmits "
		 "%lu timeouts %lu rnr_waits %lu naks_rx %lu duplicates %lu; "
		 "responder: tx %lu rx %lu acks %lu naks_tx %lu duplicates %lu "
		 "out_of_sequence %lu",
		 (unsigned long)a.tx_pkts, (unsigned long)a.rx_pkts,
		 (unsigned long)a.retransmits, (unsigned long)a.timeouts,
		 (unsigned long)a.rnr_waits, (unsigned long)a.naks_rx[0],
		 (unsigned long)a.duplicates, (unsigned long)b.tx_pkts,
		 (unsigned long)b.rx_pkts, (unsigned long)b.acks_tx,
		 (unsigned long)b.naks_tx[0], (unsigned long)b.duplicates,
		 (unsigned long)b.out_of_sequence);
	return text;
}

static uint32_t
rnd(uint64_t *s, uint32_t n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33) % n;
}

/* Post one window of random WRs; wait for every completion; check. */
static void
window(uint64_t *seed, uint64_t base, uint64_t *counter)
{
	static const enum ibv_wr_opcode kinds[] = { IBV_WR_SEND,
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_FETCH_AND_ADD };
	struct ibv_wc wc[WINDOW];
	struct op ops[WINDOW];
	unsigned int i, sends = 0;
	uint8_t seen[WINDOW] = { 0 };
	int n, k;

	for (i = 0; i < WINDOW; i++) {
		struct op *o = &ops[i];
		uint8_t *a_slot = p.a.buf + i * SLOT;
		uint8_t *b_slot = p.b.buf + i * SLOT;
		struct ibv_sge sge = { (uintptr_t)a_slot, 0, p.a.mr->lkey };
		struct ibv_send_wr w = { .wr_id = base + i, .sg_list = &sge,
			.num_sge = 1, .send_flags = IBV_SEND_SIGNALED }, *bad;

		o->opcode = kinds[rnd(seed, 4)];
		o->len = rnd(seed, 8) == 0 ? rnd(seed, SLOT + 1) :
			rnd(seed, 2048);
		w.opcode = o->opcode;
		if (o->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			o->len = 8;
			o->add = rnd(seed, 1000);
			o->before = *counter;
			*counter += o->add;
			w.wr.atomic.remote_addr = (uintptr_t)p.b.buf +
				COUNTER_OFF;
			w.wr.atomic.rkey = p.b.mr->rkey;
			w.wr.atomic.compare_add = o->add;
		} else {
			w.wr.rdma.remote_addr = (uintptr_t)b_slot;
			w.wr.rdma.rkey = p.b.mr->rkey;
		}
		sge.length = o->len;
		if (o->opcode == IBV_WR_RDMA_READ)
			fill(b_slot, o->len, base + i);
		else
			fill(a_slot, o->len, base + i);
		if (o->opcode == IBV_WR_SEND) {
			cr_assert_eq(rc_recv(&p.b, base + i,
					     RECV_OFF + sends * SLOT, SLOT), 0);
			sends++;
		}
		cr_assert_eq(ibv_post_send(p.a.qp, &w, &bad), 0);
	}
	n = rc_poll(p.a.cq, wc, WINDOW, 60000);
	cr_assert_eq(n, WINDOW, "%d of %d completions at %lu; %s", n, WINDOW,
		     (unsigned long)base, qp_state_text());
	for (k = 0; k < n; k++) {
		unsigned int j = (unsigned int)(wc[k].wr_id - base);

		cr_assert_eq(wc[k].status, IBV_WC_SUCCESS, "wr %lu: %s%s",
			     (unsigned long)wc[k].wr_id,
			     ibv_wc_status_str(wc[k].status),
			     first_error(wc, n));
		cr_assert(j < WINDOW && !seen[j]++, "one completion per WR");
		cr_assert_eq(j, (unsigned int)k, "completions in order");
	}
	cr_assert_eq(ibv_poll_cq(p.a.cq, WINDOW, wc), 0, "no extra ones");
	n = rc_poll(p.b.cq, wc, (int)sends, 60000);
	cr_assert_eq(n, (int)sends);
	for (i = 0, k = 0; i < WINDOW; i++) {
		struct op *o = &ops[i];
		uint8_t *a_slot = p.a.buf + i * SLOT;
		uint8_t *b_slot = p.b.buf + i * SLOT;

		switch (o->opcode) {
		case IBV_WR_SEND:
			cr_assert_eq(wc[k].status, IBV_WC_SUCCESS);
			cr_assert_eq(wc[k].wr_id, base + i);
			cr_assert_eq(wc[k].byte_len, o->len);
			cr_assert_arr_eq(p.b.buf + RECV_OFF + k * SLOT, a_slot,
					 o->len, "SEND %lu", base + i);
			k++;
			break;
		case IBV_WR_RDMA_WRITE:
			cr_assert_arr_eq(b_slot, a_slot, o->len, "WRITE");
			break;
		case IBV_WR_RDMA_READ:
			cr_assert_arr_eq(a_slot, b_slot, o->len, "READ");
			break;
		default:
			cr_assert_eq(*(uint64_t *)a_slot, o->before,
				     "FETCH_ADD once only");
		}
	}
	cr_assert_eq(*(uint64_t *)(p.b.buf + COUNTER_OFF), *counter);
}

static uint64_t
soak_wrs(void)
{
	const char *s = getenv("RXD_SOAK_WRS");

	return s ? strtoull(s, NULL, 10) : 100000;
}

Test(rc_faults, soak_loss_dup_reorder_corrupt)
{
	struct rxd_port_counters c0, c1;
	uint64_t seed = 12345, counter = 0, i, n = soak_wrs();

	double f[4] = { 0.05, 0.01, 0.01, 0.001 };
	const char *env = getenv("RXD_SOAK_FAULTS");   /* drop,dup,reo,corr */

	if (env != NULL)
		sscanf(env, "%lf,%lf,%lf,%lf", &f[0], &f[1], &f[2], &f[3]);
	*(uint64_t *)(p.b.buf + COUNTER_OFF) = 0;
	faults(f[0], f[1], f[2], f[3], false);
	for (i = 0; i < n; i += WINDOW)
		window(&seed, i, &counter);
	struct rxd_qp_stats qa, qb;

	cr_assert_eq(rxd_port_counters(0, &c0), 0);
	cr_assert_eq(rxd_port_counters(1, &c1), 0);
	cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &qa), 0);
	cr_assert_eq(rxd_qp_stats(1, p.b.qp->qp_num, &qb), 0);
	cr_assert_gt(qa.retransmits, 0);
	cr_assert_gt(qa.timeouts, 0);
	cr_assert_gt(qa.naks_rx[0], 0, "sequence NAKs reached the requester");
	cr_assert_gt(qb.naks_tx[0], 0, "the responder NAKed gaps");
	cr_assert_gt(qb.duplicates, 0);
	cr_assert_gt(c0.fault_tx_dropped + c1.fault_tx_dropped, 0);
	cr_assert_gt(c0.fault_rx_duplicated + c1.fault_rx_duplicated, 0);
	cr_assert_gt(c0.fault_tx_corrupted + c1.fault_tx_corrupted, 0);
	cr_assert_gt(c0.wire_err[RXD_WIRE_ICRC] + c1.wire_err[RXD_WIRE_ICRC] +
		     c0.wire_err[RXD_WIRE_UDP_CSUM] +
		     c1.wire_err[RXD_WIRE_UDP_CSUM] +
		     c0.wire_err[RXD_WIRE_IP_CSUM] +
		     c1.wire_err[RXD_WIRE_IP_CSUM], 0,
		     "corrupted frames are caught and dropped");
	cr_log_info("soak: requester retransmits %lu timeouts %lu seq NAKs "
		    "%lu; responder duplicates %lu", (unsigned long)qa.retransmits,
		    (unsigned long)qa.timeouts, (unsigned long)qa.naks_rx[0],
		    (unsigned long)qb.duplicates);
	cr_log_info("soak: %lu WRs; frames dropped %lu, duplicated %lu, "
		    "held back %lu, corrupted %lu; corrupt frames refused %lu",
		    (unsigned long)n,
		    (unsigned long)(c0.fault_tx_dropped + c1.fault_tx_dropped +
				    c0.fault_rx_dropped + c1.fault_rx_dropped),
		    (unsigned long)(c0.fault_tx_duplicated +
				    c1.fault_tx_duplicated +
				    c0.fault_rx_duplicated +
				    c1.fault_rx_duplicated),
		    (unsigned long)(c0.fault_tx_reordered +
				    c1.fault_tx_reordered +
				    c0.fault_rx_reordered +
				    c1.fault_rx_reordered),
		    (unsigned long)(c0.fault_tx_corrupted +
				    c1.fault_tx_corrupted +
				    c0.fault_rx_corrupted +
				    c1.fault_rx_corrupted),
		    (unsigned long)(c0.wire_err[RXD_WIRE_ICRC] +
				    c1.wire_err[RXD_WIRE_ICRC]));
}

/*
 * The payload of a SEND's or WRITE's MIDDLE and LAST, and of a READ
 * response's, is copied into place while its ICRC is checked.  With a tenth of the frames
 * port 0 sends and receives corrupted, a corrupt one has written its bytes
 * when it is found out: it must be dropped and counted without moving the
 * QP on, so that the frame sent again writes them right.  Each 64 KiB
 * transfer (64 frames) lands in a zeroed buffer and must read back
 * exactly, with one completion.
 */
static void
corrupt_transfers(enum ibv_wr_opcode opcode)
{
	bool read = opcode == IBV_WR_RDMA_READ;
	struct rc_end *from = read ? &p.b : &p.a;
	struct rc_end *to = read ? &p.a : &p.b;
	struct rxd_port_counters c[2];
	uint32_t len = 8 * SLOT, i, at = !read;
	uint64_t refused, corrupted;
	struct ibv_wc wc;

	faults(0, 0, 0, 0.1, false);
	for (i = 0; i < 40; i++) {
		fill(from->buf, len, i);
		memset(to->buf, 0, len);
		if (opcode == IBV_WR_SEND)
			cr_assert_eq(rc_recv(&p.b, i, 0, len), 0);
		cr_assert_eq(rc_post(&p.a, opcode, i, 0, len,
				     (uintptr_t)p.b.buf, p.b.mr->rkey,
				     IBV_SEND_SIGNALED), 0);
		cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 60000), 1, "%u: %s",
			     i, qp_state_text());
		cr_assert_eq(wc.status, IBV_WC_SUCCESS, "%u: %s", i,
			     ibv_wc_status_str(wc.status));
		cr_assert_eq(wc.wr_id, i);
		if (opcode == IBV_WR_SEND) {
			cr_assert_eq(rc_poll(p.b.cq, &wc, 1, 60000), 1);
			cr_assert_eq(wc.status, IBV_WC_SUCCESS);
			cr_assert_eq(wc.byte_len, len);
		}
		cr_assert_arr_eq(to->buf, from->buf, len, "transfer %u", i);
	}
	cr_assert_eq(ibv_poll_cq(p.a.cq, 1, &wc), 0, "no extra completion");
	cr_assert_eq(rxd_port_counters(0, &c[0]), 0);
	cr_assert_eq(rxd_port_counters(1, &c[1]), 0);
	/* the data frames: sent by port 0 (WRITE) or received by it (READ) */
	refused = c[at].wire_err[RXD_WIRE_ICRC] +
		c[at].wire_err[RXD_WIRE_IP_CSUM] +
		c[at].wire_err[RXD_WIRE_UDP_CSUM];
	corrupted = at ? c[0].fault_tx_corrupted : c[0].fault_rx_corrupted;
	cr_assert_gt(c[at].wire_err[RXD_WIRE_ICRC], 0);
	cr_assert_leq(refused, corrupted, "%lu refused, %lu corrupted",
		      (unsigned long)refused, (unsigned long)corrupted);
	cr_log_info("%u x 64 KiB: %lu data frames corrupted, %lu refused by "
		    "ICRC", i, (unsigned long)corrupted,
		    (unsigned long)c[at].wire_err[RXD_WIRE_ICRC]);
}

/* One group of the placement run: its target, value and addend. */
struct placement {
	uint64_t value, add;
};

#define GROUPS (WINDOW / 4)

static void
post_legacy(struct ibv_send_wr *w)
{
	struct ibv_send_wr *bad;

	cr_assert_eq(ibv_post_send(p.a.qp, w, &bad), 0);
}

/*
 * Group g of a window, on target T (8 bytes of b): ATOMIC WRITE of value,
 * FETCH_ADD of add (returns value if the ATOMIC WRITE was executed once
 * and before it), FLUSH of T, READ of T (value + add: a replayed ATOMIC
 * WRITE executed again after the FETCH_ADD would show here).
 */
static void
post_group(struct ibv_qp_ex *x, struct ibv_mr *mr, uint64_t id, unsigned int g,
	   const struct placement *pl)
{
	uint64_t target = (uintptr_t)p.b.buf + COUNTER_OFF + g * 64;
	uint8_t *res = p.a.buf + g * SLOT;
	struct ibv_sge sge = { (uintptr_t)res, 8, p.a.mr->lkey };
	struct ibv_send_wr w = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED, .opcode = IBV_WR_ATOMIC_WRITE };

	memcpy(res, &pl->value, 8);
	w.wr.rdma.remote_addr = target;
	w.wr.rdma.rkey = mr->rkey;
	post_legacy(&w);
	sge.addr += 8;
	w.wr_id = id + 1;
	w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	w.wr.atomic.remote_addr = target;
	w.wr.atomic.rkey = p.b.mr->rkey;
	w.wr.atomic.compare_add = pl->add;
	post_legacy(&w);
	ibv_wr_start(x);
	x->wr_id = id + 2;
	x->wr_flags = IBV_SEND_SIGNALED;
	rxd_wr_flush(x, mr->rkey, target, 8, RXD_FLUSH_GLOBAL,
		     RXD_FLUSH_RANGE);
	cr_assert_eq(ibv_wr_complete(x), 0);
	sge.addr += 8;
	w.wr_id = id + 3;
	w.opcode = IBV_WR_RDMA_READ;
	w.wr.rdma.remote_addr = target;
	w.wr.rdma.rkey = p.b.mr->rkey;
	post_legacy(&w);
}

static const unsigned int group_opcode[4] = { IBV_WC_ATOMIC_WRITE,
	IBV_WC_FETCH_ADD, RXD_WC_FLUSH, IBV_WC_RDMA_READ };

static void
placement_window(struct ibv_qp_ex *x, struct ibv_mr *mr, uint64_t *seed,
		 uint64_t base)
{
	struct placement pl[GROUPS];
	struct ibv_wc wc[WINDOW];
	unsigned int g;
	int n, k;

	for (g = 0; g < GROUPS; g++) {
		pl[g].value = (uint64_t)rnd(seed, 1u << 30) << 20 | base;
		pl[g].add = rnd(seed, 1000) + 1;
		post_group(x, mr, base + 4 * g, g, &pl[g]);
	}
	n = rc_poll(p.a.cq, wc, WINDOW, 60000);
	cr_assert_eq(n, WINDOW, "%d of %d completions at %lu; %s", n, WINDOW,
		     (unsigned long)base, qp_state_text());
	for (k = 0; k < n; k++) {
		cr_assert_eq(wc[k].status, IBV_WC_SUCCESS, "wr %lu: %s%s",
			     (unsigned long)wc[k].wr_id,
			     ibv_wc_status_str(wc[k].status),
			     first_error(wc, n));
		cr_assert_eq(wc[k].wr_id, base + (unsigned int)k,
			     "one completion per WR, in order");
		cr_assert_eq(wc[k].opcode, group_opcode[k % 4]);
	}
	cr_assert_eq(ibv_poll_cq(p.a.cq, WINDOW, wc), 0, "no extra ones");
	for (g = 0; g < GROUPS; g++) {
		const uint64_t *res = (const uint64_t *)(p.a.buf + g * SLOT);

		cr_assert_eq(res[1], pl[g].value, "ATOMIC WRITE before "
			     "FETCH_ADD, once (%lu)", (unsigned long)base);
		cr_assert_eq(res[2], pl[g].value + pl[g].add,
			     "no ATOMIC WRITE executed again (%lu)",
			     (unsigned long)base);
	}
}

/*
 * ATOMIC WRITE and FLUSH under the soak's faults: each executed once, the
 * bytes exact, one completion each (RXD_SOAK_WRS / 10 work requests).
 */
Test(rc_faults, atomic_write_and_flush_once_under_faults)
{
	struct ibv_qp_ex *x = rc_pair_connect_ex(&p, &opts,
						 RXD_QP_EX_WITH_FLUSH);
	struct ibv_mr *mr = ibv_reg_mr(p.b.pd, p.b.buf, BUF,
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE |
				       RXD_ACCESS_FLUSH_GLOBAL);
	uint64_t seed = 777, i, n = soak_wrs() / 10;
	struct rxd_qp_stats qa, qb;

	cr_assert_not_null(mr);
	faults(0.05, 0.01, 0.01, 0.001, false);
	for (i = 0; i < n; i += WINDOW)
		placement_window(x, mr, &seed, i);
	cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &qa), 0);
	cr_assert_eq(rxd_qp_stats(1, p.b.qp->qp_num, &qb), 0);
	cr_assert_gt(qb.duplicates, 0, "duplicates reached the responder");
	cr_assert_gt(qa.retransmits, 0);
	cr_log_info("placement: %lu WRs, requester retransmits %lu timeouts "
		    "%lu; responder duplicates %lu", (unsigned long)n,
		    (unsigned long)qa.retransmits, (unsigned long)qa.timeouts,
		    (unsigned long)qb.duplicates);
	ibv_dereg_mr(mr);
}

Test(rc_faults, corrupt_write_payloads_written_again)
{
	corrupt_transfers(IBV_WR_RDMA_WRITE);
}

Test(rc_faults, corrupt_send_payloads_written_again)
{
	corrupt_transfers(IBV_WR_SEND);
}

Test(rc_faults, corrupt_read_responses_written_again)
{
	corrupt_transfers(IBV_WR_RDMA_READ);
}

static double
elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 +
		(double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * Link cut: retry_cnt + 1 attempts, then RETRY_EXC_ERR and flushes.  The
 * attempts are counted by the QP's timer expiries; the clock only checks
 * that they were not hurried (a loaded machine may take longer).
 */
Test(rc_faults, peer_vanishes_retry_exceeded)
{
	struct ibv_wc wc[4];
	struct timespec t0;
	double ms, rto_ms = 4.096e-3 * (1 << 12);
	struct rc_opts o = opts;
	struct rxd_qp_stats st;

	o.timeout = 12;         /* 16.8 ms */
	o.retry_cnt = 3;
	rc_pair_connect(&p, &o);
	faults(0, 0, 0, 0, true);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 64,
			     (uintptr_t)p.b.buf, p.b.mr->rkey, 0), 0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 2, 0, 64,
			     (uintptr_t)p.b.buf, p.b.mr->rkey, 0), 0);
	cr_assert_eq(rc_poll(p.a.cq, wc, 2, 10000), 2);
	ms = elapsed_ms(&t0);
	cr_assert_eq(wc[0].wr_id, 1);
	cr_assert_eq(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	cr_assert_eq(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	cr_assert(ms >= 4 * rto_ms, "%.1f ms for 4 attempts of %.1f ms",
		  ms, rto_ms);
	cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &st), 0);
	cr_assert_eq(st.timeouts, o.retry_cnt + 1, "%" PRIu64 " timeouts",
		     st.timeouts);
}

/* One signaled 64-byte WRITE from a to b, checked byte for byte. */
static void
write_once(uint64_t seed)
{
	struct ibv_wc wc;

	memset(p.b.buf, 0, 64);
	fill(p.a.buf, 64, seed);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, seed, 0, 64,
			     (uintptr_t)p.b.buf, p.b.mr->rkey,
			     IBV_SEND_SIGNALED), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 10000), 1);
	cr_assert_eq(wc.status, IBV_WC_SUCCESS, "%s",
		     ibv_wc_status_str(wc.status));
	cr_assert_arr_eq(p.b.buf, p.a.buf, 64);
}

/*
 * Destroying a QP whose retransmit timer runs (the link is cut, a WRITE is
 * unacknowledged) takes it off the engine's timer list: the engine keeps
 * scanning its timers past the deadline (ASan sees any use of the freed
 * QP), and a new connection then works.
 */
Test(rc_faults, destroy_with_timer_running)
{
	struct rxd_qp_stats st0, st;
	struct rc_opts o = opts;
	unsigned int i;

	o.timeout = 8;          /* 1 ms */
	rc_pair_connect(&p, &o);
	write_once(3);          /* the peer's MAC is known before the cut */
	cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &st0), 0);
	faults(0, 0, 0, 0, true);
	cr_assert_eq(rc_post(&p.a, IBV_WR_RDMA_WRITE, 1, 0, 64,
			     (uintptr_t)p.b.buf, p.b.mr->rkey, 0), 0);
	for (i = 0; i < 1000; i++) {
		cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &st), 0);
		if (st.tx_pkts > st0.tx_pkts)
			break;
		usleep(1000);
	}
	cr_assert_gt(st.tx_pkts, st0.tx_pkts, "the WRITE never left");
	cr_assert_eq(ibv_destroy_qp(p.a.qp), 0);
	p.a.qp = NULL;
	usleep(50 * 1000);      /* fifty timeouts */
	faults(0, 0, 0, 0, false);
	ibv_destroy_qp(p.b.qp);
	rc_pair_connect(&p, &o);
	write_once(5);
}

/*
 * The receiver never posts: RNR_RETRY_EXC_ERR after rnr_retry waits,
 * counted by the QP; the clock only checks they were not cut short.
 */
Test(rc_faults, rnr_retry_exceeded)
{
	struct ibv_wc wc;
	struct timespec t0;
	double ms;
	struct rc_opts o = opts;
	struct rxd_qp_stats st;

	o.rnr_retry = 3;
	o.min_rnr_timer = 18;   /* 5.12 ms */
	rc_pair_connect(&p, &o);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cr_assert_eq(rc_post(&p.a, IBV_WR_SEND, 1, 0, 64, 0, 0, 0), 0);
	cr_assert_eq(rc_poll(p.a.cq, &wc, 1, 10000), 1);
	ms = elapsed_ms(&t0);
	cr_assert_eq(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	cr_assert(ms >= 3 * 5.12, "%.1f ms for 3 RNR waits of 5.12 ms", ms);
	cr_assert_eq(rxd_qp_stats(0, p.a.qp->qp_num, &st), 0);
	cr_assert_eq(st.rnr_waits, o.rnr_retry, "%" PRIu64 " RNR waits",
		     st.rnr_waits);
}
