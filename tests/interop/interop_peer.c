/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * interop-peer: one end of the interop suite's verbs checks that Debian's
 * tools do not make: memory windows and the IBTA 1.5 placement
 * operations between rxd and Linux Soft-RoCE.  Built against the host's
 * libibverbs (Debian 12, rdma-core 44), so the same binary runs on rxd
 * (the compat libibverbs.so.1) and in the Debian 12 guest on rdma_rxe.
 *
 *   interop-peer server TEST PORT GID_INDEX
 *   interop-peer client TEST HOST PORT GID_INDEX
 *
 * The server owns the target memory, the client sends the requests; QP
 * numbers, GIDs, address and rkey go over TCP, as perftest does.  TEST:
 *   mw      the server binds a type 2 window (IBV_WR_BIND_MW) on 4 KiB of
 *           its buffer; the client WRITEs 64 bytes through it, then sends
 *           a SEND with Invalidate of its rkey: the server's receive must
 *           report it (IBV_WC_WITH_INV), the bytes must be there; a second
 *           WRITE through the rkey must end IBV_WC_REM_ACCESS_ERR and leave
 *           the bytes unchanged.
 *   aw      the client's ATOMIC WRITE (ibv_wr_atomic_write) of 8 bytes
 *           must land in the server's memory whole.
 *   awf     aw, then a FLUSH (global visibility) of the range, through
 *           rxd's <rxd/rxd_flush.h> (rdma-core 44 has no ibv_wr_flush):
 *           only rxd can be this client.
 *   ka      rxd's keepalive (the client runs on rxd with a short
 *           keepalive_ms): a SEND each way, then both idle KA_IDLE_S;
 *           the client's QP must still be RTS with no async event (its
 *           probes were answered: the script counts them in rxd's
 *           capture) and a SEND each way must still work; then the
 *           server destroys its QP and says so: the client's posted
 *           receive must flush (IBV_WC_WR_FLUSH_ERR) and
 *           IBV_EVENT_QP_FATAL must name its QP.
 * Exit 0 when every check passed, 1 otherwise (a line says which).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "rxd/rxd_flush.h"

#define BUF_LEN 8192u
#define WIN_OFF 4096u
#define WIN_LEN 4096u
#define AW_VALUE 0x0123456789abcdefull
#define POLL_MS 10000
#define KA_IDLE_S 3
/* rdma_rxe's receive completion of a SEND with Invalidate carries the
 * kernel's IB_WC_WITH_INVALIDATE (1 << 2) into wc_flags unconverted, where
 * libibverbs has IBV_WC_IP_CSUM_OK; its IBV_WC_WITH_INV bit stays 0. */
#define RXE_WC_WITH_INV (1u << 2)

/* What each side tells the other. */
struct wire_info {
	uint32_t qpn, psn, rkey, pad;
	uint64_t addr;
	uint8_t gid[16];
};

struct peer {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_mr *mr;
	uint8_t *buf;
	int gid_index;
	int sock;
	const char *test;
};

static int
die(const char *what)
{
	fprintf(stderr, "interop-peer: %s (%s)\n", what, strerror(errno));
	exit(1);
}

static void
fail(const char *what)
{
	printf("FAIL: %s\n", what);
	exit(1);
}

static int
is_test(const struct peer *p, const char *name)
{
	return strcmp(p->test, name) == 0;
}

static int
wants_flush(const struct peer *p)
{
	return is_test(p, "awf");
}

static unsigned int
mr_access(const struct peer *p)
{
	unsigned int a = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ;

	if (is_test(p, "mw"))
		a |= IBV_ACCESS_MW_BIND;
	if (wants_flush(p))
		a |= RXD_ACCESS_FLUSH_GLOBAL;
	return a;
}

static void
open_device(struct peer *p)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (list == NULL || list[0] == NULL)
		die("no RDMA device");
	p->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (p->ctx == NULL)
		die("ibv_open_device");
	p->pd = ibv_alloc_pd(p->ctx);
	p->cq = ibv_create_cq(p->ctx, 64, NULL, NULL, 0);
	p->buf = aligned_alloc(4096, BUF_LEN);
	if (p->pd == NULL || p->cq == NULL || p->buf == NULL)
		die("PD, CQ or buffer");
	memset(p->buf, 0, BUF_LEN);
	p->mr = ibv_reg_mr(p->pd, p->buf, BUF_LEN, (int)mr_access(p));
	if (p->mr == NULL)
		die("ibv_reg_mr");
}

static void
create_qp(struct peer *p, int client)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = p->cq, .recv_cq = p->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = p->pd,
	};

	if (client && !is_test(p, "mw")) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE |
			(wants_flush(p) ? RXD_QP_EX_WITH_FLUSH : 0);
	}
	p->qp = ibv_create_qp_ex(p->ctx, &a);
	if (p->qp == NULL)
		die("ibv_create_qp_ex");
	if (a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		p->qpx = ibv_qp_to_qp_ex(p->qp);
}

static void
modify(struct peer *p, struct ibv_qp_attr *a, int mask, const char *what)
{
	if (ibv_modify_qp(p->qp, a, mask) != 0)
		die(what);
}

static void
connect_qp(struct peer *p, const struct wire_info *me,
	   const struct wire_info *peer)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = (int)(mr_access(p) & ~IBV_ACCESS_MW_BIND);
	modify(p, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
	a.ah_attr.grh.sgid_index = (uint8_t)p->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	modify(p, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = me->psn;
	a.max_rd_atomic = 1;
	modify(p, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	       "RTS");
}

static void
xfer(int fd, void *b, size_t n, int out)
{
	while (n > 0) {
		ssize_t r = out ? write(fd, b, n) : read(fd, b, n);

		if (r <= 0)
			die(out ? "TCP write" : "TCP read (peer gone)");
		b = (uint8_t *)b + r;
		n -= (size_t)r;
	}
}

static void
token_send(struct peer *p, char t)
{
	xfer(p->sock, &t, 1, 1);
}

static void
token_wait(struct peer *p, char want)
{
	char t;

	xfer(p->sock, &t, 1, 0);
	if (t != want)
		fail("the peer reported a failure");
}

static int
tcp_socket(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = host ? 0 : AI_PASSIVE };
	struct addrinfo *ai;
	int fd, conn, one = 1, tries;

	if (getaddrinfo(host, port, &hints, &ai) != 0)
		die("getaddrinfo");
	fd = socket(ai->ai_family, ai->ai_socktype, 0);
	if (fd < 0)
		die("socket");
	if (host != NULL) {
		for (tries = 0; connect(fd, ai->ai_addr, ai->ai_addrlen) != 0;
		     tries++) {
			if (tries == 60)
				die("connect");
			sleep(1);
		}
		freeaddrinfo(ai);
		return fd;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 1) != 0)
		die("bind/listen");
	freeaddrinfo(ai);
	conn = accept(fd, NULL, NULL);
	if (conn < 0)
		die("accept");
	close(fd);
	return conn;
}

static struct ibv_wc
poll_one(struct peer *p, const char *what)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((n = ibv_poll_cq(p->cq, 1, &wc)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > POLL_MS) {
			printf("FAIL: no completion for %s\n", what);
			exit(1);
		}
	}
	if (n < 0)
		die("ibv_poll_cq");
	return wc;
}

static void
expect_status(struct peer *p, enum ibv_wc_status want, const char *what)
{
	struct ibv_wc wc = poll_one(p, what);

	if (wc.status != want) {
		printf("FAIL: %s: %s, want %s\n", what,
		       ibv_wc_status_str(wc.status), ibv_wc_status_str(want));
		exit(1);
	}
	printf("PASS: %s: %s\n", what, ibv_wc_status_str(wc.status));
}

static void
post(struct peer *p, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad;

	errno = ibv_post_send(p->qp, wr, &bad);
	if (errno != 0)
		die(what);
}

static int
bytes_are(const uint8_t *at, uint8_t v, size_t n)
{
	while (n-- > 0)
		if (*at++ != v)
			return 0;
	return 1;
}

/* Server side of "mw": bind, take the WRITE and the SEND with Invalidate,
 * then see the second WRITE refused. */
static void
serve_mw(struct peer *p, struct wire_info *me)
{
	struct ibv_mw *mw = ibv_alloc_mw(p->pd, IBV_MW_TYPE_2);
	struct ibv_sge sge = { (uintptr_t)p->buf, 64, p->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	uint32_t rkey;

	if (mw == NULL)
		die("ibv_alloc_mw type 2");
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = p->mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)p->buf + WIN_OFF;
	wr.bind_mw.bind_info.length = WIN_LEN;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	post(p, &wr, "post BIND_MW");
	expect_status(p, IBV_WC_SUCCESS, "bind a type 2 window");
	if (ibv_post_recv(p->qp, &rwr, &rbad) != 0)
		die("ibv_post_recv");
	me->addr = (uintptr_t)p->buf + WIN_OFF;
	me->rkey = rkey;
	xfer(p->sock, me, sizeof(*me), 1);
	token_wait(p, 'W');
	wc = poll_one(p, "the SEND with Invalidate");
	if (wc.status != IBV_WC_SUCCESS ||
	    !(wc.wc_flags & (IBV_WC_WITH_INV | RXE_WC_WITH_INV)) ||
	    wc.invalidated_rkey != rkey) {
		printf("FAIL: receive of the SEND with Invalidate: %s, flags "
		       "%#x, invalidated rkey %#x (window %#x)\n",
		       ibv_wc_status_str(wc.status), wc.wc_flags,
		       wc.invalidated_rkey, rkey);
		exit(1);
	}
	printf("PASS: SEND with Invalidate received, rkey %#x invalidated\n",
	       rkey);
	if (!bytes_are(p->buf + WIN_OFF + 64, 0xa5, 64))
		fail("the WRITE through the window did not land");
	printf("PASS: WRITE through the window landed\n");
	token_send(p, 'I');
	token_wait(p, 'X');
	if (!bytes_are(p->buf + WIN_OFF + 64, 0xa5, 64))
		fail("a WRITE through the invalidated rkey changed memory");
	printf("PASS: the invalidated rkey wrote nothing\n");
}

static void
write_through(struct peer *p, const struct wire_info *peer, uint8_t fill)
{
	struct ibv_sge sge = { (uintptr_t)p->buf, 64, p->mr->lkey };
	struct ibv_send_wr wr;

	memset(p->buf, fill, 64);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = peer->addr + 64;
	wr.wr.rdma.rkey = peer->rkey;
	post(p, &wr, "post WRITE");
}

static void
use_mw(struct peer *p, const struct wire_info *peer)
{
	struct ibv_sge sge = { (uintptr_t)p->buf + 256, 8, p->mr->lkey };
	struct ibv_send_wr wr;

	write_through(p, peer, 0xa5);
	expect_status(p, IBV_WC_SUCCESS, "WRITE through the type 2 window");
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND_WITH_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.invalidate_rkey = peer->rkey;
	post(p, &wr, "post SEND_WITH_INV");
	expect_status(p, IBV_WC_SUCCESS, "SEND with Invalidate");
	token_send(p, 'W');
	token_wait(p, 'I');
	write_through(p, peer, 0x5a);
	expect_status(p, IBV_WC_REM_ACCESS_ERR,
		      "WRITE through the invalidated rkey");
	token_send(p, 'X');
}

static void
serve_aw(struct peer *p, struct wire_info *me)
{
	uint64_t v;

	me->addr = (uintptr_t)p->buf;
	me->rkey = p->mr->rkey;
	xfer(p->sock, me, sizeof(*me), 1);
	token_wait(p, 'D');
	memcpy(&v, p->buf + 8, sizeof(v));
	if (v != AW_VALUE)
		fail("the ATOMIC WRITE did not land");
	printf("PASS: ATOMIC WRITE landed (%#llx)\n", (unsigned long long)v);
}

static void
use_aw(struct peer *p, const struct wire_info *peer)
{
	uint64_t v = AW_VALUE;

	ibv_wr_start(p->qpx);
	p->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(p->qpx, peer->rkey, peer->addr + 8, &v);
	if (ibv_wr_complete(p->qpx) != 0)
		die("ibv_wr_atomic_write");
	expect_status(p, IBV_WC_SUCCESS, "ATOMIC WRITE");
	if (wants_flush(p)) {
		ibv_wr_start(p->qpx);
		p->qpx->wr_flags = IBV_SEND_SIGNALED;
		rxd_wr_flush(p->qpx, peer->rkey, peer->addr, 64,
			     RXD_FLUSH_GLOBAL, RXD_FLUSH_RANGE);
		if (ibv_wr_complete(p->qpx) != 0)
			die("FLUSH");
		expect_status(p, IBV_WC_SUCCESS, "FLUSH (global, range)");
	}
	token_send(p, 'D');
}

static void
post_recv(struct peer *p, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)p->buf + 1024, 64, p->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(p->qp, &wr, &bad) != 0)
		die("ibv_post_recv");
}

static void
send_64(struct peer *p, const char *what)
{
	struct ibv_sge sge = { (uintptr_t)p->buf, 64, p->mr->lkey };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	post(p, &wr, what);
}

/* A SEND each way: the client's first, then the server's answer. */
static void
ping(struct peer *p, int client, const char *round)
{
	char what[64];

	post_recv(p, 7);
	if (client) {
		snprintf(what, sizeof(what), "client's SEND, %s", round);
		send_64(p, what);
		expect_status(p, IBV_WC_SUCCESS, what);
	}
	snprintf(what, sizeof(what), "receive, %s", round);
	expect_status(p, IBV_WC_SUCCESS, what);
	if (!client) {
		snprintf(what, sizeof(what), "server's SEND, %s", round);
		send_64(p, what);
		expect_status(p, IBV_WC_SUCCESS, what);
	}
}

static int
async_event(struct peer *p, int ms, struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = p->ctx->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return 0;
	if (ibv_get_async_event(p->ctx, ev) != 0)
		die("ibv_get_async_event");
	ibv_ack_async_event(ev);
	return 1;
}

static void
serve_ka(struct peer *p, struct wire_info *me)
{
	xfer(p->sock, me, sizeof(*me), 1);
	ping(p, 0, "before the idle time");
	ping(p, 0, "after the idle time");
	if (ibv_destroy_qp(p->qp) != 0)
		die("ibv_destroy_qp");
	printf("PASS: QP destroyed without a word to the client\n");
	token_send(p, 'G');
	token_wait(p, 'F');
}

static void
use_ka(struct peer *p)
{
	struct ibv_qp_init_attr ia;
	struct ibv_async_event ev;
	struct ibv_qp_attr a;

	ping(p, 1, "before the idle time");
	sleep(KA_IDLE_S);
	if (ibv_query_qp(p->qp, &a, IBV_QP_STATE, &ia) != 0)
		die("ibv_query_qp");
	if (a.qp_state != IBV_QPS_RTS)
		fail("the QP left RTS while its peer lived");
	if (async_event(p, 0, &ev))
		fail("an async event while the peer lived");
	printf("PASS: %d s idle: QP in RTS, no async event\n", KA_IDLE_S);
	ping(p, 1, "after the idle time");
	token_wait(p, 'G');
	post_recv(p, 9);
	expect_status(p, IBV_WC_WR_FLUSH_ERR, "receive posted after the "
		      "peer's QP went");
	if (!async_event(p, POLL_MS, &ev) ||
	    ev.event_type != IBV_EVENT_QP_FATAL || ev.element.qp != p->qp)
		fail("no IBV_EVENT_QP_FATAL for the QP");
	printf("PASS: IBV_EVENT_QP_FATAL\n");
	token_send(p, 'F');
}

int
main(int argc, char **argv)
{
	struct peer p = { 0 };
	struct wire_info me = { 0 }, peer;
	union ibv_gid gid;
	int client = argc == 6 && strcmp(argv[1], "client") == 0;

	if (!client && !(argc == 5 && strcmp(argv[1], "server") == 0)) {
		fprintf(stderr, "usage: %s server TEST PORT GID_INDEX\n"
			"       %s client TEST HOST PORT GID_INDEX\n",
			argv[0], argv[0]);
		return 2;
	}
	p.test = argv[2];
	if (!is_test(&p, "mw") && !is_test(&p, "aw") && !wants_flush(&p) &&
	    !is_test(&p, "ka"))
		fail("TEST is mw, aw, awf or ka");
	p.gid_index = atoi(argv[argc - 1]);
	open_device(&p);
	create_qp(&p, client);
	if (ibv_query_gid(p.ctx, 1, p.gid_index, &gid) != 0)
		die("ibv_query_gid");
	memcpy(me.gid, gid.raw, 16);
	me.qpn = p.qp->qp_num;
	me.psn = (uint32_t)getpid() & 0xffffff;
	p.sock = client ? tcp_socket(argv[3], argv[4]) :
		tcp_socket(NULL, argv[3]);
	if (client) {
		xfer(p.sock, &peer, sizeof(peer), 0);
		xfer(p.sock, &me, sizeof(me), 1);
		connect_qp(&p, &me, &peer);
		token_wait(&p, 'R');
		/* the server's address and rkey, once its QP is up */
		xfer(p.sock, &peer, sizeof(peer), 0);
		if (is_test(&p, "mw"))
			use_mw(&p, &peer);
		else if (is_test(&p, "ka"))
			use_ka(&p);
		else
			use_aw(&p, &peer);
	} else {
		xfer(p.sock, &me, sizeof(me), 1);
		xfer(p.sock, &peer, sizeof(peer), 0);
		connect_qp(&p, &me, &peer);
		token_send(&p, 'R');
		if (is_test(&p, "mw"))
			serve_mw(&p, &me);
		else if (is_test(&p, "ka"))
			serve_ka(&p, &me);
		else
			serve_aw(&p, &me);
	}
	printf("PASS: %s %s\n", argv[1], p.test);
	return 0;
}
