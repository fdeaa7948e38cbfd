/* SPDX-License-Identifier: BSD-3-Clause */
/* Test harness for RC between two rxd ports (see rc_pair.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <rte_eal.h>

#include "rc_pair.h"
#include "rxd/rxd.h"
#include "rxd_port.h"
#include "rxd_test_eal.h"

static void
open_end(struct rc_end *e, struct ibv_device *dev, const struct rc_opts *o)
{
	e->ctx = ibv_open_device(dev);
	cr_assert_not_null(e->ctx);
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, (int)(4 * o->wr), NULL, NULL, 0);
	e->len = o->buf_len;
	e->buf = aligned_alloc(4096, (e->len + 4095) & ~(size_t)4095);
	cr_assert(e->pd && e->cq && e->buf);
	memset(e->buf, 0, e->len);
	e->mr = ibv_reg_mr(e->pd, e->buf, e->len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	cr_assert_not_null(e->mr);
}

struct ibv_qp *
rc_create_qp(struct rc_end *e, const struct rc_opts *o)
{
	struct ibv_qp_init_attr a = {
		.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = o->wr, .max_recv_wr = o->wr,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
	};

	struct ibv_qp *qp = ibv_create_qp(e->pd, &a);

	cr_assert_not_null(qp, "create_qp: %s", strerror(errno));
	return qp;
}

/*
 * With RXD_ENGINES_PER_PORT >= 2 the engines float over the CPUs the test
 * shares with its main thread (and with a second test process): an engine
 * can wait tens of milliseconds for a CPU while its peer's retransmit
 * timer runs.  Below 16.8 ms (timeout 12) seven retries can run out in
 * that wait, which is the machine's doing, not the transport's.
 */
static uint8_t
retransmit_timeout(uint8_t timeout)
{
	const char *v = getenv("RXD_ENGINES_PER_PORT");

	return v != NULL && atoi(v) >= 2 && timeout < 12 ? 14 : timeout;
}

void
rc_connect_qp(struct ibv_qp *qp, uint32_t dqpn, uint8_t peer_octet,
	      uint8_t sgid_index, const struct rc_opts *o)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = o->access };
	bool rc = qp->qp_type == IBV_QPT_RC;

	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE |
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = o->mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0xfffff0;           /* wraps within the first messages */
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = o->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = sgid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
	a.ah_attr.grh.dgid.raw[12] = 10;
	a.ah_attr.grh.dgid.raw[15] = peer_octet;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
		IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		(rc ? IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER : 0)), 0);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0xfffff0;
	a.timeout = retransmit_timeout(o->timeout);
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = 4;
	cr_assert_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
		(rc ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		 IBV_QP_MAX_QP_RD_ATOMIC : 0)), 0);
}

void
rc_pair_connect(struct rc_pair *p, const struct rc_opts *o)
{
	if (p->a.qp != NULL) {
		ibv_destroy_qp(p->a.qp);
		ibv_destroy_qp(p->b.qp);
	}
	p->a.qp = rc_create_qp(&p->a, o);
	p->b.qp = rc_create_qp(&p->b, o);
	rc_connect_qp(p->a.qp, p->b.qp->qp_num, 2, 1, o);
	rc_connect_qp(p->b.qp, p->a.qp->qp_num, 1, 1, o);
}

struct ibv_qp_ex *
rc_pair_connect_ex(struct rc_pair *p, const struct rc_opts *o,
		   uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = p->a.cq, .recv_cq = p->a.cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = o->wr, .max_recv_wr = o->wr,
			 .max_send_sge = 4, .max_recv_sge = 4 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = p->a.pd, .send_ops_flags = send_ops,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(p->a.ctx, &a);

	cr_assert_not_null(qp, "create_qp_ex: %s", strerror(errno));
	ibv_destroy_qp(p->a.qp);
	ibv_destroy_qp(p->b.qp);
	p->a.qp = qp;
	p->b.qp = rc_create_qp(&p->b, o);
	rc_connect_qp(p->a.qp, p->b.qp->qp_num, 2, 1, o);
	rc_connect_qp(p->b.qp, p->a.qp->qp_num, 1, 1, o);
	cr_assert_not_null(ibv_qp_to_qp_ex(qp));
	return ibv_qp_to_qp_ex(qp);
}

/*
 * RXD_ENGINES_PER_PORT=N (which sets port 0's engines_per_port) runs the
 * pair's tests with N engines on both ports: N worker lcores, floating
 * over the CPUs there are, and port 1 set like port 0.  Writes the EAL's
 * lcore option and rxd's options for it (both "" with no such N).
 */
static void
shard_args(const struct rc_opts *o, char *lcores, size_t lcores_len,
	   char *rxd, size_t rxd_len)
{
	const char *v = getenv("RXD_ENGINES_PER_PORT");
	unsigned int n = v != NULL ? (unsigned int)atoi(v) : 0;

	if (n < 2 || strcmp(o->eal_lcores, "0") == 0) {
		snprintf(lcores, lcores_len, "-l %s", o->eal_lcores);
		rxd[0] = '\0';
		return;
	}
	snprintf(lcores, lcores_len, "--lcores (0-%u)@(0-1)", n);
	snprintf(rxd, rxd_len, "--set port1.engines_per_port=%u", n);
}

/*
 * RXD_PAIR_LINK=memif (ring, the default, is the net_ring pair; anything
 * else fails the test) joins the two ports with a pair of memif vdevs in
 * this process (server and client on one socket) instead of a net_ring
 * pair: the PMD rxd users run, with a queue pair per engine.  Writes the
 * EAL's options for it ("" for ring).  @return true for memif.
 */
static bool
link_args(char *eal, size_t len)
{
	const char *v = getenv("RXD_PAIR_LINK");
	char sock[64];

	eal[0] = '\0';
	if (v == NULL || v[0] == '\0' || strcmp(v, "ring") == 0)
		return false;
	cr_assert_str_eq(v, "memif", "RXD_PAIR_LINK: '%s' is neither ring "
			 "nor memif", v);
	snprintf(sock, sizeof(sock), "/tmp/rxd-pair-%d.sock", (int)getpid());
	unlink(sock);
	snprintf(eal, len, "--vdev=net_memif0,role=server,id=0,socket=%s,"
		 "socket-abstract=no --vdev=net_memif1,role=client,id=0,"
		 "socket=%s,socket-abstract=no", sock, sock);
	return true;
}

/* Both ports ACTIVE (a memif link comes up a moment after the start). */
static void
wait_active(struct ibv_device **list)
{
	struct ibv_port_attr pa;
	int i, tries;

	for (i = 0; i < 2; i++) {
		struct ibv_context *c = ibv_open_device(list[i]);

		cr_assert_not_null(c);
		for (tries = 0; tries < 3000; tries++) {
			cr_assert_eq(ibv_query_port(c, 1, &pa), 0);
			if (pa.state == IBV_PORT_ACTIVE)
				break;
			usleep(10000);
		}
		cr_assert_eq(pa.state, IBV_PORT_ACTIVE, "port %d link", i);
		ibv_close_device(c);
	}
}

void
rc_pair_start(struct rc_pair *p, const struct rc_opts *o)
{
	char lcores[64], shard[64], link[256];
	struct ibv_device **list;
	bool memif;
	int n = 0;

	memset(p, 0, sizeof(*p));
	shard_args(o, lcores, sizeof(lcores), shard, sizeof(shard));
	memif = link_args(link, sizeof(link));
	cr_assert_geq(rxd_test_eal("%s -m 512 --no-shconf %s", lcores, link),
		      0);
	if (memif) {
		p->port_a = 0;
		p->port_b = 1;
	} else {
		cr_assert_eq(rxd_port_ring_pair("rcA", "rcB", 0, &p->port_a,
						&p->port_b), 0);
	}
	cr_assert_eq(rxd_test_rxd("--ip 0:10.0.0.1/24 --ip 0:10.0.0.9/24 "
		"--ip 1:10.0.0.2/24 --set limits.mbufs=16383 %s", shard), 0,
		"%s", rxd_last_error());
	list = ibv_get_device_list(&n);
	cr_assert_eq(n, 2);
	if (memif)
		wait_active(list);
	open_end(&p->a, list[0], o);
	open_end(&p->b, list[1], o);
	ibv_free_device_list(list);
	rc_pair_connect(p, o);
}

void
rc_pair_start_2eng(struct rc_pair *p, const struct rc_opts *o,
		   const char *link)
{
	setenv("RXD_PAIR_LINK", link, 1);
	setenv("RXD_ENGINES_PER_PORT", "2", 1);
	unsetenv("RXD_STEERING");
	rc_pair_start(p, o);
}

void
rc_pair_stop(struct rc_pair *p)
{
	(void)p;
	rxd_stop();
	rte_eal_cleanup();
}

int
rc_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, unsigned int ms)
{
	struct timespec t0, t;
	int got = 0, r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		cr_assert_geq(r, 0);
		got += r;
		if (r == 0)
			usleep(20);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
			break;
	}
	return got;
}

int
rc_post(struct rc_end *e, enum ibv_wr_opcode op, uint64_t wr_id, size_t off,
	uint32_t len, uint64_t raddr, uint32_t rkey, unsigned int flags)
{
	struct ibv_sge sge = { (uintptr_t)(e->buf + off), len, e->mr->lkey };
	struct ibv_send_wr w = { .wr_id = wr_id, .sg_list = &sge,
		.num_sge = 1, .opcode = op, .send_flags = flags }, *bad;

	w.wr.rdma.remote_addr = raddr;
	w.wr.rdma.rkey = rkey;
	return ibv_post_send(e->qp, &w, &bad);
}

int
rc_recv(struct rc_end *e, uint64_t wr_id, size_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)(e->buf + off), len, e->mr->lkey };
	struct ibv_recv_wr w = { .wr_id = wr_id, .sg_list = &sge,
		.num_sge = 1 }, *bad;

	return ibv_post_recv(e->qp, &w, &bad);
}
