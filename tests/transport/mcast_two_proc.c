/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mcast-two-proc: UD multicast between two rxd processes.  The receiver
 * attaches two UD QPs and a third with another Q_Key to 239.2.2.2; the
 * sender sends MSGS messages to the group (QPN 0xFFFFFF).  Each of the two
 * QPs must get each message exactly once, byte-exact; the third nothing,
 * each drop counted as a Q_Key violation.  Then the receiver detaches and
 * the sender sends again: its sends complete, nothing arrives, and the
 * receiver counts the frames as sent to a group without member.  Exit 0
 * only if all held.
 *
 * Usage: mcast-two-proc EAL... -- [rxd options] server|client SOCKET_PATH
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_test_pattern.h"
#include "rxd_test_qp.h"
#include "rxd_test_sock.h"
#include "rxd_test_eal.h"

#define QKEY 0x01234567u
#define MSGS 16u
#define LEN 1000u
#define SLOT 2048u
#define GRH 40u
#define AFTER 3u                     /* sends after the detach */
#define RECEIVERS 3u                 /* two right Q_Keys, one wrong */
#define BUF (SLOT * MSGS * RECEIVERS)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *buf;
static union ibv_gid group;
static int failures;

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)

/* Up to n completions within ms milliseconds. */
static int
poll_for(struct ibv_wc *wc, int n, unsigned int ms)
{
	struct timespec t0, t;
	int got = 0, k;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		k = ibv_poll_cq(cq, n - got, wc + got);
		if (k > 0)
			got += k;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (got < n && (t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return got;
}

static void
setup(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (list == NULL || list[0] == NULL) {
		fprintf(stderr, "mcast-two-proc: no device: %s\n",
			rxd_last_error());
		exit(2);
	}
	ctx = ibv_open_device(list[0]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4 * MSGS * RECEIVERS, NULL, NULL, 0);
	buf = aligned_alloc(4096, BUF);
	mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	if (!ctx || !pd || !cq || !buf || !mr) {
		fprintf(stderr, "mcast-two-proc: verbs setup failed\n");
		exit(2);
	}
	memset(buf, 0, BUF);
	ibv_free_device_list(list);
	rxd_test_gid_v4(group.raw, 239, 2, 2, 2);
}

static struct ibv_qp *
ud_qp(uint32_t qkey)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_UD, .send_cq = cq,
		.recv_cq = cq, .cap = { .max_send_wr = 2 * MSGS,
		.max_recv_wr = 2 * MSGS, .max_send_sge = 1,
		.max_recv_sge = 1 } };
	struct ibv_qp *qp = ibv_create_qp(pd, &qa);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qkey = qkey };

	if (qp == NULL ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		exit(2);
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		exit(2);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		exit(2);
	return qp;
}

/* Message i: its index, then the pattern of seed i. */
static void
send_msgs(struct ibv_qp *qp, struct ibv_ah *ah, unsigned int n)
{
	struct ibv_wc wc[2 * MSGS];
	unsigned int i;
	int k;

	for (i = 0; i < n; i++) {
		uint8_t *m = buf + i * SLOT;
		struct ibv_sge sge = { (uintptr_t)m, LEN, mr->lkey };
		struct ibv_send_wr w = { .wr_id = i, .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED }, *bad;

		memcpy(m, &i, sizeof(i));
		rxd_test_fill(m + sizeof(i), LEN - sizeof(i), i);
		w.wr.ud.ah = ah;
		w.wr.ud.remote_qpn = 0xFFFFFF;
		w.wr.ud.remote_qkey = QKEY;
		if (ibv_post_send(qp, &w, &bad))
			FAIL("post send %u", i);
	}
	if (poll_for(wc, (int)n, 20000) != (int)n)
		FAIL("not every send completed");
	for (k = 0; k < (int)n; k++)
		if (wc[k].status != IBV_WC_SUCCESS)
			FAIL("send %d: %s", k, ibv_wc_status_str(wc[k].status));
}

static void
client(int s)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
		.grh = { .dgid = group, .sgid_index = 1, .hop_limit = 64 } };
	struct ibv_qp *qp = ud_qp(QKEY);
	struct ibv_ah *ah = ibv_create_ah(pd, &aa);
	char c;

	if (ah == NULL || read(s, &c, 1) != 1) {
		FAIL("no AH or the receiver never got ready");
		return;
	}
	send_msgs(qp, ah, MSGS);
	if (write(s, "S", 1) != 1 || read(s, &c, 1) != 1)
		FAIL("the receiver never detached");
	send_msgs(qp, ah, AFTER);
	if (write(s, "E", 1) != 1)
		FAIL("socket");
	ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
}

static void
post_recvs(struct ibv_qp *qp, unsigned int r)
{
	unsigned int i;

	for (i = 0; i < MSGS; i++) {
		struct ibv_sge sge = { (uintptr_t)buf + (r * MSGS + i) * SLOT,
			SLOT, mr->lkey };
		struct ibv_recv_wr w = { .wr_id = r * MSGS + i,
			.sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(qp, &w, &bad))
			FAIL("post receive");
	}
}

/* Check one received message; @return its index or MSGS if bad. */
static unsigned int
check_msg(const struct ibv_wc *wc)
{
	const uint8_t *m = buf + wc->wr_id * SLOT + GRH;
	unsigned int i;

	memcpy(&i, m, sizeof(i));
	if (wc->status != IBV_WC_SUCCESS || wc->byte_len != GRH + LEN ||
	    i >= MSGS || !rxd_test_holds(m + sizeof(i), LEN - sizeof(i), i)) {
		FAIL("message: status %d, %u bytes, index %u",
		     (int)wc->status, wc->byte_len, i);
		return MSGS;
	}
	if (memcmp(buf + wc->wr_id * SLOT + 36, group.raw + 12, 4) != 0)
		FAIL("the GRH area does not name the group");
	return i;
}

static void
count(struct ibv_qp **qps, unsigned int got[][MSGS], const struct ibv_wc *wc)
{
	unsigned int r, i;

	for (r = 0; r < RECEIVERS; r++) {
		if (qps[r]->qp_num != wc->qp_num)
			continue;
		i = check_msg(wc);
		if (i < MSGS)
			got[r][i]++;
	}
}

static void
server(int s)
{
	struct ibv_qp *qps[RECEIVERS] = { ud_qp(QKEY), ud_qp(QKEY),
		ud_qp(QKEY + 1) };
	unsigned int got[RECEIVERS][MSGS] = { { 0 } }, r, i;
	struct rxd_port_counters before, after;
	struct ibv_wc wc[4 * MSGS];
	int n, k;
	char c;

	for (r = 0; r < RECEIVERS; r++) {
		post_recvs(qps[r], r);
		if (ibv_attach_mcast(qps[r], &group, 0))
			FAIL("attach QP %u", r);
	}
	rxd_port_counters(0, &before);
	if (write(s, "R", 1) != 1 || read(s, &c, 1) != 1)
		FAIL("the sender never finished");
	n = poll_for(wc, 2 * MSGS, 20000);
	n += poll_for(wc + n, 1, 500);      /* nothing more may come */
	for (k = 0; k < n; k++)
		count(qps, got, &wc[k]);
	for (r = 0; r < 2; r++)
		for (i = 0; i < MSGS; i++)
			if (got[r][i] != 1)
				FAIL("QP %u got message %u %u times", r, i,
				     got[r][i]);
	for (i = 0; i < MSGS; i++)
		if (got[2][i] != 0)
			FAIL("the QP with another Q_Key got message %u", i);
	rxd_port_counters(0, &after);
	if (after.qkey_viol - before.qkey_viol != MSGS)
		FAIL("%lu Q_Key violations, want %u",
		     (unsigned long)(after.qkey_viol - before.qkey_viol), MSGS);

	for (r = 0; r < RECEIVERS; r++)
		if (ibv_detach_mcast(qps[r], &group, 0))
			FAIL("detach QP %u", r);
	before = after;
	if (write(s, "D", 1) != 1 || read(s, &c, 1) != 1)
		FAIL("the sender never sent after the detach");
	if (poll_for(wc, 1, 500) != 0)
		FAIL("a detached QP received");
	rxd_port_counters(0, &after);
	if (after.roce_mcast_no_member - before.roce_mcast_no_member != AFTER)
		FAIL("%lu frames to a group without member, want %u",
		     (unsigned long)(after.roce_mcast_no_member -
				     before.roce_mcast_no_member), AFTER);
	printf("server: %u messages to 2 QPs, %lu Q_Key violations, "
	       "%lu after the detach without member, %lu reports sent\n",
	       MSGS, (unsigned long)(after.qkey_viol), (unsigned long)
	       after.roce_mcast_no_member, (unsigned long)
	       after.group_reports_tx);
	for (r = 0; r < RECEIVERS; r++)
		ibv_destroy_qp(qps[r]);
}

int
main(int argc, char **argv)
{
	int s;
	bool is_server;

	if (rxd_test_start_main("mcast-two-proc", &argc, &argv) != 0)
		return 2;
	if (argc < 3) {
		fprintf(stderr, "usage: mcast-two-proc EAL -- [rxd options] "
			"server|client SOCKET\n");
		return 2;
	}
	is_server = strcmp(argv[1], "server") == 0;
	setup();
	s = rxd_test_sock_open(is_server, argv[2]);
	if (s < 0) {
		fprintf(stderr, "mcast-two-proc: no control socket\n");
		return 2;
	}
	if (is_server)
		server(s);
	else
		client(s);
	close(s);
	printf("%s: %s\n", argv[1], failures ? "FAILED" : "all checks passed");
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	rxd_stop();
	rte_eal_cleanup();
	return failures ? 1 : 0;
}
