/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer-death: the rdma_cm side.  The survivor listens for the whole run;
 * in a CM round it kills the victim when its REQ arrives, either before
 * answering it or right after rdma_accept (one time in four 0..2 ms
 * after it), so the victim dies somewhere between REQ and RTU (or just
 * after).  The survivor then needs
 * RDMA_CM_EVENT_UNREACHABLE (REP never answered), or, if the RTU made it,
 * ESTABLISHED and a SEND that ends with retry exceeded; within
 * PD_STUCK_MS (nominally RXD_CM_TIMEOUT_MS times rxd's 16 tries, or the
 * QP's (retry_cnt + 1) timeouts).  The final
 * victim connects cleanly and SENDs 64 checked bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "peer_death.h"
#include "rxd_test_pattern.h"
#include "rxd/rxd.h"

#define CM_WAIT_MS 15000
#define CM_RETRIES 15               /* rxd's MAD retries */
#define CLEAN_SEED 0xc3
#define CLEAN_LEN 64

static struct rdma_event_channel *ec;
static struct rdma_cm_id *listener;

static int
resolve(const char *addr, struct addrinfo **ai)
{
	struct addrinfo hints = { .ai_family = AF_INET };

	return getaddrinfo(addr, PD_CM_PORT, &hints, ai);
}

int
pd_cm_listen(const char *addr)
{
	struct addrinfo *ai;
	int rc;

	ec = rdma_create_event_channel();
	if (ec == NULL || resolve(addr, &ai) != 0)
		return -1;
	fcntl(ec->fd, F_SETFL, fcntl(ec->fd, F_GETFL) | O_NONBLOCK);
	rc = rdma_create_id(ec, &listener, NULL, RDMA_PS_TCP) ||
		rdma_bind_addr(listener, ai->ai_addr) ||
		rdma_listen(listener, 4);
	freeaddrinfo(ai);
	return rc ? -1 : 0;
}

void
pd_cm_close(void)
{
	rdma_destroy_id(listener);
	rdma_destroy_event_channel(ec);
}

/* The next event (copied, acked) within MS. @return 0, or -1. */
static int
next_event(struct rdma_cm_event *out, unsigned int ms)
{
	double end = pd_now_ms() + ms;
	struct pollfd p = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	for (;;) {
		if (rdma_get_cm_event(ec, &ev) == 0) {
			*out = *ev;
			rdma_ack_cm_event(ev);
			return 0;
		}
		if (errno != EAGAIN || pd_now_ms() >= end)
			return -1;
		poll(&p, 1, 1);
	}
}

static double
cm_timeout_ms(void)
{
	const char *e = getenv("RXD_CM_TIMEOUT_MS");

	return e != NULL && atoi(e) > 0 ? atoi(e) : 4700;
}

/* What an rdma_cm connection owns: the id's device is not pd_dev's
 * context, so a PD, an MR over the same buffer and a CQ of its own. */
struct cm_conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
};

static void
cm_drop(struct cm_conn *c)
{
	if (c->id->qp != NULL)
		rdma_destroy_qp(c->id);
	if ((c->cq != NULL && ibv_destroy_cq(c->cq) != 0) ||
	    (c->mr != NULL && ibv_dereg_mr(c->mr) != 0) ||
	    (c->pd != NULL && ibv_dealloc_pd(c->pd) != 0))
		printf("FAIL: freeing an rdma_cm connection: %s\n",
		       strerror(errno));
	rdma_destroy_id(c->id);
}

static int
cm_qp(struct cm_conn *c, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 } };

	*c = (struct cm_conn){ .id = id };
	c->pd = ibv_alloc_pd(id->verbs);
	c->cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	if (c->pd == NULL || c->cq == NULL)
		return -1;
	c->mr = ibv_reg_mr(c->pd, pd_dev.buf, PD_BUF, IBV_ACCESS_LOCAL_WRITE);
	qa.send_cq = qa.recv_cq = c->cq;
	return c->mr == NULL || rdma_create_qp(id, c->pd, &qa) != 0 ? -1 : 0;
}

/* A SEND or a receive of LEN bytes at the local area. */
static int
cm_post(struct cm_conn *c, bool send, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)pd_dev.buf + PD_LOCAL, len,
			       c->mr->lkey };
	struct ibv_send_wr w = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rw = { .wr_id = 8, .sg_list = &sge, .num_sge = 1 },
		*rbad;

	return send ? ibv_post_send(c->id->qp, &w, &bad) :
		ibv_post_recv(c->id->qp, &rw, &rbad);
}

static int
accept_req(struct rdma_cm_id *id)
{
	struct rdma_conn_param p = { .initiator_depth = 1,
				     .responder_resources = 1,
				     .retry_count = PD_RETRY_CNT,
				     .rnr_retry_count = PD_RETRY_CNT };

	return rdma_accept(id, &p);
}

/* After ESTABLISHED with a dead peer: a SEND must fail. */
static int
probe(struct cm_conn *c, enum ibv_wc_status *st)
{
	struct ibv_wc wc;

	if (cm_post(c, true, 8) != 0 || pd_wait_wc(c->cq, &wc, CM_WAIT_MS))
		return -1;
	*st = wc.status;
	return wc.status == IBV_WC_RETRY_EXC_ERR ||
		wc.status == IBV_WC_RNR_RETRY_EXC_ERR ? 0 : -1;
}

/* Events of the dying connection until it has failed. */
static int
await_failure(struct cm_conn *c, const char **what)
{
	static char text[96];
	enum ibv_wc_status st = IBV_WC_SUCCESS;
	struct rdma_cm_event ev;

	while (next_event(&ev, CM_WAIT_MS) == 0) {
		if (ev.id != c->id)
			continue;
		if (ev.event == RDMA_CM_EVENT_ESTABLISHED) {
			int rc = probe(c, &st);

			snprintf(text, sizeof(text), "ESTABLISHED, then a SEND "
				 "ended with %s", ibv_wc_status_str(st));
			*what = text;
			return rc;
		}
		*what = rdma_event_str(ev.event);
		return ev.event == RDMA_CM_EVENT_UNREACHABLE ||
			ev.event == RDMA_CM_EVENT_REJECTED ||
			ev.event == RDMA_CM_EVENT_CONNECT_ERROR ? 0 : -1;
	}
	*what = "no event";
	return -1;
}

int
pd_cm_survivor_kill(int pid, uint64_t *rng, const char *tag)
{
	bool accept_first = pd_rand(rng) % 2;
	unsigned int delay_us = pd_rand(rng) % 4 ? 0 :    /* before the RTU */
		(unsigned int)(pd_rand(rng) % 2000);
	double t_kill, t_err, nominal = (CM_RETRIES + 1) * cm_timeout_ms();
	struct rdma_cm_event ev = { 0 };
	struct cm_conn c;
	const char *what;
	int rc;

	if (next_event(&ev, CM_WAIT_MS) != 0 ||
	    ev.event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		printf("FAIL: %s: no connect request (%s)\n", tag,
		       rdma_event_str(ev.event));
		kill(pid, SIGKILL);
		return -1;
	}
	if (cm_qp(&c, ev.id) != 0) {
		printf("FAIL: %s: no QP for the request\n", tag);
		kill(pid, SIGKILL);
		cm_drop(&c);
		return -1;
	}
	if (accept_first) {
		rc = accept_req(c.id);
		usleep(delay_us);
	}
	kill(pid, SIGKILL);
	t_kill = pd_now_ms();
	if (!accept_first)
		rc = accept_req(c.id);
	if (rc != 0) {
		printf("FAIL: %s: rdma_accept: %s\n", tag, strerror(errno));
		cm_drop(&c);
		return -1;
	}
	rc = await_failure(&c, &what);
	t_err = pd_now_ms();
	cm_drop(&c);
	if (rc == 0 && t_err - t_kill > PD_STUCK_MS)
		rc = -1;
	printf("%s: %s: killed %s, %s %.1f ms later (nominal %.0f ms)\n",
	       rc ? "FAIL" : "PASS", tag, accept_first ?
	       "after rdma_accept" : "before rdma_accept", what,
	       t_err - t_kill, what[0] == 'E' ? PD_NOMINAL_MS : nominal);
	fflush(stdout);
	return rc;
}

static int
expect(enum rdma_cm_event_type type, struct rdma_cm_event *ev)
{
	if (next_event(ev, CM_WAIT_MS) == 0 && ev->event == type)
		return 0;
	printf("FAIL: final rdma_cm connection: %s, expected %s\n",
	       rdma_event_str(ev->event), rdma_event_str(type));
	return -1;
}

int
pd_cm_survivor_clean(void)
{
	struct rdma_cm_event ev;
	struct cm_conn c;
	struct ibv_wc wc;
	int rc = -1;

	if (expect(RDMA_CM_EVENT_CONNECT_REQUEST, &ev) != 0)
		return -1;
	if (cm_qp(&c, ev.id) || cm_post(&c, false, CLEAN_LEN) ||
	    accept_req(c.id) || expect(RDMA_CM_EVENT_ESTABLISHED, &ev))
		goto out;
	if (pd_wait_wc(c.cq, &wc, CM_WAIT_MS) || wc.status != IBV_WC_SUCCESS ||
	    wc.byte_len != CLEAN_LEN ||
	    !rxd_test_holds(pd_dev.buf + PD_LOCAL, CLEAN_LEN, CLEAN_SEED)) {
		printf("FAIL: final rdma_cm connection: the SEND did not "
		       "arrive intact\n");
		goto out;
	}
	if (expect(RDMA_CM_EVENT_DISCONNECTED, &ev) == 0) {
		printf("PASS: after the kills a new rdma_cm connection is "
		       "accepted and carries %u checked bytes\n", CLEAN_LEN);
		rc = 0;
	}
out:
	cm_drop(&c);
	return rc;
}

/* Victim: wait for one event on a blocking channel. */
static int
victim_event(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type got;

	if (rdma_get_cm_event(ch, &ev) != 0)
		return -1;
	got = ev->event;
	rdma_ack_cm_event(ev);
	if (got != type)
		fprintf(stderr, "victim: %s, expected %s\n",
			rdma_event_str(got), rdma_event_str(type));
	return got == type ? 0 : -1;
}

static int
victim_failed(const char *what)
{
	fprintf(stderr, "victim: %s failed: %s\n", what, strerror(errno));
	return -1;
}

static int
victim_send(struct cm_conn *c)
{
	struct ibv_wc wc;

	rxd_test_fill(pd_dev.buf + PD_LOCAL, CLEAN_LEN, CLEAN_SEED);
	return cm_post(c, true, CLEAN_LEN) ||
		pd_wait_wc(c->cq, &wc, CM_WAIT_MS) ||
		wc.status != IBV_WC_SUCCESS ? -1 : 0;
}

int
pd_cm_victim(const char *addr, bool clean)
{
	struct rdma_conn_param p = { .initiator_depth = 1,
				     .responder_resources = 1,
				     .retry_count = PD_RETRY_CNT,
				     .rnr_retry_count = PD_RETRY_CNT };
	struct rdma_event_channel *ch = rdma_create_event_channel();
	uint8_t ack_timeout = PD_TIMEOUT;
	struct rdma_cm_id *id;
	struct addrinfo *ai;
	struct cm_conn c;

	if (ch == NULL || resolve(addr, &ai) != 0 ||
	    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0)
		return victim_failed("rdma_create_id");
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
			    &ack_timeout, sizeof(ack_timeout)) != 0)
		return victim_failed("rdma_set_option");
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 2000) != 0 ||
	    victim_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED) != 0)
		return victim_failed("rdma_resolve_addr");
	if (cm_qp(&c, id) != 0)
		return victim_failed("rdma_create_qp");
	if (rdma_resolve_route(id, 2000) != 0 ||
	    victim_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED) != 0)
		return victim_failed("rdma_resolve_route");
	if (rdma_connect(id, &p) != 0)
		return victim_failed("rdma_connect");
	freeaddrinfo(ai);
	if (!clean) {
		for (;;)        /* until the survivor kills us */
			pause();
	}
	if (victim_event(ch, RDMA_CM_EVENT_ESTABLISHED) != 0 ||
	    victim_send(&c) != 0 || rdma_disconnect(id) != 0 ||
	    victim_event(ch, RDMA_CM_EVENT_DISCONNECTED) != 0)
		return -1;
	cm_drop(&c);
	rdma_destroy_event_channel(ch);
	return 0;
}
