/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connections: "listen" and "connect" meet a peer over TCP, swap QPN, PSN,
 * GID, rkey, buffer address and MTU as one text line each way, and take a
 * new RC QP through INIT, RTR and RTS with verbs; a last "ready" line each
 * way makes sure both QPs can receive before traffic starts.  Also the
 * table of connections and the verbs objects behind them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_random.h>

#include "testpmd.h"

#define RESOLVE_TIMEOUT_MS 5000
#define RD_ATOMIC 16
#define QP_TIMEOUT 14                /* 4.096 us * 2^14 = 67 ms */
#define HELLO "rxd-testpmd"

/* One verbs device (rxdN) per rxd port, opened by the first connection. */
static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
} devs[RXD_MAX_PORTS];

static struct tp_conn conns[TP_MAX_CONNS];
static unsigned int n_conns;         /* published with release */

unsigned int
tp_conn_count(void)
{
	return __atomic_load_n(&n_conns, __ATOMIC_ACQUIRE);
}

struct tp_conn *
tp_conn_get(unsigned int i)
{
	return &conns[i];
}

uint32_t
tp_conn_mtu(const struct tp_conn *c)
{
	return c->local.mtu < c->remote.mtu ? c->local.mtu : c->remote.mtu;
}

int
tp_set_conn_gid(const struct tp_args *a)
{
	uint8_t gid[16];
	char buf[INET6_ADDRSTRLEN];

	if (!tp_port_ok(a->port))
		return -1;
	if (rxd_query_gid(a->port, a->index, gid) != 0) {
		fprintf(stderr, "set conn-gid: port %u has no GID %u\n",
			a->port, a->index);
		return -1;
	}
	tp.conn_port = a->port;
	tp.conn_gid = a->index;
	tp_gid_str(gid, buf, sizeof(buf));
	printf("new connections use port %u gid %u %s\n", a->port, a->index,
	       buf);
	return 0;
}

static int
open_dev(unsigned int port)
{
	struct ibv_device **list;
	char name[16];
	int i, n;

	if (devs[port].pd != NULL)
		return 0;
	snprintf(name, sizeof(name), "rxd%u", port);
	list = ibv_get_device_list(&n);
	for (i = 0; list != NULL && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			devs[port].ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (devs[port].ctx != NULL)
		devs[port].pd = ibv_alloc_pd(devs[port].ctx);
	if (devs[port].pd == NULL) {
		fprintf(stderr, "cannot open verbs device %s: %s\n", name,
			strerror(errno));
		return -1;
	}
	return 0;
}

static void
close_conn(struct tp_conn *c)
{
	if (c->qp != NULL)
		ibv_destroy_qp(c->qp);
	if (c->cq != NULL)
		ibv_destroy_cq(c->cq);
	if (c->mr != NULL)
		ibv_dereg_mr(c->mr);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

void
tp_conns_close(void)
{
	unsigned int i;

	for (i = 0; i < tp_conn_count(); i++)
		close_conn(&conns[i]);
	n_conns = 0;
	for (i = 0; i < RXD_MAX_PORTS; i++) {
		if (devs[i].pd != NULL)
			ibv_dealloc_pd(devs[i].pd);
		if (devs[i].ctx != NULL)
			ibv_close_device(devs[i].ctx);
	}
	memset(devs, 0, sizeof(devs));
}

/* Buffer, MR, CQ and a QP in INIT with its receives posted. */
static int
create_qp(struct tp_conn *c)
{
	struct ibv_pd *pd = devs[c->port].pd;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = TP_SQ_DEPTH,
			 .max_recv_wr = TP_RECV_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };

	c->buf = calloc(1, TP_BUF_SIZE);
	if (c->buf != NULL)
		c->mr = ibv_reg_mr(pd, c->buf, TP_BUF_SIZE,
				   init.qp_access_flags);
	if (c->mr != NULL)
		c->cq = ibv_create_cq(pd->context,
				      TP_SQ_DEPTH + TP_RECV_DEPTH, NULL, NULL,
				      0);
	qa.send_cq = qa.recv_cq = c->cq;
	if (c->cq != NULL)
		c->qp = ibv_create_qp(pd, &qa);
	if (c->qp == NULL) {
		fprintf(stderr, "cannot create the QP and its buffer: %s\n",
			strerror(errno));
		return -1;
	}
	errno = ibv_modify_qp(c->qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (errno != 0) {
		fprintf(stderr, "QP to INIT: %s\n", strerror(errno));
		return -1;
	}
	return tp_flow_init(c);
}

static enum ibv_mtu
mtu_enum(uint32_t bytes)
{
	enum ibv_mtu m = IBV_MTU_256;

	while (m < IBV_MTU_4096 && (256u << m) <= bytes)
		m++;
	return m;
}

static int
to_rts(struct tp_conn *c)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_enum(tp_conn_mtu(c)),
		.dest_qp_num = c->remote.qpn, .rq_psn = c->remote.psn,
		.max_dest_rd_atomic = RD_ATOMIC, .min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			.grh = { .sgid_index = (uint8_t)tp.conn_gid,
				 .hop_limit = 64 } } };

	memcpy(a.ah_attr.grh.dgid.raw, c->remote.gid, 16);
	errno = ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			      IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			      IBV_QP_MIN_RNR_TIMER);
	if (errno != 0) {
		fprintf(stderr, "QP to RTR: %s\n", strerror(errno));
		return -1;
	}
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->local.psn;
	a.timeout = QP_TIMEOUT;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = RD_ATOMIC;
	errno = ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (errno != 0) {
		fprintf(stderr, "QP to RTS: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int
exchange(struct tp_conn *c, int fd)
{
	char line[256], gid[INET6_ADDRSTRLEN];
	struct tp_peer *r = &c->remote;

	tp_gid_str(c->local.gid, gid, sizeof(gid));
	snprintf(line, sizeof(line), HELLO " qpn %x psn %x rkey %x addr %"
		 PRIx64 " mtu %u gid %s\n", c->local.qpn, c->local.psn,
		 c->local.rkey, c->local.addr, c->local.mtu, gid);
	if (tp_tcp_send_line(fd, line) != 0 ||
	    tp_tcp_recv_line(fd, line, sizeof(line)) != 0)
		return -1;
	if (sscanf(line, HELLO " qpn %x psn %x rkey %x addr %" SCNx64
		   " mtu %u gid %45s", &r->qpn, &r->psn, &r->rkey, &r->addr,
		   &r->mtu, gid) != 6 ||
	    inet_pton(AF_INET6, gid, r->gid) != 1) {
		fprintf(stderr, "the peer is not an rxd-testpmd: '%s'\n",
			line);
		return -1;
	}
	return 0;
}

static int
describe_local(struct tp_conn *c)
{
	struct rxd_port_info info;

	if (rxd_port_info(c->port, &info) != 0 ||
	    rxd_query_gid(c->port, tp.conn_gid, c->local.gid) != 0) {
		fprintf(stderr, "port %u has no GID %u (give it an address "
			"with --ip, or see set conn-gid)\n", c->port,
			tp.conn_gid);
		return -1;
	}
	c->local.mtu = info.ib_mtu;
	c->local.psn = (uint32_t)rte_rand() & 0xffffff;
	return 0;
}

/* Learn the peer's MAC now rather than holding the first frames. */
static int
resolve_peer(const struct tp_conn *c)
{
	char gid[INET6_ADDRSTRLEN];
	uint8_t mac[6];

	if (rxd_resolve(c->port, c->remote.gid, mac, RESOLVE_TIMEOUT_MS) == 0)
		return 0;
	tp_gid_str(c->remote.gid, gid, sizeof(gid));
	fprintf(stderr, "cannot reach the peer's GID %s from port %u: %s\n",
		gid, c->port, rxd_last_error());
	return -1;
}

/* Everything after the TCP connection is up. */
static int
setup(struct tp_conn *c, int fd)
{
	char line[32];

	c->port = tp.conn_port;
	if (describe_local(c) != 0 || open_dev(c->port) != 0 ||
	    create_qp(c) != 0)
		return -1;
	c->local.qpn = c->qp->qp_num;
	c->local.rkey = c->mr->rkey;
	c->local.addr = (uintptr_t)c->buf;
	if (exchange(c, fd) != 0 || resolve_peer(c) != 0 || to_rts(c) != 0 ||
	    tp_tcp_send_line(fd, "ready\n") != 0 ||
	    tp_tcp_recv_line(fd, line, sizeof(line)) != 0)
		return -1;
	if (strcmp(line, "ready") != 0) {
		fprintf(stderr, "the peer failed to set up its QP\n");
		return -1;
	}
	return 0;
}

static int
open_conn(int fd, const char *what)
{
	struct tp_conn *c;
	char gid[INET6_ADDRSTRLEN];
	unsigned int n = tp_conn_count();

	if (fd < 0)
		return -1;
	c = &conns[n];
	if (setup(c, fd) != 0 || tp_worker_start() != 0) {
		fprintf(stderr, "%s: no connection\n", what);
		close(fd);
		close_conn(c);
		return -1;
	}
	close(fd);
	__atomic_store_n(&n_conns, n + 1, __ATOMIC_RELEASE);
	tp_gid_str(c->remote.gid, gid, sizeof(gid));
	printf("qp 0x%06x connected to qp 0x%06x at %s (port %u, mtu %u)\n",
	       c->local.qpn, c->remote.qpn, gid, c->port, tp_conn_mtu(c));
	return 0;
}

static bool
room_for_conn(const char *what)
{
	if (tp_conn_count() < TP_MAX_CONNS)
		return true;
	fprintf(stderr, "%s: already %d connections\n", what, TP_MAX_CONNS);
	return false;
}

int
tp_listen(const struct tp_args *a)
{
	if (!room_for_conn("listen"))
		return -1;
	return open_conn(tp_tcp_accept(a->tcp_port), "listen");
}

int
tp_connect(const struct tp_args *a)
{
	if (!room_for_conn("connect"))
		return -1;
	return open_conn(tp_tcp_connect(a->text, a->tcp_port), "connect");
}
