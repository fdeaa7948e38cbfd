/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd's telemetry endpoints while QPs come and go: a client thread reads
 * /rxd/qps and /rxd/qp over rte_telemetry's socket as dpdk-telemetry.py
 * does, while the test creates and destroys QPs whose numbers it asks
 * for.  Every reply is well formed; a QP that stays is always found with
 * its QPN; once rxd stops the endpoints answer null.  Under ASan a reply
 * read from a destroyed QP would be a use after free.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <infiniband/verbs.h>
#include <rte_eal.h>

#include "rxd/rxd.h"
#include "rxd_test_eal.h"

#define CHURN 300            /* QPs created and destroyed, at least */
#define MIN_READS 50         /* rounds of requests while they churn
				 * (the suite's timeout bounds the wait) */
#define REPLY_MAX 16384

static struct ibv_context *ctx;
static struct ibv_device **list;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

struct reader {
	int fd;
	uint32_t stay_qpn;          /* the QP that is never destroyed */
	volatile int done;
	unsigned long reads, found_stay, bad;
	char why[320];
};

static void
start(void)
{
	int n = 0;

	cr_assert_geq(rxd_test_eal("-l 0-1 -m 256 --file-prefix rxdtelrace%d "
		"--vdev=net_ring0", (int)getpid()), 0);
	cr_assert_eq(rxd_test_rxd("--ip 10.0.0.1/24"), 0, "%s",
		     rxd_last_error());
	list = ibv_get_device_list(&n);
	cr_assert_eq(n, 1);
	ctx = ibv_open_device(list[0]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	cr_assert(ctx != NULL && pd != NULL && cq != NULL);
}

/* The verbs objects go before rxd stops, in the test. */
static void
close_verbs(void)
{
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
}

static void
stop(void)
{
	rxd_stop();
	rte_eal_cleanup();
}

TestSuite(telemetry_race, .init = start, .fini = stop, .timeout = 300);

static int
connect_telemetry(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char hello[1024];
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	cr_assert_geq(fd, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	cr_assert_eq(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0,
		     "telemetry socket %s: %s", sun.sun_path, strerror(errno));
	cr_assert_gt(recv(fd, hello, sizeof(hello), 0), 0);
	return fd;
}

/* Send cmd, read the reply into buf; false on a socket error. */
static bool
ask(int fd, const char *cmd, char *buf, size_t len)
{
	ssize_t n;

	if (send(fd, cmd, strlen(cmd), 0) < 0)
		return false;
	n = recv(fd, buf, len - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

static void
fail_reader(struct reader *r, const char *cmd, const char *reply)
{
	if (r->bad++ == 0)
		snprintf(r->why, sizeof(r->why), "%s -> %.200s", cmd, reply);
}

/* One round: the list, the QP that stays, and the churning QPNs. */
static void
read_round(struct reader *r, char *buf)
{
	char cmd[64], want[64];
	uint32_t q;

	if (!ask(r->fd, "/rxd/qps", buf, REPLY_MAX) ||
	    strncmp(buf, "{\"/rxd/qps\":{\"port\":[", 21) != 0)
		fail_reader(r, "/rxd/qps", buf);
	snprintf(cmd, sizeof(cmd), "/rxd/qp,%u", r->stay_qpn);
	snprintf(want, sizeof(want), "\"qpn\":%u,", r->stay_qpn);
	if (ask(r->fd, cmd, buf, REPLY_MAX) && strstr(buf, want) != NULL)
		r->found_stay++;
	else
		fail_reader(r, cmd, buf);
	for (q = r->stay_qpn + 1; q < r->stay_qpn + 4; q++) {
		snprintf(cmd, sizeof(cmd), "/rxd/qp,%u", q);
		if (!ask(r->fd, cmd, buf, REPLY_MAX) ||
		    (strcmp(buf, "{\"/rxd/qp\":null}") != 0 &&
		     strncmp(buf, "{\"/rxd/qp\":{\"port\":0,", 21) != 0))
			fail_reader(r, cmd, buf);
	}
	__atomic_add_fetch(&r->reads, 1, __ATOMIC_RELEASE);
}

static void *
read_loop(void *arg)
{
	struct reader *r = arg;
	static char buf[REPLY_MAX];

	while (!r->done)
		read_round(r, buf);
	return NULL;
}

static struct ibv_qp *
rc_qp(void)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr init = { .qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	cr_assert_not_null(qp, "ibv_create_qp: %s", strerror(errno));
	cr_assert_eq(ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS), 0);
	return qp;
}

Test(telemetry_race, qps_destroyed_while_read)
{
	struct ibv_qp *stay = rc_qp();
	struct reader r = { .stay_qpn = stay->qp_num };
	char buf[256];
	pthread_t t;
	int i;

	r.fd = connect_telemetry();
	cr_assert_eq(pthread_create(&t, NULL, read_loop, &r), 0);
	/* QPNs are reused (first free): the churning QP is stay + 1. */
	for (i = 0; i < CHURN ||
	     __atomic_load_n(&r.reads, __ATOMIC_ACQUIRE) < MIN_READS; i++)
		cr_assert_eq(ibv_destroy_qp(rc_qp()), 0);
	r.done = 1;
	pthread_join(t, NULL);
	cr_assert_eq(r.bad, 0, "%lu bad replies, first: %s", r.bad, r.why);
	cr_assert_geq(r.reads, MIN_READS);
	cr_assert_eq(r.found_stay, r.reads);
	cr_assert_eq(ibv_destroy_qp(stay), 0);
	close_verbs();

	rxd_stop();
	cr_assert(ask(r.fd, "/rxd/qps", buf, sizeof(buf)));
	cr_assert_str_eq(buf, "{\"/rxd/qps\":null}");
	cr_assert(ask(r.fd, "/rxd/ports", buf, sizeof(buf)));
	cr_assert_str_eq(buf, "{\"/rxd/ports\":null}");
	close(r.fd);
}
