/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc-two-proc: RC between two rxd processes over net_memif, like two hosts.
 * Run as "server" and "client" (two programs, two EALs); they swap QP
 * details over a UNIX socket.  The client drives every opcode at every
 * size of the issue's list, with several SGEs, inline data, unsignaled
 * WRs and fences; the server checks what arrives, byte for byte, and the
 * client checks READ and atomic results.  Exit 0 only if all matched.
 *
 * Usage: rc-two-proc EAL... -- [rxd options] server|client SOCKET_PATH
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_test_pattern.h"
#include "rxd_test_qp.h"
#include "rxd_test_sock.h"
#include "rxd_test_eal.h"

#define BIG (16u << 20)
#define BUF (2 * BIG + 65536)
#define CTRL_OFF (BIG + 32768)       /* server: control receive area */

struct peer {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
};

/* What the client tells the server to check after each step. */
struct check {
	uint32_t kind;                  /* 1 = compare region, 2 = done */
	uint32_t len;
	uint64_t off;
	uint32_t seed;
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

static int
wait_wc(struct ibv_wc *wc)
{
	struct timespec t0, t;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n != 0)
			return n < 0 ? -1 : 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 20);
	return -1;
}

/* The QP's transport counters and the port's drops, for the log. */
static void
print_stats(const char *role)
{
	struct rxd_port_counters pc;
	struct rxd_qp_stats q;

	if (rxd_qp_stats(0, qp->qp_num, &q) == 0)
		printf("%s: qp tx %lu rx %lu retransmits %lu timeouts %lu "
		       "seq-naks rx %lu tx %lu duplicates %lu\n", role,
		       (unsigned long)q.tx_pkts, (unsigned long)q.rx_pkts,
		       (unsigned long)q.retransmits, (unsigned long)q.timeouts,
		       (unsigned long)q.naks_rx[0], (unsigned long)q.naks_tx[0],
		       (unsigned long)q.duplicates);
	if (rxd_port_counters(0, &pc) == 0)
		printf("%s: port tx_full %lu held_dropped %lu\n", role,
		       (unsigned long)pc.tx_full, (unsigned long)pc.held_dropped);
}

static void
setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 128 } };

	if (list == NULL || list[0] == NULL) {
		fprintf(stderr, "rc-two-proc: no device: %s\n",
			rxd_last_error());
		exit(2);
	}
	ctx = ibv_open_device(list[0]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	buf = aligned_alloc(4096, BUF);
	memset(buf, 0, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC);
	qa.send_cq = qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	if (!ctx || !pd || !cq || !mr || !qp) {
		fprintf(stderr, "rc-two-proc: verbs setup failed\n");
		exit(2);
	}
	ibv_free_device_list(list);
}

static void
connect_qp(const struct peer *r, uint8_t peer_octet)
{
	struct rxd_test_rc_path p = { .dest_qpn = r->qpn, .rq_psn = 0xffff00,
		.sq_psn = 0xffff00, .rd_atomic = 4, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7 };
	struct ibv_port_attr pa;

	if (ibv_query_port(ctx, 1, &pa)) {
		fprintf(stderr, "rc-two-proc: cannot query port 1\n");
		exit(2);
	}
	printf("rc-two-proc: path MTU %d\n", 128 << pa.active_mtu);
	p.path_mtu = pa.active_mtu;
	rxd_test_gid_v4(p.dgid, 10, 0, 0, peer_octet);
	if (rxd_test_rc_connect(qp, &p))
		FAIL("INIT/RTR/RTS");
}

static int
post_recv(uint64_t id, uint64_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)buf + off, len, mr->lkey };
	struct ibv_recv_wr w = { .wr_id = id, .sg_list = &s, .num_sge = 1 },
		*bad;

	return ibv_post_recv(qp, &w, &bad);
}

/*
 * Each step the client sends two messages: a data SEND (or the WRITE with
 * immediate, or an empty SEND after a plain WRITE) into the data area, then
 * a control SEND naming what to check.  RC keeps them in order.
 */
enum check_kind { CHECK_SEND = 1, CHECK_DONE = 2, CHECK_WRITE = 3 };

#define WRITE_OFF (BIG + 65536)

static void
serve(void)
{
	struct ibv_wc wc;
	struct check c;
	uint32_t got;

	for (;;) {
		if (post_recv(2, 0, BIG + 1) ||
		    post_recv(1, CTRL_OFF, sizeof(c))) {
			FAIL("post_recv");
			return;
		}
		if (wait_wc(&wc) || wc.wr_id != 2 ||
		    wc.status != IBV_WC_SUCCESS) {
			FAIL("data receive: %s", ibv_wc_status_str(wc.status));
			return;
		}
		got = wc.byte_len;
		if (wait_wc(&wc) || wc.wr_id != 1 ||
		    wc.status != IBV_WC_SUCCESS) {
			FAIL("control receive");
			return;
		}
		memcpy(&c, buf + CTRL_OFF, sizeof(c));
		if (c.kind == CHECK_DONE)
			return;
		if (c.kind == CHECK_SEND &&
		    (got != c.len || !rxd_test_holds(buf, c.len, c.seed)))
			FAIL("SEND of %u bytes: got %u bytes, data %s", c.len,
			     got, rxd_test_holds(buf, c.len, c.seed) ? "ok" :
			     "differs");
		if (c.kind == CHECK_WRITE &&
		    !rxd_test_holds(buf + c.off, c.len, c.seed))
			FAIL("WRITE of %u bytes differs", c.len);
	}
}

/* Post one WR of up to 3 SGEs; wait for signaled completions. */
static int
post(enum ibv_wr_opcode op, struct ibv_sge *sge, int n, unsigned int flags,
     const struct peer *r, uint64_t roff)
{
	struct ibv_send_wr w = { .sg_list = sge, .num_sge = n, .opcode = op,
		.send_flags = flags, .imm_data = htobe32(0x1234) }, *bad;

	w.wr.rdma.remote_addr = r->addr + roff;
	w.wr.rdma.rkey = r->rkey;
	return ibv_post_send(qp, &w, &bad);
}

static void
done(const char *what, unsigned int n)
{
	struct ibv_wc wc;

	while (n--)
		if (wait_wc(&wc) || wc.status != IBV_WC_SUCCESS)
			FAIL("%s: %s", what, ibv_wc_status_str(wc.status));
}

static void
control(const struct peer *r, uint32_t kind, uint32_t len, uint64_t off,
	uint32_t seed)
{
	struct check c = { kind, len, off, seed };
	struct ibv_sge sge = { (uintptr_t)buf + CTRL_OFF, sizeof(c), mr->lkey };

	memcpy(buf + CTRL_OFF, &c, sizeof(c));
	post(IBV_WR_SEND, &sge, 1, IBV_SEND_SIGNALED, r, 0);
	done("control SEND", 1);
}

static void
step_send(const struct peer *r, enum ibv_wr_opcode op, uint32_t len,
	  uint32_t seed)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, mr->lkey };

	rxd_test_fill(buf, len, seed);
	post(op, &sge, 1, IBV_SEND_SIGNALED, r, 0);
	done("SEND", 1);
	control(r, CHECK_SEND, len, 0, seed);
}

static void
step_write_read(const struct peer *r, enum ibv_wr_opcode op, uint32_t len,
		uint32_t seed)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_sge back = { (uintptr_t)buf + WRITE_OFF, len, mr->lkey };
	struct ibv_sge none = { (uintptr_t)buf, 0, mr->lkey };

	rxd_test_fill(buf, len, seed);
	post(op, &sge, 1, IBV_SEND_SIGNALED, r, WRITE_OFF);
	done("WRITE", 1);
	if (op == IBV_WR_RDMA_WRITE) {   /* the data receive: an empty SEND */
		post(IBV_WR_SEND, &none, 1, IBV_SEND_SIGNALED, r, 0);
		done("empty SEND", 1);
	}
	control(r, CHECK_WRITE, len, WRITE_OFF, seed);
	memset(buf + WRITE_OFF, 0, len);
	post(IBV_WR_RDMA_READ, &back, 1, IBV_SEND_SIGNALED, r, WRITE_OFF);
	done("READ", 1);
	if (!rxd_test_holds(buf + WRITE_OFF, len, seed))
		FAIL("READ of %u bytes differs", len);
}

static void
step_sge_inline_unsignaled(const struct peer *r)
{
	struct ibv_sge g[3] = {
		{ (uintptr_t)buf, 1000, mr->lkey },
		{ (uintptr_t)buf + 300000, 1500, mr->lkey },
		{ (uintptr_t)buf + 600000, 7, mr->lkey },
	};
	int i;

	rxd_test_fill_at(buf, 0, 1000, 77);
	rxd_test_fill_at(buf + 300000, 1000, 1500, 77);
	rxd_test_fill_at(buf + 600000, 2500, 7, 77);
	post(IBV_WR_SEND, g, 3, IBV_SEND_SIGNALED, r, 0);
	done("3-SGE SEND", 1);
	control(r, CHECK_SEND, 2507, 0, 77);

	rxd_test_fill(buf, 100, 78);
	g[0].length = 100;
	post(IBV_WR_SEND, g, 1, IBV_SEND_SIGNALED | IBV_SEND_INLINE, r, 0);
	memset(buf, 0, 100);               /* inline: copied at post */
	done("inline SEND", 1);
	control(r, CHECK_SEND, 100, 0, 78);

	for (i = 0; i < 5; i++) {          /* unsignaled, then one signaled */
		struct ibv_sge one = { (uintptr_t)buf + (uint32_t)i * 4096,
			4096, mr->lkey };

		rxd_test_fill_at(buf + (uint32_t)i * 4096, (uint32_t)i * 4096,
				 4096, 79);
		post(IBV_WR_RDMA_WRITE, &one, 1, i == 4 ? IBV_SEND_SIGNALED : 0,
		     r, WRITE_OFF + (uint32_t)i * 4096);
	}
	done("unsignaled WRITEs", 1);
	g[0].length = 0;
	post(IBV_WR_SEND, g, 1, IBV_SEND_SIGNALED, r, 0);
	done("empty SEND", 1);
	control(r, CHECK_WRITE, 5 * 4096, WRITE_OFF, 79);
}

static void
step_fence_atomics(const struct peer *r)
{
	struct ibv_sge s8 = { (uintptr_t)buf + 8, 8, mr->lkey };
	struct ibv_sge w4 = { (uintptr_t)buf + 64, 4, mr->lkey };
	struct ibv_send_wr w = { .sg_list = &s8, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED }, *bad;
	uint64_t target = r->addr + WRITE_OFF;

	/* fence: the WRITE waits for the READ before it */
	memcpy(buf + 64, "new!", 4);
	rxd_test_fill(buf, 4, 80);
	{
		struct ibv_sge s4 = { (uintptr_t)buf, 4, mr->lkey };

		post(IBV_WR_RDMA_WRITE, &s4, 1, IBV_SEND_SIGNALED, r, WRITE_OFF);
		done("WRITE old", 1);
	}
	post(IBV_WR_RDMA_READ, &s8, 1, IBV_SEND_SIGNALED, r, WRITE_OFF);
	post(IBV_WR_RDMA_WRITE, &w4, 1, IBV_SEND_SIGNALED | IBV_SEND_FENCE, r,
	     WRITE_OFF);
	done("READ + fenced WRITE", 2);
	if (!rxd_test_holds(buf + 8, 4, 80))
		FAIL("fenced READ saw the later WRITE");

	/* atomics on an 8-byte word: FETCH_ADD then CMP_SWP */
	memset(buf, 0, 8);
	{
		struct ibv_sge z = { (uintptr_t)buf, 8, mr->lkey };

		post(IBV_WR_RDMA_WRITE, &z, 1, IBV_SEND_SIGNALED, r,
		     WRITE_OFF + 64);
		done("zero the word", 1);
	}
	w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	w.wr.atomic.remote_addr = target + 64;
	w.wr.atomic.rkey = r->rkey;
	w.wr.atomic.compare_add = 41;
	ibv_post_send(qp, &w, &bad);
	done("FETCH_ADD", 1);
	if (*(uint64_t *)(buf + 8) != 0)
		FAIL("FETCH_ADD returned %lu", *(unsigned long *)(buf + 8));
	w.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.compare_add = 41;
	w.wr.atomic.swap = 0x1122334455667788ull;
	ibv_post_send(qp, &w, &bad);
	done("CMP_SWP", 1);
	if (*(uint64_t *)(buf + 8) != 41)
		FAIL("CMP_SWP returned %lu", *(unsigned long *)(buf + 8));
	post(IBV_WR_RDMA_READ, &s8, 1, IBV_SEND_SIGNALED, r, WRITE_OFF + 64);
	done("READ the word", 1);
	if (*(uint64_t *)(buf + 8) != 0x1122334455667788ull)
		FAIL("atomic target holds %lx", *(unsigned long *)(buf + 8));
}

static int
rc_client(const struct peer *r)
{
	static const uint32_t sizes[] = { 0, 1, 1023, 1024, 1025, 65539,
		1u << 20, BIG };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		step_send(r, IBV_WR_SEND, sizes[i], i);
		step_send(r, IBV_WR_SEND_WITH_IMM, sizes[i], i + 10);
		step_write_read(r, IBV_WR_RDMA_WRITE, sizes[i], i + 20);
		step_write_read(r, IBV_WR_RDMA_WRITE_WITH_IMM, sizes[i], i + 30);
		printf("client: size %u: SEND, SEND_IMM, WRITE, WRITE_IMM, "
		       "READ ok so far (%d failures)\n", sizes[i], failures);
	}
	step_sge_inline_unsignaled(r);
	step_fence_atomics(r);
	{
		struct ibv_sge none = { (uintptr_t)buf, 0, mr->lkey };

		post(IBV_WR_SEND, &none, 1, IBV_SEND_SIGNALED, r, 0);
		done("empty SEND", 1);
		control(r, CHECK_DONE, 0, 0, 0);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct peer me, peer;
	bool server;
	int s;

	if (rxd_test_start_main("rc-two-proc", &argc, &argv) != 0)
		return 2;
	if (argc < 3) {
		fprintf(stderr, "usage: rc-two-proc EAL -- [rxd options] "
			"server|client SOCKET\n");
		return 2;
	}
	server = strcmp(argv[1], "server") == 0;
	setup();
	me = (struct peer){ qp->qp_num, mr->rkey, (uintptr_t)buf };
	s = rxd_test_sock_open(server, argv[2]);
	if (s < 0 || write(s, &me, sizeof(me)) != sizeof(me) ||
	    read(s, &peer, sizeof(peer)) != sizeof(peer)) {
		fprintf(stderr, "rc-two-proc: exchange failed\n");
		return 2;
	}
	connect_qp(&peer, server ? 2 : 1);
	if (server) {
		if (write(s, "R", 1) != 1)   /* receives can be posted first */
			return 2;
		serve();
	} else {
		char r;

		if (read(s, &r, 1) != 1)
			return 2;
		failures += rc_client(&peer);
	}
	close(s);
	print_stats(argv[1]);
	printf("%s: %s\n", argv[1], failures ? "FAILED" : "all checks passed");
	ibv_destroy_qp(qp);
	rxd_stop();
	rte_eal_cleanup();
	return failures ? 1 : 0;
}
