/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer-death: the verbs both sides use.  One device, PD and registered
 * buffer a process; a CQ and an RC QP a connection, moved to RTS by hand
 * with the short timeout and retry count of peer_death.h; posting,
 * completion waits with a back-off, the socket's reads,
 * the seeded generator and the counters printed when a transfer fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "peer_death.h"
#include "rxd/rxd.h"
#include "rxd_test_qp.h"

struct pd_dev pd_dev;

const char *const pd_work_name[W_COUNT + 1] = {
	[W_VICTIM_WRITE] = "victim-write",
	[W_VICTIM_READ] = "victim-read",
	[W_VICTIM_ATOMIC] = "victim-atomic",
	[W_SURVIVOR_WRITE] = "survivor-write",
	[W_SURVIVOR_READ] = "survivor-read",
	[W_CM] = "cm-handshake",
	[W_FINAL] = "final",
};

void
pd_dev_open(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (list == NULL || list[0] == NULL) {
		fprintf(stderr, "peer-death: no device: %s\n", rxd_last_error());
		exit(2);
	}
	pd_dev.ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	pd_dev.pd = pd_dev.ctx ? ibv_alloc_pd(pd_dev.ctx) : NULL;
	pd_dev.buf = aligned_alloc(4096, PD_BUF);
	if (pd_dev.pd == NULL || pd_dev.buf == NULL) {
		fprintf(stderr, "peer-death: verbs setup failed\n");
		exit(2);
	}
	memset(pd_dev.buf, 0, PD_BUF);
	pd_dev.mr = ibv_reg_mr(pd_dev.pd, pd_dev.buf, PD_BUF,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ |
			       IBV_ACCESS_REMOTE_ATOMIC);
	if (pd_dev.mr == NULL) {
		fprintf(stderr, "peer-death: ibv_reg_mr failed\n");
		exit(2);
	}
}

int
pd_conn_create(struct pd_conn *c)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 } };

	c->cq = ibv_create_cq(pd_dev.ctx, 128, NULL, NULL, 0);
	if (c->cq == NULL)
		return -1;
	qa.send_cq = qa.recv_cq = c->cq;
	c->qp = ibv_create_qp(pd_dev.pd, &qa);
	return c->qp == NULL ? -1 : 0;
}

void
pd_conn_destroy(struct pd_conn *c)
{
	if (c->qp != NULL && ibv_destroy_qp(c->qp) != 0)
		fprintf(stderr, "FAIL: ibv_destroy_qp: %s\n", strerror(errno));
	if (c->cq != NULL && ibv_destroy_cq(c->cq) != 0)
		fprintf(stderr, "FAIL: ibv_destroy_cq: %s\n", strerror(errno));
	c->qp = NULL;
	c->cq = NULL;
}

struct pd_peer
pd_conn_self(const struct pd_conn *c)
{
	return (struct pd_peer){ c->qp->qp_num, pd_dev.mr->rkey,
				 (uintptr_t)pd_dev.buf };
}

/* INIT, RTR towards 10.0.0.PEER_OCTET's QP, RTS. */
int
pd_conn_connect(struct pd_conn *c, const struct pd_peer *r,
		uint8_t peer_octet)
{
	struct rxd_test_rc_path p = { .dest_qpn = r->qpn, .rq_psn = 0x100,
		.sq_psn = 0x100, .path_mtu = IBV_MTU_1024,
		.rd_atomic = PD_WINDOW, .timeout = PD_TIMEOUT,
		.retry_cnt = PD_RETRY_CNT, .rnr_retry = PD_RETRY_CNT };

	rxd_test_gid_v4(p.dgid, 10, 0, 0, peer_octet);
	return rxd_test_rc_connect(c->qp, &p);
}

int
pd_post_recv(struct ibv_qp *qp, uint64_t id)
{
	struct ibv_sge s = { (uintptr_t)pd_dev.buf + PD_LOCAL, 64,
			     pd_dev.mr->lkey };
	struct ibv_recv_wr w = { .wr_id = id, .sg_list = &s, .num_sge = 1 },
		*bad;

	return ibv_post_recv(qp, &w, &bad);
}

/* One signaled WR from the local area at OFF to R's area at ROFF; atomics
 * use 8 bytes there and the word at ROFF, adding 1 or swapping 0 for 0. */
int
pd_post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id, uint64_t off,
	uint32_t len, const struct pd_peer *r, uint64_t roff)
{
	struct ibv_sge s = { (uintptr_t)pd_dev.buf + off, len,
			     pd_dev.mr->lkey };
	struct ibv_send_wr w = { .wr_id = id, .sg_list = &s, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		s.length = 8;
		w.wr.atomic.remote_addr = r->addr + roff;
		w.wr.atomic.rkey = r->rkey;
		w.wr.atomic.compare_add = op == IBV_WR_ATOMIC_FETCH_AND_ADD;
	} else {
		w.wr.rdma.remote_addr = r->addr + roff;
		w.wr.rdma.rkey = r->rkey;
	}
	return ibv_post_send(qp, &w, &bad);
}

/* Sleep a little more each idle pass, up to 200 us: two processes share
 * two cores with their engines. */
void
pd_idle(unsigned int *spins)
{
	if (*spins < 200)
		(*spins)++;
	else
		usleep(*spins < 400 ? ++*spins - 200 : 200);
}

double
pd_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* @return 0 with one completion in WC, -1 on error or after MS. */
int
pd_wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int ms)
{
	double end = pd_now_ms() + ms;
	unsigned int spins = 0;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n != 0)
			return n < 0 ? -1 : 0;
		pd_idle(&spins);
	} while (pd_now_ms() < end);
	return -1;
}

int
pd_sock_read(int s, void *p, size_t n)
{
	ssize_t r;

	while (n > 0) {
		r = read(s, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p = (uint8_t *)p + r;
		n -= (size_t)r;
	}
	return 0;
}

int
pd_sock_write(int s, const void *p, size_t n)
{
	return write(s, p, n) == (ssize_t)n ? 0 : -1;
}

/* splitmix64: the seeded choices of workload moments. */
uint64_t
pd_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* After a failed transfer: the counters of the QP and of the port. */
void
pd_diag(const char *who, uint32_t qpn)
{
	struct rxd_port_counters pc;
	struct rxd_qp_stats q;

	if (rxd_qp_stats(0, qpn, &q) == 0)
		fprintf(stderr, "%s: qp tx %lu rx %lu retransmits %lu timeouts "
			"%lu naks rx %lu tx %lu duplicates %lu acks tx %lu\n", who,
			(unsigned long)q.tx_pkts, (unsigned long)q.rx_pkts,
			(unsigned long)q.retransmits, (unsigned long)q.timeouts,
			(unsigned long)q.naks_rx[0], (unsigned long)q.naks_tx[0],
			(unsigned long)q.duplicates, (unsigned long)q.acks_tx);
	if (rxd_port_counters(0, &pc) == 0)
		fprintf(stderr, "%s: port rx %lu tx %lu tx_full %lu arp rx %lu "
			"tx %lu held_dropped %lu resolve_failed %lu no_route %lu "
			"unknown_qp %lu bad_peer %lu other %lu\n", who,
			(unsigned long)pc.rx_pkts, (unsigned long)pc.tx_pkts,
			(unsigned long)pc.tx_full, (unsigned long)pc.arp_rx,
			(unsigned long)pc.arp_tx, (unsigned long)pc.held_dropped,
			(unsigned long)pc.resolve_failed,
			(unsigned long)pc.no_route,
			(unsigned long)pc.roce_unknown_qp,
			(unsigned long)pc.roce_bad_peer,
			(unsigned long)pc.other_dropped);
}
