/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostile-peer: the two rxd hosts of tests/net/hostile.sh.  The client
 * moves data-checked RC traffic (WRITE, READ back, SEND) and a UD echo
 * exchange with the server while a third host sprays junk at them; both
 * check every byte and that each WR completes exactly once, successfully.
 * Each side then prints its port counters ("counter NAME VALUE") at the
 * start of the attack and at the end, checks that every frame it received
 * is accounted for once by what became of it, lists its neighbours, and
 * checks that its mbufs and heap are back to their level before.  Each
 * side also listens with rdma_cm, so that its CM serves QP1 and the
 * attacker's MADs reach it.
 *
 * Usage: hostile-peer EAL... -- [rxd options] server|client SOCKET DIR
 *   The client starts the traffic, writes DIR/ready, and keeps going until
 *   DIR/attack-done exists plus a few rounds, or ATTACK_MAX_S: the attack
 *   has no time of its own to keep (building its frames alone took over a
 *   minute on a busy machine), only hostile.sh's 300 s timeout to stay under.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "rxd/rxd.h"
#include "rxd_test_pattern.h"
#include "rxd_test_qp.h"
#include "rxd_test_sock.h"
#include "hostile_report.h"
#include "rxd_test_eal.h"

#define BUF (2u << 20)
#define RC_AREA 0             /* server: WRITE target; client: source */
#define RD_AREA (512u << 10)  /* client: READ landing area */
#define RECV_AREA (1u << 20)  /* server: RC receive buffers */
#define UD_AREA (1536u << 10)
#define SLOTS 64u             /* RC areas in turn: more than the RQ */
#define MAX_LEN 8192u
#define UD_LEN 512u
#define N_RECV 32u
#define GRH 40u
#define WRS_MAX (1u << 20)
#define ATTACK_MAX_S 270

struct peer_info {
	uint32_t rc_qpn, ud_qpn, psn, rkey;
	uint64_t addr;
	uint8_t gid[16];
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq, *ud_cq;   /* RC's, UD's */
static struct ibv_qp *rc_qp, *ud_qp;
static struct ibv_mr *mr;
static struct ibv_ah *ah;
static uint8_t *buf;
static struct peer_info me, peer;
static uint8_t done_wr[WRS_MAX / 8];
static int failures;

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); putchar('\n'); \
	fflush(stdout); failures++; } while (0)

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* A WR's completion: successful, and the first for its wr_id. */
static void
account(const struct ibv_wc *wc)
{
	uint64_t id = wc->wr_id % WRS_MAX;

	if (wc->status != IBV_WC_SUCCESS)
		FAIL("wr %lu: %s", (unsigned long)wc->wr_id,
		     ibv_wc_status_str(wc->status));
	if (done_wr[id / 8] & (1u << (id % 8)))
		FAIL("wr %lu completed twice", (unsigned long)wc->wr_id);
	done_wr[id / 8] |= (uint8_t)(1u << (id % 8));
}

static int
wait_one(struct ibv_wc *wc, double secs)
{
	double end = now_s() + secs;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n != 0)
			return n < 0 ? -1 : 0;
	} while (now_s() < end);
	return -1;
}

static void
post_recv(struct ibv_qp *qp, uint64_t wr_id, uint64_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)(buf + off), len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
		.num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		FAIL("post_recv: %s", strerror(errno));
}

static struct ibv_qp *
make_qp(enum ibv_qp_type type, struct ibv_cq *qcq)
{
	struct ibv_qp_init_attr qa = { .qp_type = type, .send_cq = qcq,
		.recv_cq = qcq, .cap = { .max_send_wr = 64,
		.max_recv_wr = N_RECV + 1, .max_send_sge = 1,
		.max_recv_sge = 1 } };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qkey = 0x11111111 };
	struct ibv_qp *qp = ibv_create_qp(pd, &qa);

	/* the RC QP leaves RESET in rxd_test_rc_connect() */
	if (qp == NULL || (type == IBV_QPT_UD && ibv_modify_qp(qp, &a,
	    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)))
		return NULL;
	return qp;
}

static int
setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (list == NULL || list[0] == NULL)
		return -1;
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	buf = aligned_alloc(4096, BUF);
	if (ctx == NULL || buf == NULL)
		return -1;
	memset(buf, 0, BUF);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	ud_cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (pd == NULL || cq == NULL || ud_cq == NULL || mr == NULL)
		return -1;
	rc_qp = make_qp(IBV_QPT_RC, cq);
	ud_qp = make_qp(IBV_QPT_UD, ud_cq);
	if (rc_qp == NULL || ud_qp == NULL ||
	    ibv_query_gid(ctx, 1, 1, (union ibv_gid *)me.gid))
		return -1;
	me.rc_qpn = rc_qp->qp_num;
	me.ud_qpn = ud_qp->qp_num;
	me.psn = (uint32_t)(getpid() * 7919u) & 0xffffff;
	me.rkey = mr->rkey;
	me.addr = (uintptr_t)buf;
	return 0;
}

/* A listener on rdma_cm port 7471: QP1 is served from now on. */
static int
listen_cm(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
		.sin_port = htons(7471) };
	struct rdma_event_channel *ec = rdma_create_event_channel();
	struct rdma_cm_id *id;

	memcpy(&a.sin_addr, me.gid + 12, 4);
	if (ec == NULL || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(id, (struct sockaddr *)&a) || rdma_listen(id, 4))
		return -1;
	return 0;
}

static int
connect_qps(void)
{
	struct rxd_test_rc_path p = { .dest_qpn = peer.rc_qpn,
		.rq_psn = peer.psn, .sq_psn = me.psn,
		.path_mtu = IBV_MTU_1024, .rd_atomic = 4, .timeout = 12,
		.retry_cnt = 7, .rnr_retry = 7 };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
		.grh = { .sgid_index = 1, .hop_limit = 64 } };

	memcpy(p.dgid, peer.gid, 16);
	if (rxd_test_rc_connect(rc_qp, &p) || ibv_modify_qp(ud_qp, &a,
	    IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = me.psn;
	if (ibv_modify_qp(ud_qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return -1;
	memcpy(aa.grh.dgid.raw, peer.gid, 16);
	ah = ibv_create_ah(pd, &aa);
	return ah == NULL ? -1 : 0;
}

static int
post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, uint64_t off,
	  uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)(buf + off), len, mr->lkey };
	struct ibv_send_wr *bad;

	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, wr, &bad) == 0)
		return 0;
	FAIL("post_send: %s", strerror(errno));
	return -1;
}

static int
ud_send(uint64_t wr_id, uint64_t off, uint32_t imm)
{
	struct ibv_send_wr wr = { .wr_id = wr_id,
		.opcode = IBV_WR_SEND_WITH_IMM, .imm_data = htonl(imm),
		.wr.ud = { .ah = ah, .remote_qpn = peer.ud_qpn,
			   .remote_qkey = 0x11111111 } };

	return post_send(ud_qp, &wr, off, UD_LEN);
}

/* ---- client ---- */

static uint64_t next_wr = 1;

/* The next wr_id: its slot in done_wr is free again (WR ids wrap at
 * WRS_MAX in a long run; far fewer than that are ever in flight). */
static uint64_t
new_wr(void)
{
	uint64_t id = next_wr++ % WRS_MAX;

	done_wr[id / 8] &= (uint8_t)~(1u << (id % 8));
	return next_wr - 1;
}

/* One RC step: WRITE a pattern, READ it back, SEND it; all checked. */
static void
rc_round(uint32_t r)
{
	uint32_t len = 1 + (r * 2654435761u) % MAX_LEN;
	uint64_t off = (r % SLOTS) * MAX_LEN;
	struct ibv_send_wr w = { .opcode = IBV_WR_RDMA_WRITE };
	struct ibv_wc wc;
	int i;

	rxd_test_fill(buf + RC_AREA + off, len, r);
	memset(buf + RD_AREA + off, 0, len);
	w.wr_id = new_wr();
	w.wr.rdma.remote_addr = peer.addr + RC_AREA + off;
	w.wr.rdma.rkey = peer.rkey;
	post_send(rc_qp, &w, RC_AREA + off, len);
	w.wr_id = new_wr();
	w.opcode = IBV_WR_RDMA_READ;
	post_send(rc_qp, &w, RD_AREA + off, len);
	w.wr_id = new_wr();
	w.opcode = IBV_WR_SEND_WITH_IMM;
	w.imm_data = htonl(r);
	post_send(rc_qp, &w, RC_AREA + off, len);
	for (i = 0; i < 3; i++) {
		if (wait_one(&wc, 30) != 0) {
			FAIL("round %u: no completion", r);
			return;
		}
		account(&wc);
	}
	if (!rxd_test_holds(buf + RD_AREA + off, len, r))
		FAIL("round %u: READ back of %u bytes differs", r, len);
}

/* A UD receive on the client: the echo of round r, or an old one. */
static bool
ud_echo(const struct ibv_wc *wc, uint32_t r)
{
	uint64_t off = UD_AREA + (1 + wc->wr_id % N_RECV) * 1024;
	bool mine = ntohl(wc->imm_data) == r;

	if (wc->status != IBV_WC_SUCCESS)
		FAIL("ud %u: receive %s", r, ibv_wc_status_str(wc->status));
	else if (mine && (wc->byte_len != GRH + UD_LEN ||
		 !rxd_test_holds(buf + off + GRH, UD_LEN, r ^ 0x5a5a)))
		FAIL("ud %u: echo differs", r);
	post_recv(ud_qp, wc->wr_id, off, 1024);
	return mine;
}

/* One UD echo: send, wait for the echo (sending again every 100 ms: UD
 * may lose a datagram), check it; every send completes once. */
static void
ud_round(uint32_t r, unsigned int *resends)
{
	unsigned int in_flight = 0, tries = 0;
	double deadline = 0;
	bool echoed = false;
	struct ibv_wc wc;

	rxd_test_fill(buf + UD_AREA, UD_LEN, r ^ 0x5a5a);
	while (!echoed || in_flight > 0) {
		if (!echoed && now_s() >= deadline) {
			if (tries++ == 50) {
				FAIL("ud %u: no echo after 50 sends", r);
				return;
			}
			*resends += tries > 1;
			in_flight += ud_send(new_wr(), UD_AREA, r) == 0;
			deadline = now_s() + 0.1;
		}
		if (ibv_poll_cq(ud_cq, 1, &wc) != 1)
			continue;
		if (wc.opcode == IBV_WC_SEND) {
			account(&wc);
			in_flight--;
		} else {
			echoed |= ud_echo(&wc, r);
		}
	}
}

static bool
exists(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void
touch(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f != NULL)
		fclose(f);
}

static int
client(int s, const char *dir)
{
	struct hostile_base base;
	unsigned int resends = 0, i;
	uint32_t r = 0, after = 0;
	double end = now_s() + ATTACK_MAX_S;
	char bye = 'x';

	for (i = 0; i < N_RECV; i++)
		post_recv(ud_qp, i, UD_AREA + (1 + i) * 1024, 1024);
	for (; r < 8; r++)
		rc_round(r);
	hostile_base_take(&base);
	touch(dir, "ready");
	while (failures == 0 && after < 20 && now_s() < end) {
		rc_round(r);
		ud_round(r++, &resends);
		after += exists(dir, "attack-done");
	}
	if (!exists(dir, "attack-done"))
		FAIL("the attack did not end within %d s", ATTACK_MAX_S);
	printf("client: %u rounds (%u WRs), %u UD resends\n", r,
	       (unsigned int)(next_wr - 1), resends);
	if (write(s, &bye, 1) != 1)
		FAIL("cannot tell the server");
	return hostile_report("client", &base);
}

/* ---- server ---- */

static void
serve_recv(const struct ibv_wc *wc)
{
	uint64_t slot = wc->wr_id % N_RECV;
	uint32_t r = ntohl(wc->imm_data);
	uint32_t len = 1 + (r * 2654435761u) % MAX_LEN;
	uint8_t *ud = buf + UD_AREA + (1 + slot) * 1024;

	if (wc->status != IBV_WC_SUCCESS) {
		FAIL("receive: %s", ibv_wc_status_str(wc->status));
		return;
	}
	if (wc->qp_num == rc_qp->qp_num) {
		if (wc->byte_len != len ||
		    !rxd_test_holds(buf + RECV_AREA + slot * MAX_LEN, len, r) ||
		    !rxd_test_holds(buf + RC_AREA + (r % SLOTS) * MAX_LEN, len,
				    r))
			FAIL("round %u: SEND or WRITE differs", r);
		post_recv(rc_qp, wc->wr_id, RECV_AREA + slot * MAX_LEN,
			  MAX_LEN);
		return;
	}
	if (wc->byte_len != GRH + UD_LEN ||
	    !rxd_test_holds(ud + GRH, UD_LEN, r ^ 0x5a5a))
		FAIL("ud %u: datagram differs", r);
	memcpy(buf + UD_AREA, ud + GRH, UD_LEN);
	ud_send(new_wr(), UD_AREA, r);
	post_recv(ud_qp, wc->wr_id, (uint64_t)(ud - buf), 1024);
}

static int
server(int s)
{
	struct hostile_base base;
	struct ibv_wc wc;
	bool based = false;
	char bye;
	unsigned int i;

	for (i = 0; i < N_RECV; i++) {
		post_recv(rc_qp, i, RECV_AREA + i * MAX_LEN, MAX_LEN);
		post_recv(ud_qp, i, UD_AREA + (1 + i) * 1024, 1024);
	}
	for (;;) {
		if (ibv_poll_cq(cq, 1, &wc) == 1 ||
		    ibv_poll_cq(ud_cq, 1, &wc) == 1) {
			if (wc.opcode & IBV_WC_RECV)
				serve_recv(&wc);
			else
				account(&wc);
			if (!based && wc.qp_num == rc_qp->qp_num &&
			    wc.opcode == IBV_WC_RECV &&
			    ntohl(wc.imm_data) == 7) {
				hostile_base_take(&base);
				based = true;
			}
			continue;
		}
		if (recv(s, &bye, 1, MSG_DONTWAIT) == 1)
			break;
	}
	return hostile_report("server", &base);
}

int
main(int argc, char **argv)
{
	bool is_server;
	int s, n;

	if (rxd_test_start_main("hostile-peer", &argc, &argv) != 0)
		return 1;
	if (argc < 4) {
		fprintf(stderr, "usage: hostile-peer EAL... -- server|client "
			"SOCKET DIR\n");
		return 2;
	}
	is_server = strcmp(argv[1], "server") == 0;
	if (setup() != 0 || listen_cm() != 0) {
		fprintf(stderr, "%s: setup failed: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	s = rxd_test_sock_open(is_server, argv[2]);
	if (s < 0 || write(s, &me, sizeof(me)) != sizeof(me) ||
	    read(s, &peer, sizeof(peer)) != sizeof(peer) || connect_qps()) {
		fprintf(stderr, "%s: exchange/connect failed\n", argv[1]);
		return 1;
	}
	printf("%s: rc qpn %u psn %u ud qpn %u\n", argv[1], me.rc_qpn,
	       me.psn, me.ud_qpn);
	fflush(stdout);
	n = is_server ? server(s) : client(s, argv[3]);
	close(s);
	return n != 0 || failures != 0;
}
