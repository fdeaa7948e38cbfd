/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An rsocket peer that ends its connection without the orderly close:
 * a plain rdma_cm client that connects to an rsocket server with valid
 * rsockets connection data (its target SGL and a receive buffer), takes
 * the server's first credits, then disconnects (a CM DREQ) without ever
 * sending rsockets' DISCONNECT control message.  That is what the server
 * sees when its peer's connection failed (a transport retry exceeded) and
 * the peer closed it: the server's reader must get ECONNRESET, not an end
 * of stream.  It disconnects once the file GO exists (the server has
 * accepted and reads), then waits for the DREP and exits 0.  "connected"
 * goes to standard error, which retry-connect.sh passes on at once.
 * Usage: rs-abort-peer DST-IPV4 PORT GO
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "rxd_rs_wire.h"

#define DEPTH 16
#define RBUF 4096
#define WAIT_S 60

static struct rdma_event_channel *ch;
static struct rdma_cm_id *id;

static void
die(const char *what)
{
	fprintf(stderr, "rs-abort-peer: %s failed\n", what);
	exit(1);
}

/* The next CM event must be @p want. */
static void
expect(enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type got;

	if (rdma_get_cm_event(ch, &ev) != 0)
		die("rdma_get_cm_event");
	got = ev->event;
	rdma_ack_cm_event(ev);
	if (got != want) {
		fprintf(stderr, "rs-abort-peer: got %s, wanted %s\n",
			rdma_event_str(got), rdma_event_str(want));
		exit(1);
	}
}

static void
resolve(const char *dst, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_port = htons((uint16_t)atoi(port));
	if (inet_pton(AF_INET, dst, &sin.sin_addr) != 1)
		die("an IPv4 address");
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 2000) != 0)
		die("rdma_resolve_addr");
	expect(RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rdma_resolve_route(id, 2000) != 0)
		die("rdma_resolve_route");
	expect(RDMA_CM_EVENT_ROUTE_RESOLVED);
}

static struct ibv_mr *
reg(struct ibv_pd *pd, size_t len)
{
	void *buf = calloc(1, len);
	struct ibv_mr *mr = buf ? ibv_reg_mr(pd, buf, len,
					     IBV_ACCESS_LOCAL_WRITE |
					     IBV_ACCESS_REMOTE_WRITE) : NULL;

	if (mr == NULL)
		die("ibv_reg_mr");
	return mr;
}

/* QP with DEPTH receives posted; @p pdata gets our connection data. */
static void
endpoint(uint8_t *pdata)
{
	struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
	struct ibv_cq *cq = pd ? ibv_create_cq(id->verbs, 2 * DEPTH, NULL,
					       NULL, 0) : NULL;
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_recv_wr wr = { .wr_id = 1 }, *bad;
	struct ibv_mr *target, *rbuf;
	struct rxd_rs_conn c = { .version = RXD_RS_VERSION };
	int i;

	if (cq == NULL || rdma_create_qp(id, pd, &a) != 0)
		die("rdma_create_qp");
	for (i = 0; i < DEPTH; i++)
		if (ibv_post_recv(id->qp, &wr, &bad) != 0)
			die("ibv_post_recv");
	target = reg(pd, RXD_RS_SGL_SIZE * RXD_RS_SGE_LEN);
	rbuf = reg(pd, RBUF);
	c.flags = rxd_rs_conn_flags() & ~RXD_RS_CONN_FLAG_IOMAP;
	c.credits = DEPTH;
	c.target_sgl.addr = (uintptr_t)target->addr;
	c.target_sgl.key = target->rkey;
	c.target_sgl.length = RXD_RS_SGL_SIZE;
	c.data_buf.addr = (uintptr_t)rbuf->addr;
	c.data_buf.key = rbuf->rkey;
	c.data_buf.length = RBUF / 2;
	rxd_rs_conn_pack(&c, pdata);
}

/* Wait for the server's first credits (a WRITE WITH IMM into our SGL). */
static void
first_credits(void)
{
	struct ibv_wc wc;
	int n, s;

	for (s = 0; s < WAIT_S * 1000; s++) {
		n = ibv_poll_cq(id->qp->recv_cq, 1, &wc);
		if (n < 0 || (n == 1 && wc.status != IBV_WC_SUCCESS))
			die("the first credits");
		if (n == 1)
			return;
		usleep(1000);
	}
	die("waiting for the first credits");
}

static void
wait_go(const char *go)
{
	int s;

	for (s = 0; s < WAIT_S * 10 && access(go, F_OK) != 0; s++)
		usleep(100000);
	if (access(go, F_OK) != 0)
		die("waiting for GO");
}

int
main(int argc, char **argv)
{
	uint8_t pdata[RXD_RS_CONN_LEN];
	struct rdma_conn_param p = {
		.private_data = pdata, .private_data_len = sizeof(pdata),
		.flow_control = 1, .retry_count = 7, .rnr_retry_count = 7,
	};

	if (argc != 4) {
		fprintf(stderr, "usage: rs-abort-peer DST-IPV4 PORT GO\n");
		return 2;
	}
	ch = rdma_create_event_channel();
	if (ch == NULL || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0)
		die("rdma_create_id");
	resolve(argv[1], argv[2]);
	endpoint(pdata);
	if (rdma_connect(id, &p) != 0)
		die("rdma_connect");
	expect(RDMA_CM_EVENT_ESTABLISHED);
	first_credits();
	fprintf(stderr, "connected\n");  /* retry-connect holds stdout */
	wait_go(argv[3]);
	if (rdma_disconnect(id) != 0)
		die("rdma_disconnect");
	expect(RDMA_CM_EVENT_DISCONNECTED);
	printf("disconnected without DISCONNECT\n");
	return 0;
}
