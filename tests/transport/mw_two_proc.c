/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mw-two-proc: a type 2 memory window between two rxd processes.  The
 * server binds a window on 4 KiB of its buffer with remote write and
 * sends its rkey (chosen before the bind: the key byte moved on) over a
 * UNIX socket; the client WRITEs through it, sends a SEND with Invalidate
 * of that rkey, then WRITEs through it again, which must end in
 * IBV_WC_REM_ACCESS_ERR.  The server checks the first WRITE's bytes, the
 * invalidated rkey of its receive, the QP access error event, and that the
 * second WRITE left the window untouched.  Exit 0 only if all held.
 *
 * Usage: mw-two-proc EAL... -- [rxd options] server|client SOCKET_PATH
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_test_qp.h"
#include "rxd_test_pattern.h"
#include "rxd_test_sock.h"
#include "rxd_test_eal.h"

#define BUF 16384u
#define WIN_OFF 4096u
#define WIN_LEN 4096u

struct peer {
	uint32_t qpn;
	uint32_t rkey;                 /* server: its window's */
	uint64_t addr;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static uint8_t *buf;
static int failures;

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)

/* One completion within 20 s; status -1 when none came. */
static struct ibv_wc
wait_wc(void)
{
	struct timespec t0, t;
	struct ibv_wc wc = { .status = (enum ibv_wc_status)-1 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (ibv_poll_cq(cq, 1, &wc) == 1)
			return wc;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 20);
	wc.status = (enum ibv_wc_status)-1;
	return wc;
}

static void
expect(const char *what, enum ibv_wc_status st)
{
	struct ibv_wc wc = wait_wc();

	if (wc.status != st)
		FAIL("%s: status %d, want %s", what, (int)wc.status,
		     ibv_wc_status_str(st));
}

static void
setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 } };

	if (list == NULL || list[0] == NULL) {
		fprintf(stderr, "mw-two-proc: no device: %s\n",
			rxd_last_error());
		exit(2);
	}
	ctx = ibv_open_device(list[0]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	buf = aligned_alloc(4096, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_MW_BIND);
	qa.send_cq = qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	if (!ctx || !pd || !cq || !buf || !mr || !qp) {
		fprintf(stderr, "mw-two-proc: verbs setup failed\n");
		exit(2);
	}
	memset(buf, 0, BUF);
	ibv_free_device_list(list);
}

static int
post(enum ibv_wr_opcode op, uint32_t len, const struct peer *r, uint32_t inv)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED }, *bad;

	w.wr.rdma.remote_addr = r->addr + WIN_OFF;
	w.wr.rdma.rkey = r->rkey;
	w.invalidate_rkey = inv;
	return ibv_post_send(qp, &w, &bad);
}

static void
client(const struct peer *r)
{
	rxd_test_fill(buf, WIN_LEN, 1);
	if (post(IBV_WR_RDMA_WRITE, WIN_LEN, r, 0))
		FAIL("post WRITE");
	expect("WRITE through the window", IBV_WC_SUCCESS);
	if (post(IBV_WR_SEND_WITH_INV, 0, r, r->rkey))
		FAIL("post SEND_WITH_INV");
	expect("SEND with Invalidate", IBV_WC_SUCCESS);
	rxd_test_fill(buf, WIN_LEN, 2);
	if (post(IBV_WR_RDMA_WRITE, WIN_LEN, r, 0))
		FAIL("post second WRITE");
	expect("WRITE through the invalidated window", IBV_WC_REM_ACCESS_ERR);
}

static void
bind_window(struct ibv_mw *mw, uint32_t rkey)
{
	struct ibv_send_wr w = { .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED }, *bad;

	w.bind_mw.mw = mw;
	w.bind_mw.rkey = rkey;
	w.bind_mw.bind_info = (struct ibv_mw_bind_info){ .mr = mr,
		.addr = (uintptr_t)buf + WIN_OFF, .length = WIN_LEN,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE };
	if (ibv_post_send(qp, &w, &bad))
		FAIL("post BIND_MW");
	expect("BIND_MW", IBV_WC_SUCCESS);
}

/* The access error the second WRITE raises on the server's QP (port
 * events may come first). */
static void
wait_access_error(void)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	enum ibv_event_type t;

	do {
		if (poll(&p, 1, 20000) != 1 || ibv_get_async_event(ctx, &ev)) {
			FAIL("no QP access error event");
			return;
		}
		t = ev.event_type;
		ibv_ack_async_event(&ev);
	} while (t == IBV_EVENT_PORT_ACTIVE || t == IBV_EVENT_PORT_ERR ||
		 t == IBV_EVENT_GID_CHANGE);
	if (t != IBV_EVENT_QP_ACCESS_ERR)
		FAIL("event %s", ibv_event_type_str(t));
}

static void
server(struct ibv_mw *mw, uint32_t rkey, int s)
{
	struct ibv_sge sge = { (uintptr_t)buf, 0, mr->lkey };
	struct ibv_recv_wr rw = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc;

	bind_window(mw, rkey);
	if (ibv_post_recv(qp, &rw, &bad) || write(s, "R", 1) != 1)
		FAIL("post receive");
	wc = wait_wc();
	if (wc.status != IBV_WC_SUCCESS || !(wc.wc_flags & IBV_WC_WITH_INV) ||
	    wc.invalidated_rkey != rkey)
		FAIL("receive: status %d, invalidated rkey %#x, want %#x",
		     (int)wc.status, wc.invalidated_rkey, rkey);
	if (!rxd_test_holds(buf + WIN_OFF, WIN_LEN, 1))
		FAIL("the WRITE through the window differs");
	wait_access_error();
	if (!rxd_test_holds(buf + WIN_OFF, WIN_LEN, 1))
		FAIL("the WRITE through the invalidated window wrote");
}

int
main(int argc, char **argv)
{
	struct rxd_test_rc_path path = { .rq_psn = 0x100, .sq_psn = 0x100,
		.rd_atomic = 1, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.path_mtu = IBV_MTU_1024 };
	int s;
	struct ibv_mw *mw = NULL;
	struct peer me, peer;
	bool is_server;
	char r;

	if (rxd_test_start_main("mw-two-proc", &argc, &argv) != 0)
		return 2;
	if (argc < 3) {
		fprintf(stderr, "usage: mw-two-proc EAL -- [rxd options] "
			"server|client SOCKET\n");
		return 2;
	}
	is_server = strcmp(argv[1], "server") == 0;
	setup();
	me = (struct peer){ qp->qp_num, 0, (uintptr_t)buf };
	if (is_server) {
		mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
		if (mw == NULL)
			return 2;
		me.rkey = ibv_inc_rkey(mw->rkey);
	}
	s = rxd_test_sock_open(is_server, argv[2]);
	if (s < 0 || write(s, &me, sizeof(me)) != sizeof(me) ||
	    read(s, &peer, sizeof(peer)) != sizeof(peer)) {
		fprintf(stderr, "mw-two-proc: exchange failed\n");
		return 2;
	}
	path.dest_qpn = peer.qpn;
	rxd_test_gid_v4(path.dgid, 10, 0, 0, is_server ? 2 : 1);
	if (rxd_test_rc_connect(qp, &path))
		FAIL("INIT/RTR/RTS");
	if (is_server)
		server(mw, me.rkey, s);
	else if (read(s, &r, 1) == 1)
		client(&peer);
	else
		FAIL("the server never got ready");
	close(s);
	printf("%s: %s\n", argv[1], failures ? "FAILED" : "all checks passed");
	ibv_destroy_qp(qp);
	if (mw != NULL)
		ibv_dealloc_mw(mw);
	rxd_stop();
	rte_eal_cleanup();
	return failures ? 1 : 0;
}
