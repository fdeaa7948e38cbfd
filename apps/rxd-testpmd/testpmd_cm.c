/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection manager as this tool sees it: "cm listen" accepts every
 * rdma_cm request on a port (a small RC QP each, on the CM's default PD)
 * from a thread of its own, which destroys each id when its connection
 * ends or fails; "show cm" prints the CM's counters (rxd/rxd_cm.h) and the
 * listener's; "wait cm" waits until the listener has had a number of
 * requests and the CM holds nothing but listeners again.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rte_common.h>

#include "rxd/rxd_cm.h"
#include "testpmd.h"

#define QP_DEPTH 4

/* The listener's own counts (written by its thread). */
static struct {
	uint64_t requests, accepted, established, ended, failed;
	unsigned int listeners;
} lc;

#define CC(f) { #f, offsetof(struct rxd_cm_counters, f) }
static const struct {
	const char *name;
	size_t off;
} cm_counters[] = {
	CC(mads_tx), CC(mads_rx), CC(resent), CC(timeouts), CC(backlogged),
	CC(drop_qp1), CC(drop_malformed), CC(drop_unmatched), CC(drop_tx),
	CC(rej_no_listener), CC(ids), CC(ids_peak), CC(events), CC(mem_bytes),
};

static void
count(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* A request: an RC QP on the id, then accept; refused if that fails. */
static void
accept_request(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = QP_DEPTH, .max_recv_wr = QP_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct rdma_conn_param p = { .retry_count = 7, .rnr_retry_count = 7 };

	count(&lc.requests);
	if (rdma_create_qp(id, NULL, &qa) != 0 || rdma_accept(id, &p) != 0) {
		rdma_reject(id, NULL, 0);
		if (id->qp != NULL)
			rdma_destroy_qp(id);
		rdma_destroy_id(id);
		count(&lc.failed);
		return;
	}
	count(&lc.accepted);
}

/* After the event is acknowledged: an ended connection goes. */
static void
finish(struct rdma_cm_id *id, uint64_t *why)
{
	count(why);
	if (id->qp != NULL)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

static void *
listen_thread(void *arg)
{
	struct rdma_event_channel *ec = arg;
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type type;
	struct rdma_cm_id *id;

	while (rdma_get_cm_event(ec, &ev) == 0) {
		type = ev->event;
		id = ev->id;
		rdma_ack_cm_event(ev);
		switch (type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			accept_request(id);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			count(&lc.established);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			finish(id, &lc.ended);
			break;
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_REJECTED:
			finish(id, &lc.failed);
			break;
		default:
			break;
		}
	}
	return NULL;
}

int
tp_cm_listen(const struct tp_args *a)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(a->tcp_port) };
	struct rdma_event_channel *ec = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;
	pthread_t t;

	if (ec == NULL || rdma_create_id(ec, &id, NULL, RDMA_PS_TCP) != 0 ||
	    rdma_bind_addr(id, (struct sockaddr *)&sin) != 0 ||
	    rdma_listen(id, 1024) != 0 ||
	    pthread_create(&t, NULL, listen_thread, ec) != 0) {
		fprintf(stderr, "cm listen: %s\n", strerror(errno));
		if (id != NULL)
			rdma_destroy_id(id);
		if (ec != NULL)
			rdma_destroy_event_channel(ec);
		return -1;
	}
	pthread_detach(t);
	lc.listeners++;
	printf("cm: listening on port %u (every address)\n", a->tcp_port);
	return 0;
}

int
tp_show_cm(const struct tp_args *a)
{
	struct rxd_cm_counters c;
	unsigned int i;

	(void)a;
	rxd_cm_counters(&c);
	for (i = 0; i < RTE_DIM(cm_counters); i++)
		printf("cm %-22s %" PRIu64 "\n", cm_counters[i].name,
		       *(const uint64_t *)((const char *)&c +
					   cm_counters[i].off));
	printf("cm listener requests %" PRIu64 " accepted %" PRIu64
	       " established %" PRIu64 " ended %" PRIu64 " failed %" PRIu64
	       "\n", tp_load(&lc.requests), tp_load(&lc.accepted),
	       tp_load(&lc.established), tp_load(&lc.ended),
	       tp_load(&lc.failed));
	return 0;
}

int
tp_wait_cm(const struct tp_args *a)
{
	struct rxd_cm_counters c;
	unsigned int ms;

	for (ms = 0; ms <= a->seconds * 1000u; ms += 10) {
		rxd_cm_counters(&c);
		if (tp_load(&lc.requests) >= a->count &&
		    c.ids <= lc.listeners && c.events == 0) {
			printf("cm: idle after %" PRIu64 " requests\n",
			       tp_load(&lc.requests));
			return 0;
		}
		if (!tp_sleep_ms(10))
			break;
	}
	fprintf(stderr, "wait cm: %" PRIu64 " requests, %" PRIu64 " ids, %"
		PRIu64 " events after %u s\n", tp_load(&lc.requests), c.ids,
		c.events, a->seconds);
	return -1;
}
