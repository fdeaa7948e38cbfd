/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A peer that never completes a handshake: COUNT CM REQs, each with a
 * comm ID, QPN and source port of its own, sent from this process's QP1
 * (rxd_verbs_create_gsi_qp, so that they come from QPN 1 as CM MADs must)
 * to QP1 of DST, for the rdma_cm TCP port PORT.  The REPs that answer them
 * are never read (QP1 has no receive posted) and no RTU is ever sent: the
 * peer's CM resends each REP until it gives the connection up.  No CM
 * runs here.  It sends once the file GO exists (the listener has taken
 * its baseline), then stays up (answering ARP) until killed.
 *
 * Usage: cm-req-storm EAL-ARGS -- [RXD-OPTS] SRC-IPV4 DST-IPV4 PORT COUNT GO
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_cm_mad.h"
#include "rxd_verbs_gsi.h"
#include "rxd_test_eal.h"

#define DEPTH 256
#define PS_TCP 0x0106

static int
die(const char *what)
{
	fprintf(stderr, "cm-req-storm: %s failed\n", what);
	exit(1);
}

static void
v4_gid(const char *s, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	if (inet_pton(AF_INET, s, gid + 12) != 1)
		die("an IPv4 address");
}

static void
wait_link(void)
{
	struct rxd_port_info info;
	unsigned int ms;

	for (ms = 0; ms < 60000; ms += 10) {
		if (rxd_port_info(0, &info) == 0 && info.link_up)
			return;
		usleep(10000);
	}
	die("waiting for the link");
}

static struct ibv_qp *
make_qp1(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = RXD_MAD_LEN },
		.sq_sig_all = 1,
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = RXD_CM_QKEY };
	struct ibv_qp *qp = rxd_verbs_create_gsi_qp(pd, &qa);

	if (qp == NULL || ibv_modify_qp(qp, &a, IBV_QP_STATE |
			IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) != 0)
		die("QP1");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE) != 0)
		die("QP1 to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0)
		die("QP1 to RTS");
	return qp;
}

/* REQ number i of a peer at src for PORT at dst. */
static void
make_req(unsigned int i, const uint8_t src[16], const uint8_t dst[16],
	 uint16_t port, uint8_t mad[RXD_MAD_LEN])
{
	struct rxd_cm_ip_hdr h = { .ip_version = 4,
				   .src_port = (uint16_t)(20000 + i % 40000) };
	struct rxd_cm_msg m;

	rxd_cm_msg_init(&m, RXD_CM_REQ, 0x5eed0000ull + i);
	m.f[RXD_CMF_LOCAL_COMM_ID] = 0x7e570000u + i;
	m.f[RXD_CMF_SERVICE_ID] = 0x0000000001000000ull |
		(uint64_t)PS_TCP << 16 | port;
	m.f[RXD_CMF_LOCAL_QPN] = 0x100 + i;
	m.f[RXD_CMF_RESP_RES] = 1;
	m.f[RXD_CMF_INIT_DEPTH] = 1;
	m.f[RXD_CMF_REMOTE_CM_TIMEOUT] = 20;
	m.f[RXD_CMF_LOCAL_CM_TIMEOUT] = 20;
	m.f[RXD_CMF_E2E_FC] = 1;
	m.f[RXD_CMF_START_PSN] = i;
	m.f[RXD_CMF_RETRY_CNT] = 7;
	m.f[RXD_CMF_RNR_RETRY] = 7;
	m.f[RXD_CMF_PKEY] = 0xffff;
	m.f[RXD_CMF_PATH_MTU] = IBV_MTU_1024;
	m.f[RXD_CMF_MAX_CM_RETRIES] = 15;
	m.f[RXD_CMF_P_LOCAL_LID] = 0xffff;
	m.f[RXD_CMF_P_REMOTE_LID] = 0xffff;
	m.f[RXD_CMF_P_HOP_LIMIT] = 64;
	m.f[RXD_CMF_P_ACK_TIMEOUT] = 14;
	memcpy(m.gid[RXD_CMA_P_LOCAL_GID], src, 16);
	memcpy(m.gid[RXD_CMA_P_REMOTE_GID], dst, 16);
	memcpy(h.src, src, 16);
	memcpy(h.dst, dst, 16);
	rxd_cm_ip_hdr_encode(&h, m.pdata);
	if (rxd_cm_mad_encode(&m, mad) != 0)
		die("encoding a REQ");
}

static void
send_mad(struct ibv_qp *qp, struct ibv_ah *ah, const uint8_t *mad)
{
	struct ibv_sge sge = { .addr = (uintptr_t)mad, .length = RXD_MAD_LEN };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = RXD_CM_QKEY;
	if (ibv_post_send(qp, &wr, &bad) != 0)
		die("a send");
}

int
main(int argc, char **argv)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	uint8_t src[16], dst[16], mad[RXD_MAD_LEN], mac[6];
	unsigned int i, count, out = 0;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_wc wc[32];
	int n;

	if (rxd_test_start_main("cm-req-storm", &argc, &argv) != 0)
		return 1;
	atexit(rxd_stop);
	if (argc != 6)
		die("usage: SRC-IPV4 DST-IPV4 PORT COUNT GO; parsing");
	v4_gid(argv[1], src);
	v4_gid(argv[2], dst);
	count = (unsigned int)atoi(argv[4]);
	wait_link();
	while (access(argv[5], F_OK) != 0)
		usleep(10000);
	if (rxd_resolve(0, dst, mac, 10000) != 0)   /* none held back */
		die("resolving DST");
	list = ibv_get_device_list(NULL);
	if (list == NULL || list[0] == NULL ||
	    (ctx = ibv_open_device(list[0])) == NULL)
		die("opening rxd0");
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, DEPTH, NULL, NULL, 0) : NULL;
	if (cq == NULL)
		die("PD and CQ");
	qp = make_qp1(pd, cq);
	memcpy(aa.grh.dgid.raw, dst, 16);
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	if (ah == NULL)
		die("an address handle");
	for (i = 0; i < count; i++) {
		while (out == DEPTH) {
			n = ibv_poll_cq(cq, 32, wc);
			if (n < 0)
				die("polling");
			out -= (unsigned int)n;
		}
		make_req(i, src, dst, (uint16_t)atoi(argv[3]), mad);
		send_mad(qp, ah, mad);
		out++;
	}
	printf("cm-req-storm: %u REQs sent\n", count);
	fflush(stdout);
	for (;;)
		pause();
}
