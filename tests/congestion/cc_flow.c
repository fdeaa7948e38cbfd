/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The congestion test's rxd endpoints.  "sender ID SOCKET SECONDS" streams
 * RC WRITEs of MSG bytes, DEPTH outstanding, for SECONDS: every WR is
 * signaled and must complete once, in order, successfully; only under
 * heavy loss (DCQCN off) may one end with IBV_WC_RETRY_EXC_ERR and the
 * rest be flushed ("RETRY_EXCEEDED ID k" is printed); message k
 * holds the pattern of seed (ID << 24 | k) and lands in remote slot
 * k % DEPTH.  It prints its completed bytes every 100 ms ("FLOW ID t_ms
 * bytes cnp_rx retransmits rate_kbps", running totals but the rate),
 * its goodput with the CLOCK_MONOTONIC times it started and ended
 * ("GOODPUT ID ... from T0 to T1": the script adds the flows over the
 * union of their windows), its QP counters ("SENDER ID ...") and its
 * engine's passes ("ENGINE ID loops L busy B sleeps S": a paced QP
 * waiting for tokens is not work, so the engine backs off).
 * "receiver SOCKET0 SOCKET1" serves one QP per sender; when a sender is
 * done it says how many messages completed successfully, and the
 * receiver checks that each of its slots holds the last message written
 * there (not after a retry-exceeded: the failed WRITEs may have landed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_stack.h"
#include "rxd_test_pattern.h"
#include "rxd_test_qp.h"
#include "rxd_test_sock.h"

#define MSG 16384u
#define DEPTH 16u
#define REGION (MSG * DEPTH)
#define NSENDERS 2

/* What a sender tells the receiver at the end. */
struct result {
	uint64_t ok;               /* messages completed successfully */
	uint64_t failed;           /* 1 if the QP ended in retry-exceeded */
};

struct peer {
	uint32_t qpn, rkey;
	uint64_t addr;
};

struct conn {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	int sock;
	struct peer remote;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static enum ibv_mtu path_mtu = IBV_MTU_1024;

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
open_device(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (list == NULL || list[0] == NULL)
		return -1;
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	return pd ? 0 : -1;
}

/* A QP with its CQ and a registered buffer of REGION bytes, connected
 * to the peer met on socket path (the receiver at 10.0.0.3). */
static int
connect_qp(struct conn *c, bool server, const char *path, uint8_t peer_ip)
{
	struct rxd_test_rc_path rp = { .rq_psn = 1, .sq_psn = 1,
		.rd_atomic = 1, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .path_mtu = path_mtu };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct peer me;

	memset(c, 0, sizeof(*c));
	c->sock = -1;

	c->cq = ibv_create_cq(ctx, 2 * DEPTH, NULL, NULL, 0);
	c->buf = aligned_alloc(4096, REGION);
	c->mr = c->buf ? ibv_reg_mr(pd, c->buf, REGION,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
	qa.send_cq = qa.recv_cq = c->cq;
	c->qp = c->cq ? ibv_create_qp(pd, &qa) : NULL;
	if (c->mr == NULL || c->qp == NULL)
		return -1;
	memset(c->buf, 0, REGION);
	me = (struct peer){ c->qp->qp_num, c->mr->rkey, (uintptr_t)c->buf };
	c->sock = rxd_test_sock_open(server, path);
	if (c->sock < 0 || write(c->sock, &me, sizeof(me)) != sizeof(me) ||
	    read(c->sock, &c->remote, sizeof(c->remote)) !=
	    sizeof(c->remote))
		return -1;
	rp.dest_qpn = c->remote.qpn;
	rxd_test_gid_v4(rp.dgid, 10, 0, 0, peer_ip);
	return rxd_test_rc_connect(c->qp, &rp);
}

static void
release(struct conn *c)
{
	if (c->qp != NULL)
		ibv_destroy_qp(c->qp);
	if (c->mr != NULL)
		ibv_dereg_mr(c->mr);
	if (c->cq != NULL)
		ibv_destroy_cq(c->cq);
	free(c->buf);
	if (c->sock >= 0)
		close(c->sock);
}

static uint32_t
seed_of(unsigned int id, uint64_t k)
{
	return (uint32_t)(id << 24 | (k & 0xffffff));
}

static int
post_write(struct conn *c, unsigned int id, uint64_t k)
{
	uint32_t slot = (uint32_t)(k % DEPTH) * MSG;
	struct ibv_sge sge = { (uintptr_t)c->buf + slot, MSG, c->mr->lkey };
	struct ibv_send_wr w = { .wr_id = k, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
		*bad;

	rxd_test_fill(c->buf + slot, MSG, seed_of(id, k));
	w.wr.rdma.remote_addr = c->remote.addr + slot;
	w.wr.rdma.rkey = c->remote.rkey;
	return ibv_post_send(c->qp, &w, &bad);
}

static void
print_counters(const char *who, unsigned int id, const struct conn *c)
{
	struct rxd_qp_stats st;

	if (rxd_qp_stats(0, c->qp->qp_num, &st) != 0)
		return;
	printf("%s %u tx_pkts %lu retransmits %lu timeouts %lu ce_rx %lu "
	       "cnp_tx %lu cnp_rx %lu rate_cuts %lu rate_kbps %lu\n", who, id,
	       (unsigned long)st.tx_pkts, (unsigned long)st.retransmits,
	       (unsigned long)st.timeouts, (unsigned long)st.ce_rx,
	       (unsigned long)st.cnp_tx, (unsigned long)st.cnp_rx,
	       (unsigned long)st.rate_cuts, (unsigned long)st.rate_kbps);
}

/* The passes of the engine (one: EAL lcores 0-1) since the start. */
static void
print_engine(unsigned int id)
{
	const struct rxd_engine_stats *st = &rxd_stk.engines[0].stats;

	printf("ENGINE %u loops %lu busy %lu sleeps %lu\n", id,
	       (unsigned long)st->loops, (unsigned long)st->busy_loops,
	       (unsigned long)st->sleeps);
}

/* One line of the per-interval trace. */
static void
print_flow(unsigned int id, double t_ms, uint64_t bytes, const struct conn *c)
{
	struct rxd_qp_stats st;

	if (rxd_qp_stats(0, c->qp->qp_num, &st) != 0)
		memset(&st, 0, sizeof(st));
	printf("FLOW %u %.0f %lu %lu %lu %lu\n", id, t_ms,
	       (unsigned long)bytes, (unsigned long)st.cnp_rx,
	       (unsigned long)st.retransmits, (unsigned long)st.rate_kbps);
}

/* Completion number done of a stream: in order, successful, or the
 * retry-exceeded that ends it and the flushes after.  @return 0 or 1. */
static int
judge(unsigned int id, uint64_t done, const struct ibv_wc *wc,
      struct result *r)
{
	if (wc->wr_id == done && wc->status == IBV_WC_SUCCESS && !r->failed) {
		r->ok++;
		return 0;
	}
	if (wc->wr_id == done && wc->status == IBV_WC_RETRY_EXC_ERR &&
	    !r->failed) {
		printf("RETRY_EXCEEDED %u %lu\n", id, (unsigned long)done);
		r->failed = 1;
		return 0;
	}
	if (wc->wr_id == done && wc->status == IBV_WC_WR_FLUSH_ERR &&
	    r->failed)
		return 0;
	fprintf(stderr, "sender %u: WR %lu: status %s, wr_id %lu\n", id,
		(unsigned long)done, ibv_wc_status_str(wc->status),
		(unsigned long)wc->wr_id);
	return 1;
}

/* Stream for secs; @return 0 if every WR completed once, in order. */
static int
sender(unsigned int id, const char *path, double secs)
{
	struct result res = { 0, 0 };
	struct conn c;
	uint64_t posted = 0, done = 0;
	double t0, next, t;
	struct ibv_wc wc[DEPTH];
	int n, i, bad = 0;

	if (connect_qp(&c, false, path, 3) != 0) {
		fprintf(stderr, "sender %u: connect failed\n", id);
		release(&c);
		return 2;
	}
	t0 = now_s();
	next = t0;
	while (bad == 0) {
		t = now_s();
		while (t - t0 < secs && !res.failed && posted - done < DEPTH &&
		       post_write(&c, id, posted) == 0)
			posted++;
		if ((t - t0 >= secs || res.failed) && done == posted)
			break;
		if (t >= next) {
			print_flow(id, (t - t0) * 1000, res.ok * MSG, &c);
			next += 0.1;
		}
		if (t - t0 > secs + 60) {
			fprintf(stderr, "sender %u: %lu WRs never completed\n",
				id, (unsigned long)(posted - done));
			bad = 1;
		}
		n = ibv_poll_cq(c.cq, DEPTH, wc);
		for (i = 0; i < n; i++, done++)
			bad |= judge(id, done, &wc[i], &res);
		if (n == 0)
			usleep(50);
	}
	t = now_s();
	printf("GOODPUT %u %lu bytes %.3f s %.1f Mbit/s from %.6f to %.6f\n",
	       id, (unsigned long)(res.ok * MSG), t - t0,
	       res.ok * MSG * 8 / (t - t0) / 1e6, t0, t);
	print_counters("SENDER", id, &c);
	print_engine(id);
	if (write(c.sock, &res, sizeof(res)) != sizeof(res))
		bad = 1;
	release(&c);
	return bad;
}

/* Slot s holds the last message written there. */
static int
check(const struct conn *c, unsigned int id, uint64_t sent)
{
	uint64_t k;
	int bad = 0;

	for (k = sent > DEPTH ? sent - DEPTH : 0; k < sent; k++)
		if (!rxd_test_holds(c->buf + (k % DEPTH) * MSG, MSG,
				    seed_of(id, k))) {
			fprintf(stderr, "receiver: sender %u message %lu "
				"wrong\n", id, (unsigned long)k);
			bad = 1;
		}
	return bad;
}

static int
receiver(char **paths)
{
	struct conn c[NSENDERS];
	struct result r;
	unsigned int i, up;
	int bad = 0;

	for (up = 0; up < NSENDERS; up++)
		if (connect_qp(&c[up], true, paths[up], (uint8_t)(up + 1))) {
			fprintf(stderr, "receiver: connect %u failed\n", up);
			bad = 2;
			up++;
			goto out;
		}
	for (i = 0; i < NSENDERS; i++) {
		if (read(c[i].sock, &r, sizeof(r)) != sizeof(r)) {
			fprintf(stderr, "receiver: sender %u vanished\n", i);
			bad = 1;
			goto out;
		}
		if (r.failed)
			printf("receiver: sender %u's QP failed: its last "
			       "slots are not checked\n", i);
		else
			bad |= check(&c[i], i, r.ok);
		print_counters("RECEIVER", i, &c[i]);
	}
	printf("receiver: %s\n", bad ? "DATA WRONG" : "data exact");
out:
	for (i = 0; i < up; i++)
		release(&c[i]);
	return bad;
}

int
main(int argc, char **argv)
{
	int n = rte_eal_init(argc, argv), rc;

	if (n < 0)
		return 2;
	argc -= n;
	argv += n;
	if (rxd_start(&argc, argv) != 0 || open_device() != 0) {
		fprintf(stderr, "cc-flow: %s\n", rxd_last_error());
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("RXD_CC_MTU") != NULL &&
	    strcmp(getenv("RXD_CC_MTU"), "4096") == 0)
		path_mtu = IBV_MTU_4096;
	if (argc == 5 && strcmp(argv[1], "sender") == 0)
		rc = sender((unsigned int)atoi(argv[2]), argv[3], atof(argv[4]));
	else if (argc == 4 && strcmp(argv[1], "receiver") == 0)
		rc = receiver(argv + 2);
	else {
		fprintf(stderr, "usage: cc-flow EAL -- [rxd options] "
			"sender ID SOCKET SECONDS | receiver SOCKET0 SOCKET1\n");
		rc = 2;
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	rxd_stop();
	rte_eal_cleanup();
	return rc;
}
