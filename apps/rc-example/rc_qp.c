/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC example's QP: swap connection data with the peer, take the QP
 * through INIT, RTR and RTS, and post and complete the work requests.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rc_example.h"

#define POLL_TIMEOUT_MS 10000
#define WR_ID_RECEIVE 0xffff    /* sends use their opcode as wr_id */

static const char *
wr_name(uint64_t wr_id)
{
	switch (wr_id) {
	case IBV_WR_SEND:
		return "SEND";
	case IBV_WR_RDMA_READ:
		return "RDMA READ";
	case IBV_WR_RDMA_WRITE:
		return "RDMA WRITE";
	default:
		return "RECEIVE";
	}
}

/* rc_con_data on the wire: big-endian, packed, 34 bytes. */
#define CON_WIRE_LEN 34

static void
con_to_wire(const struct rc_con_data *c, uint8_t *w)
{
	uint64_t addr = htobe64(c->addr);
	uint32_t rkey = htobe32(c->rkey), qpn = htobe32(c->qp_num);
	uint16_t lid = htobe16(c->lid);

	memcpy(w, &addr, 8);
	memcpy(w + 8, &rkey, 4);
	memcpy(w + 12, &qpn, 4);
	memcpy(w + 16, &lid, 2);
	memcpy(w + 18, c->gid, 16);
}

static void
con_from_wire(const uint8_t *w, struct rc_con_data *c)
{
	uint64_t addr;
	uint32_t rkey, qpn;
	uint16_t lid;

	memcpy(&addr, w, 8);
	memcpy(&rkey, w + 8, 4);
	memcpy(&qpn, w + 12, 4);
	memcpy(&lid, w + 16, 2);
	memcpy(c->gid, w + 18, 16);
	c->addr = be64toh(addr);
	c->rkey = be32toh(rkey);
	c->qp_num = be32toh(qpn);
	c->lid = be16toh(lid);
}

static void
print_con(const char *who, const struct rc_con_data *c)
{
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, c->gid, gid, sizeof(gid));
	printf("%s address = 0x%llx, rkey = 0x%x, QP number = 0x%x, "
	       "LID = 0x%x, GID = %s\n", who, (unsigned long long)c->addr,
	       c->rkey, c->qp_num, c->lid, gid);
}

static int
exchange_con_data(struct rc_res *res, const struct rc_config *cfg)
{
	struct rc_con_data local = {
		.addr = (uintptr_t)res->buf,
		.rkey = res->mr->rkey,
		.qp_num = res->qp->qp_num,
		.lid = res->port_attr.lid,
	};
	uint8_t out[CON_WIRE_LEN], in[CON_WIRE_LEN];
	union ibv_gid gid;

	if (ibv_query_gid(res->ctx, cfg->ib_port, cfg->gid_idx, &gid) != 0) {
		fprintf(stderr, "rc-example: no GID %u on port %u\n",
			cfg->gid_idx, cfg->ib_port);
		return -1;
	}
	memcpy(local.gid, gid.raw, sizeof(local.gid));
	con_to_wire(&local, out);
	if (rc_tcp_exchange(res->sock, out, in, CON_WIRE_LEN) < 0)
		return -1;
	con_from_wire(in, &res->remote);
	print_con("Local", &local);
	print_con("Remote", &res->remote);
	return 0;
}

static int
modify(struct rc_res *res, struct ibv_qp_attr *attr, int mask,
       const char *state)
{
	int rc = ibv_modify_qp(res->qp, attr, mask);

	if (rc != 0)
		fprintf(stderr, "rc-example: cannot move the QP to %s: %s\n",
			state, strerror(rc));
	return rc != 0 ? -1 : 0;
}

static int
to_init(struct rc_res *res, const struct rc_config *cfg)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = cfg->ib_port,
		.pkey_index = 0,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE,
	};

	return modify(res, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
		      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT");
}

static int
to_rtr(struct rc_res *res, const struct rc_config *cfg)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = res->port_attr.active_mtu,
		.dest_qp_num = res->remote.qp_num,
		.rq_psn = 0,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 0x12,
		.ah_attr = {
			.is_global = 1,
			.dlid = res->remote.lid,
			.port_num = cfg->ib_port,
			.grh = { .hop_limit = 64, .sgid_index = cfg->gid_idx },
		},
	};

	memcpy(attr.ah_attr.grh.dgid.raw, res->remote.gid, 16);
	return modify(res, &attr, IBV_QP_STATE | IBV_QP_AV |
		      IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		      "RTR");
}

static int
to_rts(struct rc_res *res)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 0x12,
		.retry_cnt = 6,
		.rnr_retry = 7,
		.sq_psn = 0,
		.max_rd_atomic = 1,
	};

	return modify(res, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT |
		      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
		      IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
}

/*
 * Swap connection data, then INIT, RTR, RTS; the client posts its receive
 * before RTR, so the server's SEND finds it.  Both sides then meet on 'Q'.
 */
int
rc_qp_connect(struct rc_res *res, const struct rc_config *cfg)
{
	if (exchange_con_data(res, cfg) < 0 || to_init(res, cfg) < 0)
		return -1;
	if (cfg->server_name != NULL && rc_post_receive(res) < 0)
		return -1;
	if (to_rtr(res, cfg) < 0 || to_rts(res) < 0)
		return -1;
	printf("QP state is RTS\n");
	return rc_tcp_sync(res->sock, 'Q');
}

int
rc_post_send(struct rc_res *res, enum ibv_wr_opcode opcode)
{
	struct ibv_sge sge = { .addr = (uintptr_t)res->buf,
		.length = RC_MSG_SIZE, .lkey = res->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = opcode, .sg_list = &sge,
		.num_sge = 1, .opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED }, *bad;
	int rc;

	if (opcode != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = res->remote.addr;
		wr.wr.rdma.rkey = res->remote.rkey;
	}
	rc = ibv_post_send(res->qp, &wr, &bad);
	if (rc != 0)
		fprintf(stderr, "rc-example: cannot post the %s: %s\n",
			wr_name(opcode), strerror(rc));
	return rc != 0 ? -1 : 0;
}

int
rc_post_receive(struct rc_res *res)
{
	struct ibv_sge sge = { .addr = (uintptr_t)res->buf,
		.length = RC_MSG_SIZE, .lkey = res->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = WR_ID_RECEIVE, .sg_list = &sge,
		.num_sge = 1 }, *bad;
	int rc = ibv_post_recv(res->qp, &wr, &bad);

	if (rc != 0)
		fprintf(stderr, "rc-example: cannot post the receive: %s\n",
			strerror(rc));
	return rc != 0 ? -1 : 0;
}

int
rc_poll_completion(struct rc_res *res)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = ibv_poll_cq(res->cq, 1, &wc);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (n == 0 && (t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < POLL_TIMEOUT_MS);
	if (n < 0) {
		fprintf(stderr, "rc-example: ibv_poll_cq failed\n");
		return -1;
	}
	if (n == 0) {
		fprintf(stderr, "rc-example: no completion after %d ms\n",
			POLL_TIMEOUT_MS);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rc-example: %s completed with %s (vendor "
			"error 0x%x)\n", wr_name(wc.wr_id),
			ibv_wc_status_str(wc.status), wc.vendor_err);
		return -1;
	}
	return 0;
}
