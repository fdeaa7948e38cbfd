/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The congestion test's rxd endpoints, for two operations: RC WRITEs
 * from two senders to one receiver, or RC READs by one reader from two
 * responders (the data crosses the bottleneck towards 10.0.0.3 either
 * way).  Each flow keeps WINDOW messages of MSG bytes outstanding
 * (RXD_CC_WINDOW, default 16) for SECONDS: every WR is signaled and must
 * complete once, in order, successfully; only under heavy loss (DCQCN
 * off) may one end with IBV_WC_RETRY_EXC_ERR and the rest be flushed
 * ("RETRY_EXCEEDED ID k" is printed).
 *
 * "sender ID SOCKET SECONDS": WRITE k holds the pattern of seed
 * (ID << 24 | k) and lands in remote slot k % WINDOW.  "receiver SOCKET0
 * SOCKET1" serves one QP per sender; when a sender is done it says how
 * many messages completed successfully, and the receiver checks that
 * each of its slots holds the last message written there (not after a
 * retry-exceeded: the failed WRITEs may have landed).
 *
 * "responder ID SOCKET": slot j of its region holds the pattern of seed
 * (ID << 24 | j); it serves READs until the reader says it is done.
 * "reader SOCKET0 SOCKET1 SECONDS": READ k of flow ID fetches remote slot
 * k % WINDOW into a local slot zeroed before, checked when it completes.
 *
 * The flows' side prints its completed bytes every 100 ms ("FLOW ID t_ms
 * bytes cnp_rx retransmits rate_kbps", running totals but the rate, of
 * its own QP), each flow's goodput with the CLOCK_MONOTONIC times it
 * started and ended ("GOODPUT ID ... from T0 to T1": the script adds the
 * flows over the union of their windows).  The data sources (senders,
 * responders) print their QP counters ("SENDER ID ...") and their
 * engine's passes ("ENGINE ID loops L busy B sleeps S": a paced QP
 * waiting for tokens is not work, so the engine backs off); the sink
 * (receiver, reader) its QPs' counters ("RECEIVER ID ...") and whether
 * the data was exact.
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
#include "rxd_test_eal.h"

#define MSG 16384u
#define MAX_WINDOW 64u
#define NFLOWS 2

/* What the flows' side tells the data's other end at the end. */
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

/* One flow's stream of WRITEs or READs. */
struct stream {
	unsigned int id;
	bool read;                 /* READs from the peer, not WRITEs to it */
	struct conn c;
	struct result res;
	uint64_t posted, done;
	double t0, t1, next;       /* start, end, next trace line */
	int bad;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static enum ibv_mtu path_mtu = IBV_MTU_1024;
static unsigned int window = 16;

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

/* A QP with its CQ and a registered, zeroed buffer of a window of
 * messages. */
static int
open_qp(struct conn *c)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = window, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 } };

	memset(c, 0, sizeof(*c));
	c->sock = -1;
	c->cq = ibv_create_cq(ctx, 2 * (int)window, NULL, NULL, 0);
	c->buf = aligned_alloc(4096, MSG * window);
	c->mr = c->buf ? ibv_reg_mr(pd, c->buf, MSG * window,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ) : NULL;
	qa.send_cq = qa.recv_cq = c->cq;
	c->qp = c->cq ? ibv_create_qp(pd, &qa) : NULL;
	if (c->mr == NULL || c->qp == NULL)
		return -1;
	memset(c->buf, 0, MSG * window);
	return 0;
}

/* Connect an open QP to the peer met on socket path (the sink is
 * 10.0.0.3): from then on the peer may access its buffer. */
static int
join(struct conn *c, bool server, const char *path, uint8_t peer_ip)
{
	struct rxd_test_rc_path rp = { .rq_psn = 1, .sq_psn = 1,
		.rd_atomic = (uint8_t)window, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .path_mtu = path_mtu };
	struct peer me = { c->qp->qp_num, c->mr->rkey, (uintptr_t)c->buf };

	c->sock = rxd_test_sock_open(server, path);
	if (c->sock < 0 || write(c->sock, &me, sizeof(me)) != sizeof(me) ||
	    read(c->sock, &c->remote, sizeof(c->remote)) !=
	    sizeof(c->remote))
		return -1;
	rp.dest_qpn = c->remote.qpn;
	rxd_test_gid_v4(rp.dgid, 10, 0, 0, peer_ip);
	return rxd_test_rc_connect(c->qp, &rp);
}

static int
connect_qp(struct conn *c, bool server, const char *path, uint8_t peer_ip)
{
	return open_qp(c) == 0 ? join(c, server, path, peer_ip) : -1;
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

/* The sink's QPs, one per flow, connected on paths; on a failure those
 * made are released.  @return 0, or 2. */
static int
connect_sink(struct conn *const c[NFLOWS], char **paths)
{
	unsigned int i;

	for (i = 0; i < NFLOWS; i++)
		if (connect_qp(c[i], true, paths[i], (uint8_t)(i + 1)) != 0) {
			fprintf(stderr, "cc-flow: connect %u failed\n", i);
			do
				release(c[i]);
			while (i-- > 0);
			return 2;
		}
	return 0;
}

static uint32_t
seed_of(unsigned int id, uint64_t k)
{
	return (uint32_t)(id << 24 | (k & 0xffffff));
}

/* Post message k of a stream: a WRITE of fresh data, or a READ into a
 * zeroed slot. */
static int
post(struct stream *st, uint64_t k)
{
	struct conn *c = &st->c;
	uint32_t slot = (uint32_t)(k % window) * MSG;
	struct ibv_sge sge = { (uintptr_t)c->buf + slot, MSG, c->mr->lkey };
	struct ibv_send_wr w = { .wr_id = k, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
		*bad;

	if (st->read) {
		w.opcode = IBV_WR_RDMA_READ;
		memset(c->buf + slot, 0, MSG);
	} else {
		rxd_test_fill(c->buf + slot, MSG, seed_of(st->id, k));
	}
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
	       "cnp_tx %lu cnp_rx %lu rate_cuts %lu rate_kbps %lu rtt_us %lu\n",
	       who, id,
	       (unsigned long)st.tx_pkts, (unsigned long)st.retransmits,
	       (unsigned long)st.timeouts, (unsigned long)st.ce_rx,
	       (unsigned long)st.cnp_tx, (unsigned long)st.cnp_rx,
	       (unsigned long)st.rate_cuts, (unsigned long)st.rate_kbps,
	       (unsigned long)st.rtt_us);
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
print_flow(const struct stream *st, double t)
{
	struct rxd_qp_stats q;

	if (rxd_qp_stats(0, st->c.qp->qp_num, &q) != 0)
		memset(&q, 0, sizeof(q));
	printf("FLOW %u %.0f %lu %lu %lu %lu\n", st->id, (t - st->t0) * 1000,
	       (unsigned long)(st->res.ok * MSG), (unsigned long)q.cnp_rx,
	       (unsigned long)q.retransmits, (unsigned long)q.rate_kbps);
}

/* Completion number done of a stream: in order, successful (a READ's
 * slot holding the responder's pattern), or the retry-exceeded that ends
 * it and the flushes after.  @return 0 or 1. */
static int
judge(struct stream *st, const struct ibv_wc *wc)
{
	uint64_t k = st->done;

	if (wc->wr_id == k && wc->status == IBV_WC_SUCCESS && !st->res.failed) {
		st->res.ok++;
		if (!st->read || rxd_test_holds(st->c.buf + (k % window) * MSG,
						MSG, seed_of(st->id, k % window)))
			return 0;
		fprintf(stderr, "reader: flow %u READ %lu wrong\n", st->id,
			(unsigned long)k);
		return 1;
	}
	if (wc->wr_id == k && wc->status == IBV_WC_RETRY_EXC_ERR &&
	    !st->res.failed) {
		printf("RETRY_EXCEEDED %u %lu\n", st->id, (unsigned long)k);
		st->res.failed = 1;
		return 0;
	}
	if (wc->wr_id == k && wc->status == IBV_WC_WR_FLUSH_ERR &&
	    st->res.failed)
		return 0;
	fprintf(stderr, "flow %u: WR %lu: status %s, wr_id %lu\n", st->id,
		(unsigned long)k, ibv_wc_status_str(wc->status),
		(unsigned long)wc->wr_id);
	return 1;
}

/* One pass of a running stream: post up to the window, trace, reap.
 * @return completions reaped, or -1 once the stream has ended (all it
 * posted completed after secs or a failure, or a fault). */
static int
stream_pass(struct stream *st, double secs)
{
	struct ibv_wc wc[MAX_WINDOW];
	double t = now_s();
	int n, i;

	while (t - st->t0 < secs && !st->res.failed &&
	       st->posted - st->done < window && post(st, st->posted) == 0)
		st->posted++;
	if (st->bad || ((t - st->t0 >= secs || st->res.failed) &&
			st->done == st->posted)) {
		st->t1 = t;
		return -1;
	}
	if (t >= st->next) {
		print_flow(st, t);
		st->next += 0.1;
	}
	if (t - st->t0 > secs + 60) {
		fprintf(stderr, "flow %u: %lu WRs never completed\n", st->id,
			(unsigned long)(st->posted - st->done));
		st->bad = 1;
	}
	n = ibv_poll_cq(st->c.cq, (int)window, wc);
	for (i = 0; i < n; i++, st->done++)
		st->bad |= judge(st, &wc[i]);
	return n;
}

/* Run connected streams for secs, tell each peer the result.
 * @return 0 if every WR of every stream completed once, in order. */
static int
run_streams(struct stream *st, unsigned int n, double secs)
{
	unsigned int i, running = n;
	int bad = 0, r, reaped;

	for (i = 0; i < n; i++)
		st[i].t0 = st[i].next = now_s();
	while (running > 0) {
		running = 0;
		reaped = 0;
		for (i = 0; i < n; i++) {
			if (st[i].t1 != 0)
				continue;
			r = stream_pass(&st[i], secs);
			running += r >= 0;
			reaped += r > 0;
		}
		if (running > 0 && reaped == 0)
			usleep(50);
	}
	for (i = 0; i < n; i++) {
		printf("GOODPUT %u %lu bytes %.3f s %.1f Mbit/s from %.6f to "
		       "%.6f\n", st[i].id, (unsigned long)(st[i].res.ok * MSG),
		       st[i].t1 - st[i].t0, st[i].res.ok * MSG * 8 /
		       (st[i].t1 - st[i].t0) / 1e6, st[i].t0, st[i].t1);
		if (write(st[i].c.sock, &st[i].res, sizeof(st[i].res)) !=
		    sizeof(st[i].res))
			st[i].bad = 1;
		bad |= st[i].bad;
	}
	return bad;
}

/* WRITE for secs; @return 0 if every WR completed once, in order. */
static int
sender(unsigned int id, const char *path, double secs)
{
	struct stream st = { .id = id };
	int bad;

	if (connect_qp(&st.c, false, path, 3) != 0) {
		fprintf(stderr, "sender %u: connect failed\n", id);
		release(&st.c);
		return 2;
	}
	bad = run_streams(&st, 1, secs);
	print_counters("SENDER", id, &st.c);
	print_engine(id);
	release(&st.c);
	return bad;
}

/* READ from both responders for secs; @return 0 if every READ completed
 * once, in order, with the responder's data. */
static int
reader(char **paths, double secs)
{
	struct stream st[NFLOWS];
	struct conn *c[NFLOWS] = { &st[0].c, &st[1].c };
	unsigned int i;
	int bad;

	memset(st, 0, sizeof(st));
	if (connect_sink(c, paths) != 0)
		return 2;
	for (i = 0; i < NFLOWS; i++) {
		st[i].id = i;
		st[i].read = true;
	}
	bad = run_streams(st, NFLOWS, secs);
	for (i = 0; i < NFLOWS; i++) {
		print_counters("RECEIVER", i, c[i]);
		release(c[i]);
	}
	printf("receiver: %s\n", bad ? "DATA WRONG" : "data exact");
	return bad;
}

/* Serve the reader's READs from a region of patterns until it is done. */
static int
responder(unsigned int id, const char *path)
{
	struct result r;
	struct conn c;
	unsigned int j;
	int bad = 0;

	if (open_qp(&c) == 0)
		for (j = 0; j < window; j++)   /* before the reader may READ */
			rxd_test_fill(c.buf + j * MSG, MSG, seed_of(id, j));
	if (c.qp == NULL || c.mr == NULL || join(&c, false, path, 3) != 0) {
		fprintf(stderr, "responder %u: connect failed\n", id);
		release(&c);
		return 2;
	}
	if (read(c.sock, &r, sizeof(r)) != sizeof(r)) {
		fprintf(stderr, "responder %u: the reader vanished\n", id);
		bad = 1;
	}
	print_counters("SENDER", id, &c);
	print_engine(id);
	release(&c);
	return bad;
}

/* Slot s holds the last message written there. */
static int
check(const struct conn *c, unsigned int id, uint64_t sent)
{
	uint64_t k;
	int bad = 0;

	for (k = sent > window ? sent - window : 0; k < sent; k++)
		if (!rxd_test_holds(c->buf + (k % window) * MSG, MSG,
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
	struct conn c[NFLOWS], *cp[NFLOWS] = { &c[0], &c[1] };
	struct result r;
	unsigned int i;
	int bad = 0;

	if (connect_sink(cp, paths) != 0)
		return 2;
	for (i = 0; i < NFLOWS && bad < 2; i++) {
		if (read(c[i].sock, &r, sizeof(r)) != sizeof(r)) {
			fprintf(stderr, "receiver: sender %u vanished\n", i);
			bad = 2;
		} else if (r.failed) {
			printf("receiver: sender %u's QP failed: its last "
			       "slots are not checked\n", i);
		} else {
			bad |= check(&c[i], i, r.ok);
		}
		print_counters("RECEIVER", i, &c[i]);
	}
	if (bad < 2)
		printf("receiver: %s\n", bad ? "DATA WRONG" : "data exact");
	for (i = 0; i < NFLOWS; i++)
		release(&c[i]);
	return bad;
}

/* Path MTU and window from RXD_CC_MTU and RXD_CC_WINDOW. */
static int
settings(void)
{
	const char *mtu = getenv("RXD_CC_MTU"), *w = getenv("RXD_CC_WINDOW");

	if (mtu != NULL && strcmp(mtu, "4096") == 0)
		path_mtu = IBV_MTU_4096;
	if (w != NULL)
		window = (unsigned int)atoi(w);
	return window >= 1 && window <= MAX_WINDOW ? 0 : -1;
}

static int
run_role(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "sender") == 0)
		return sender((unsigned int)atoi(argv[2]), argv[3],
			      atof(argv[4]));
	if (argc == 4 && strcmp(argv[1], "receiver") == 0)
		return receiver(argv + 2);
	if (argc == 4 && strcmp(argv[1], "responder") == 0)
		return responder((unsigned int)atoi(argv[2]), argv[3]);
	if (argc == 5 && strcmp(argv[1], "reader") == 0)
		return reader(argv + 2, atof(argv[4]));
	fprintf(stderr, "usage: cc-flow EAL -- [rxd options] "
		"sender ID SOCKET SECONDS | receiver SOCKET0 SOCKET1 | "
		"responder ID SOCKET | reader SOCKET0 SOCKET1 SECONDS\n"
		"(RXD_CC_WINDOW: 1 to %u)\n", MAX_WINDOW);
	return 2;
}

int
main(int argc, char **argv)
{
	int rc;

	if (rxd_test_start_main("cc-flow", &argc, &argv) != 0)
		return 2;
	if (open_device() != 0) {
		fprintf(stderr, "cc-flow: %s\n", rxd_last_error());
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = settings() == 0 ? run_role(argc, argv) : run_role(0, argv);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	rxd_stop();
	rte_eal_cleanup();
	return rc;
}
