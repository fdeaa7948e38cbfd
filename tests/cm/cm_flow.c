/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The seeds' rdma_cm client flow as a DPDK-native rxd program (librxd
 * linked statically, lib/cm included): create an event channel and an id,
 * resolve the address, then (on ADDR_RESOLVED) PD, completion channel, CQ,
 * rdma_create_qp, registered buffers and a posted receive, resolve the
 * route, connect, exchange one message each way, disconnect and tear
 * down on DISCONNECTED.  The server side binds, listens and accepts with
 * the same steps.  Messages carry the connection number and are checked
 * byte for byte.
 *
 * With "both-disconnect" each side disconnects as soon as it has the
 * other's message and destroys its QP at once, before DISCONNECTED, as
 * rping does: the two DREQs cross, and each arrives for a QP already gone.
 *
 * After the teardown a thread calls rdma_get_cm_event() on the destroyed
 * channel, as rping's CM thread may while its main thread exits: it must
 * block without reading the freed channel (ASan reports the read), and
 * the program exits under it.
 *
 * Usage: cm-flow EAL-ARGS -- [RXD-OPTS] server|client ADDR PORT
 *        [CONNECTIONS] [expect-reject|expect-addr-error|both-disconnect]
 * Exit 0 when every connection exchanged its messages (or the expected
 * failure event came with the expected status), 1 otherwise.
 */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>
#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_test_eal.h"

#define BUF_SIZE 64
#define TIMEOUT_MS 2000
#define REJ_INVALID_SERVICE_ID 8
#define SEND_WR_ID 1

struct conn {
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *recv_mr, *send_mr;
	char recv_buf[BUF_SIZE], send_buf[BUF_SIZE];
	unsigned int no;
};

static bool server;
static unsigned int conns_done, conns_wanted = 1;
static const char *expect = "";

static int
die(const char *what)
{
	fprintf(stderr, "cm-flow: %s failed: %s\n", what, strerror(errno));
	exit(1);
}

/* ADDR_RESOLVED (client) or CONNECT_REQUEST (server): the verbs side. */
static struct conn *
build_conn(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		die("calloc");
	c->no = conns_done;
	if ((c->pd = ibv_alloc_pd(id->verbs)) == NULL)
		die("ibv_alloc_pd");
	if ((c->cc = ibv_create_comp_channel(id->verbs)) == NULL)
		die("ibv_create_comp_channel");
	if ((c->cq = ibv_create_cq(id->verbs, 8, NULL, c->cc, 0)) == NULL)
		die("ibv_create_cq");
	if (ibv_req_notify_cq(c->cq, 0) != 0)
		die("ibv_req_notify_cq");
	qa.send_cq = qa.recv_cq = c->cq;
	if (rdma_create_qp(id, c->pd, &qa) != 0)
		die("rdma_create_qp");
	c->recv_mr = ibv_reg_mr(c->pd, c->recv_buf, BUF_SIZE,
				IBV_ACCESS_LOCAL_WRITE);
	c->send_mr = ibv_reg_mr(c->pd, c->send_buf, BUF_SIZE, 0);
	if (c->recv_mr == NULL || c->send_mr == NULL)
		die("ibv_reg_mr");
	sge.addr = (uintptr_t)c->recv_buf;
	sge.length = BUF_SIZE;
	sge.lkey = c->recv_mr->lkey;
	if (ibv_post_recv(id->qp, &wr, &bad) != 0)
		die("ibv_post_recv");
	id->context = c;
	return c;
}

static void
wait_completions(struct conn *c, unsigned int n)
{
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *ctx;
	int got;

	while (n > 0) {
		while ((got = ibv_poll_cq(c->cq, 1, &wc)) > 0) {
			/* the client disconnects once it has our message:
			 * our send may still wait for an ACK lost on the
			 * way and be flushed, which is fine */
			if (server && wc.status == IBV_WC_WR_FLUSH_ERR &&
			    wc.wr_id == SEND_WR_ID) {
				n--;
				continue;
			}
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "cm-flow: completion %s\n",
					ibv_wc_status_str(wc.status));
				exit(1);
			}
			n--;
		}
		if (n == 0)
			break;
		if (ibv_get_cq_event(c->cc, &cq, &ctx) != 0)
			die("ibv_get_cq_event");
		ibv_ack_cq_events(cq, 1);
		if (ibv_req_notify_cq(cq, 0) != 0)
			die("ibv_req_notify_cq");
	}
}

/* ESTABLISHED: send our message, wait for both completions, check. */
static void
exchange(struct rdma_cm_id *id)
{
	struct conn *c = id->context;
	struct ibv_sge sge = { (uintptr_t)c->send_buf, BUF_SIZE,
			       c->send_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = SEND_WR_ID,
				  .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	char want[BUF_SIZE];

	snprintf(c->send_buf, BUF_SIZE, "%s message of connection %u",
		 server ? "server" : "client", c->no);
	snprintf(want, BUF_SIZE, "%s message of connection %u",
		 server ? "client" : "server", c->no);
	if (ibv_post_send(id->qp, &wr, &bad) != 0)
		die("ibv_post_send");
	wait_completions(c, 2);
	if (strcmp(c->recv_buf, want) != 0) {
		fprintf(stderr, "cm-flow: received \"%.*s\", want \"%s\"\n",
			BUF_SIZE, c->recv_buf, want);
		exit(1);
	}
	printf("connection %u: received \"%s\"\n", c->no, c->recv_buf);
	if (!strcmp(expect, "both-disconnect")) {
		/* succeeds whether or not the peer's DREQ came first */
		if (rdma_disconnect(id) != 0)
			die("rdma_disconnect");
		rdma_destroy_qp(id);
	} else if (!server && rdma_disconnect(id) != 0) {
		die("rdma_disconnect");
	}
}

static void
destroy_conn(struct rdma_cm_id *id)
{
	struct conn *c = id->context;

	rdma_destroy_qp(id);
	ibv_dereg_mr(c->send_mr);
	ibv_dereg_mr(c->recv_mr);
	ibv_destroy_cq(c->cq);
	ibv_destroy_comp_channel(c->cc);
	ibv_dealloc_pd(c->pd);
	free(c);
	rdma_destroy_id(id);
	conns_done++;
}

static void
connect_id(struct rdma_cm_id *id)
{
	struct rdma_conn_param p = { .initiator_depth = 1,
				     .responder_resources = 1,
				     .retry_count = 7, .rnr_retry_count = 7 };

	if (server) {
		if (rdma_accept(id, &p) != 0)
			die("rdma_accept");
	} else if (rdma_connect(id, &p) != 0) {
		die("rdma_connect");
	}
}

/* The failure events a client may be told to expect. @return done. */
static int
expected_failure(const struct rdma_cm_event *ev)
{
	if (!strcmp(expect, "expect-reject") &&
	    ev->event == RDMA_CM_EVENT_REJECTED &&
	    ev->status == REJ_INVALID_SERVICE_ID) {
		printf("rejected with status %d, as expected\n", ev->status);
		exit(0);
	}
	if (!strcmp(expect, "expect-addr-error") &&
	    ev->event == RDMA_CM_EVENT_ADDR_ERROR) {
		printf("address error %d, as expected\n", ev->status);
		exit(0);
	}
	fprintf(stderr, "cm-flow: unexpected %s (status %d)\n",
		rdma_event_str(ev->event), ev->status);
	exit(1);
}

/* @return 1 when the program is done. */
static int
on_event(struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		build_conn(id);
		if (rdma_resolve_route(id, TIMEOUT_MS) != 0)
			die("rdma_resolve_route");
		return 0;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		connect_id(id);
		return 0;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		build_conn(id);
		connect_id(id);
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		exchange(id);
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		destroy_conn(id);
		return conns_done == conns_wanted;
	default:
		return expected_failure(ev);
	}
}

static void
start_client(struct rdma_event_channel *ec, const char *addr,
	     const char *port)
{
	struct rdma_cm_id *id;
	struct addrinfo *ai;

	if (getaddrinfo(addr, port, NULL, &ai) != 0)
		die("getaddrinfo");
	if (rdma_create_id(ec, &id, NULL, RDMA_PS_TCP) != 0)
		die("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, TIMEOUT_MS) != 0)
		die("rdma_resolve_addr");
	freeaddrinfo(ai);
}

static struct rdma_cm_id *
start_server(struct rdma_event_channel *ec, const char *addr,
	     const char *port)
{
	struct rdma_cm_id *listener;
	struct addrinfo *ai;

	if (getaddrinfo(addr, port, NULL, &ai) != 0)
		die("getaddrinfo");
	if (rdma_create_id(ec, &listener, NULL, RDMA_PS_TCP) != 0)
		die("rdma_create_id");
	if (rdma_bind_addr(listener, ai->ai_addr) != 0)
		die("rdma_bind_addr");
	if (rdma_listen(listener, 4) != 0)
		die("rdma_listen");
	freeaddrinfo(ai);
	return listener;
}

struct late_waiter {
	struct rdma_event_channel *ec;
	atomic_int tid;          /* set before the call */
	atomic_bool returned;    /* the call came back */
};

static void *
late_wait(void *arg)
{
	struct late_waiter *w = arg;
	struct rdma_cm_event *ev;

	atomic_store(&w->tid, (int)syscall(SYS_gettid));
	(void)rdma_get_cm_event(w->ec, &ev);
	atomic_store(&w->returned, true);
	return NULL;
}

/* The scheduler state of thread tid ('S' sleeping), or 0. */
static char
thread_state(int tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' ? p[2] : 0;
}

/*
 * rdma_get_cm_event() on a destroyed channel: true when the caller went to
 * sleep in it (up to 20 s for it to get there) and did not come back.
 */
static bool
late_waiter_blocks(struct rdma_event_channel *ec)
{
	static struct late_waiter w;
	struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	pthread_t t;
	int i;

	w.ec = ec;
	if (pthread_create(&t, NULL, late_wait, &w) != 0)
		die("pthread_create");
	pthread_detach(t);
	for (i = 0; i < 2000; i++) {
		if (atomic_load(&w.tid) != 0 &&
		    thread_state(atomic_load(&w.tid)) == 'S')
			break;
		nanosleep(&tick, NULL);
	}
	if (i == 2000 || atomic_load(&w.returned)) {
		fprintf(stderr, "cm-flow: rdma_get_cm_event on the destroyed "
			"channel %s\n", i == 2000 ? "never slept" : "returned");
		return false;
	}
	return true;
}

int
main(int argc, char **argv)
{
	struct rxd_port_counters pc;
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listener = NULL;
	struct rdma_cm_event *ev, copy;
	setvbuf(stdout, NULL, _IOLBF, 0);  /* lines kept if it crashes */
	if (rxd_test_start_main("cm-flow", &argc, &argv) != 0)
		return 1;
	atexit(rxd_stop);       /* after the CM's own exit handler */
	if (argc < 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: cm-flow EAL -- [RXD options] server|client "
			"ADDR PORT [CONNECTIONS] [expect-reject|"
			"expect-addr-error|both-disconnect]\n");
		return 1;
	}
	server = !strcmp(argv[1], "server");
	if (argc > 4)
		conns_wanted = (unsigned int)atoi(argv[4]);
	if (argc > 5)
		expect = argv[5];
	if ((ec = rdma_create_event_channel()) == NULL)
		die("rdma_create_event_channel");
	if (server)
		listener = start_server(ec, argv[2], argv[3]);
	else
		start_client(ec, argv[2], argv[3]);
	while (rdma_get_cm_event(ec, &ev) == 0) {
		copy = *ev;
		rdma_ack_cm_event(ev);
		if (on_event(&copy))
			break;
		if (!server && copy.event == RDMA_CM_EVENT_DISCONNECTED &&
		    conns_done < conns_wanted)
			start_client(ec, argv[2], argv[3]);
	}
	if (listener != NULL)
		rdma_destroy_id(listener);
	rdma_destroy_event_channel(ec);
	if (!late_waiter_blocks(ec))
		return 1;
	if (rxd_port_counters(0, &pc) == 0)
		printf("fault injector: %lu received frames dropped\n",
		       (unsigned long)pc.fault_rx_dropped);
	printf("%u connection(s) done\n", conns_done);
	return conns_done == conns_wanted ? 0 : 1;
}
