/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ids of the connection state machine: lookup (by our comm ID, by the
 * peer's, listeners by service ID), ids made for incoming requests, the
 * sending of CM MADs (kept and resent until answered, as Linux's IB CM
 * does) and the timers, and the outcomes shared by the MAD handlers
 * (established, failed).  Callers hold rxd_cm.lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rxd/rxd.h"
#include "rxd_cm_priv.h"

#define TIMER_CAP_MS 1000
#define DATA_POLL_MS 10   /**< first look for data before the RTU */

static uint32_t
rand32(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint32_t)rxd_cm_now_ms() * 2654435761u;
	return v;
}

uint32_t
rxd_cm_new_psn(void)
{
	return rand32() & 0xffffff;
}

uint64_t
rxd_cm_service_id(enum rdma_port_space ps, uint16_t port)
{
	return 0x0000000001000000ull | (uint64_t)ps << 16 | port;
}

void
rxd_cm_id_link(struct rxd_cm_id *c)
{
	c->prev = NULL;
	c->next = rxd_cm.ids;
	if (c->next != NULL)
		c->next->prev = c;
	rxd_cm.ids = c;
	if (++rxd_cm.count.ids > rxd_cm.count.ids_peak)
		rxd_cm.count.ids_peak = rxd_cm.count.ids;
}

void
rxd_cm_id_unlink(struct rxd_cm_id *c)
{
	rxd_cm_index_forget(c);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		rxd_cm.ids = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	rxd_cm.count.ids--;
}

/* IBTA time code to ms, as Linux's cm_convert_to_ms. */
unsigned int
rxd_cm_time_ms(unsigned int code)
{
	return 1u << (code > 8 ? code - 8 : 0);
}

/* How long to wait for an answer: 2 packet lifetimes plus the peer's CM
 * response time (RXD_CM_TIMEOUT_MS overrides, for tests). */
static unsigned int
answer_ms(void)
{
	const char *env = getenv("RXD_CM_TIMEOUT_MS");

	if (env != NULL && atoi(env) > 0)
		return (unsigned int)atoi(env);
	return 2 * rxd_cm_time_ms(RXD_CM_PKT_LIFE) + rxd_cm_time_ms(RXD_CM_RESP_TIMEOUT);
}

void
rxd_cm_take_comm_id(struct rxd_cm_id *c)
{
	uint32_t v;

	do
		v = rand32();
	while (v == 0 || rxd_cm_index_find_comm_id(v) != NULL);
	rxd_cm_index_comm_id(c, v);
}

uint64_t
rxd_cm_new_tid(void)
{
	return ++rxd_cm.tid_next;
}

void
rxd_cm_send_to(struct rxd_cm_dev *dev, uint8_t sgid_index, const uint8_t dgid[16],
	const struct rxd_cm_msg *m, uint8_t *keep)
{
	uint8_t mad[RXD_MAD_LEN];

	rxd_cm_mad_encode(m, mad);
	if (keep != NULL)
		memcpy(keep, mad, RXD_MAD_LEN);
	if (rxd_cm_gsi_send(dev, sgid_index, dgid, mad) == 0)
		return;
	rxd_cm.count.drop_tx++;
	fprintf(stderr, "rxd cm: cannot send %s on port %u\n",
		rxd_cm_attr_name(m->attr_id), dev->port);
}

void
rxd_cm_send(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	rxd_cm_send_to(c->dev, c->sgid_index, c->dgid, m, NULL);
}

/* Send a message that waits for an answer: resent until it comes. */
void
rxd_cm_send_armed(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	rxd_cm_send_to(c->dev, c->sgid_index, c->dgid, m, c->retry.mad);
	c->retry.attr_id = m->attr_id;
	c->retry.timeout_ms = answer_ms();
	c->retry.left = RXD_CM_MAX_RETRIES;
	c->retry.deadline_ms = rxd_cm_now_ms() + c->retry.timeout_ms;
	c->data_poll_ms = DATA_POLL_MS;
	rxd_cm_schedule(c);
	rxd_cm_wake();
}

/* The timer runs at the resend deadline; while REP_SENT, also after
 * DATA_POLL_MS, then twice as long each time, to see data that comes
 * before the RTU (a look costs a call to the engine: in a storm of N
 * connections N ids wait for their RTU at once). */
void
rxd_cm_schedule(struct rxd_cm_id *c)
{
	uint64_t when = c->retry.deadline_ms, poll;

	if (when == 0) {
		rxd_cm_timer_stop(c);
		return;
	}
	poll = rxd_cm_now_ms() + c->data_poll_ms;
	if (c->state == RXD_CMS_REP_SENT && poll < when)
		when = poll;
	if (rxd_cm_timer_at(c, when) != 0)
		fprintf(stderr, "rxd cm: no memory for a timer\n");
}

void
rxd_cm_disarm(struct rxd_cm_id *c)
{
	c->retry.deadline_ms = 0;
	rxd_cm_timer_stop(c);
}

struct rxd_cm_id *
rxd_cm_id_by_comm_id(uint32_t local)
{
	struct rxd_cm_id *c = rxd_cm_index_find_comm_id(local);

	return c != NULL && c->state != RXD_CMS_LISTEN ? c : NULL;
}

/* The id a peer's message is about: our comm ID, their comm ID, GID. */
struct rxd_cm_id *
rxd_cm_id_by_peer(uint32_t remote, const uint8_t sgid[16])
{
	return rxd_cm_index_find_peer(remote, sgid);
}

static bool
addr_is_any(const struct sockaddr *sa)
{
	static const uint8_t zero[16];
	uint8_t gid[16];

	if (rxd_cm_addr_gid(sa, gid) != 0)
		return true;
	return memcmp(gid, zero, 16) == 0 ||
		(sa->sa_family == AF_INET &&
		 ((const struct sockaddr_in *)sa)->sin_addr.s_addr == 0);
}

struct rxd_cm_id *
rxd_cm_listener(struct rxd_cm_dev *dev, uint64_t sid, const uint8_t dst[16])
{
	struct rxd_cm_id *c;
	uint8_t gid[16];

	for (c = rxd_cm_index_listeners(); c != NULL; c = c->listen_next) {
		const struct sockaddr *sa = &c->id.route.addr.src_addr;

		if (c->state != RXD_CMS_LISTEN ||
		    rxd_cm_service_id(c->id.ps, c->sport) != sid ||
		    (c->dev != NULL && c->dev != dev))
			continue;
		if (addr_is_any(sa) ||
		    (rxd_cm_addr_gid(sa, gid) == 0 && !memcmp(gid, dst, 16)))
			return c;
	}
	return NULL;
}

/* Our GID index for a local address of a message (REJ to strangers). */
uint8_t
rxd_cm_sgid_index(struct rxd_cm_dev *dev, const uint8_t gid[16])
{
	uint8_t g[16];
	unsigned int i;

	for (i = 1; i < 16; i++)
		if (rxd_query_gid(dev->port, i, g) == 0 && !memcmp(g, gid, 16))
			return (uint8_t)i;
	return 1;
}

struct rxd_cm_id *
rxd_cm_id_child(struct rxd_cm_id *l, struct rxd_cm_dev *dev, const uint8_t sgid[16],
	  const struct rxd_cm_ip_hdr *h)
{
	struct rxd_cm_id *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->id.verbs = dev->verbs;
	c->id.channel = l->id.channel;
	c->id.context = l->id.context;
	c->id.ps = l->id.ps;
	c->id.port_num = 1;
	c->id.qp_type = l->id.qp_type;
	c->id.pd = dev->pd;
	c->dev = dev;
	c->passive = true;
	c->sport = l->sport;
	c->dport = h->src_port;
	memcpy(c->sgid, h->dst, 16);
	memcpy(c->dgid, sgid, 16);
	c->sgid_index = rxd_cm_sgid_index(dev, h->dst);
	rxd_cm_addr_from_gid(h->dst, c->sport, &c->id.route.addr.src_storage);
	rxd_cm_addr_from_gid(h->src, c->dport, &c->id.route.addr.dst_storage);
	memcpy(c->id.route.addr.addr.ibaddr.sgid.raw, c->sgid, 16);
	memcpy(c->id.route.addr.addr.ibaddr.dgid.raw, c->dgid, 16);
	c->id.route.addr.addr.ibaddr.pkey = 0xffff;
	rxd_cm_take_comm_id(c);
	c->local_psn = rxd_cm_new_psn();
	c->ack_timeout = RXD_CM_ACK_TIMEOUT;
	c->mtu = dev->mtu;
	pthread_cond_init(&c->acked, NULL);
	rxd_cm_id_link(c);
	return c;
}

void
rxd_cm_conn_params(struct rdma_cm_event *ev, const struct rxd_cm_msg *m)
{
	if (ev == NULL || m == NULL)
		return;
	ev->param.conn.responder_resources = (uint8_t)m->f[RXD_CMF_RESP_RES];
	ev->param.conn.initiator_depth = (uint8_t)m->f[RXD_CMF_INIT_DEPTH];
	ev->param.conn.flow_control = (uint8_t)m->f[RXD_CMF_E2E_FC];
	ev->param.conn.retry_count = (uint8_t)m->f[RXD_CMF_RETRY_CNT];
	ev->param.conn.rnr_retry_count = (uint8_t)m->f[RXD_CMF_RNR_RETRY];
	ev->param.conn.srq = (uint8_t)m->f[RXD_CMF_SRQ];
	ev->param.conn.qp_num = (uint32_t)m->f[RXD_CMF_LOCAL_QPN];
}

void
rxd_cm_established(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	rxd_cm_disarm(c);
	c->state = RXD_CMS_ESTABLISHED;
	rxd_cm_conn_params(rxd_cm_event_push(c, NULL, RDMA_CM_EVENT_ESTABLISHED, 0,
				      m ? m->pdata : NULL,
				      m ? m->pdata_len : 0), m);
}

void
rxd_cm_send_rtu(struct rxd_cm_id *c)
{
	struct rxd_cm_msg m;

	rxd_cm_msg_init(&m, RXD_CM_RTU, c->tid);
	m.f[RXD_CMF_LOCAL_COMM_ID] = c->local_comm_id;
	m.f[RXD_CMF_REMOTE_COMM_ID] = c->remote_comm_id;
	rxd_cm_send(c, &m);
}

void
rxd_cm_fail(struct rxd_cm_id *c, enum rdma_cm_event_type type, int status,
     const struct rxd_cm_msg *m)
{
	rxd_cm_disarm(c);
	rxd_cm_qp_error(c);
	c->state = RXD_CMS_ERROR;
	rxd_cm_event_push(c, NULL, type, status, m ? m->pdata : NULL,
			  m ? m->pdata_len : 0);
}

void
rxd_cm_ud_params(struct rdma_cm_event *ev, struct rxd_cm_id *c, uint32_t qpn,
	  uint32_t qkey)
{
	struct ibv_ah_attr *a;

	if (ev == NULL)
		return;
	a = &ev->param.ud.ah_attr;
	a->is_global = 1;
	a->port_num = 1;
	memcpy(a->grh.dgid.raw, c->dgid, 16);
	a->grh.sgid_index = c->sgid_index;
	a->grh.hop_limit = 64;
	ev->param.ud.qp_num = qpn;
	ev->param.ud.qkey = qkey;
}

static void
timed_out(struct rxd_cm_id *c)
{
	rxd_cm_disarm(c);
	if (c->state == RXD_CMS_DREQ_SENT) {
		c->state = RXD_CMS_TIMEWAIT;
		rxd_cm_event_push(c, NULL, RDMA_CM_EVENT_DISCONNECTED, 0,
				  NULL, 0);
		return;
	}
	rxd_cm_fail(c, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL);
}

/* A due timer of @p c: data before the RTU, or a resend (or giving up). */
static void
id_timer(struct rxd_cm_id *c, uint64_t now)
{
	if (c->state == RXD_CMS_REP_SENT && c->id.qp != NULL) {
		if (rxd_cm_qp_rx(c) > c->rx_base) {
			rxd_cm_established(c, NULL);  /* data before the RTU */
			return;
		}
		c->data_poll_ms *= 2;
	}
	if (c->retry.deadline_ms == 0 || now < c->retry.deadline_ms) {
		rxd_cm_schedule(c);
		return;
	}
	if (c->retry.left == 0) {
		rxd_cm.count.timeouts++;
		timed_out(c);
		return;
	}
	c->retry.left--;
	c->retry.deadline_ms = now + c->retry.timeout_ms;
	rxd_cm.count.resent++;
	fprintf(stderr, "rxd cm: no answer to %s in %u ms, resending\n",
		rxd_cm_attr_name(c->retry.attr_id), c->retry.timeout_ms);
	rxd_cm_gsi_send(c->dev, c->sgid_index, c->dgid, c->retry.mad);
	rxd_cm_schedule(c);
}

unsigned int
rxd_cm_id_timers(uint64_t now)
{
	struct rxd_cm_id *c;
	uint64_t next;

	while ((c = rxd_cm_timer_due(now)) != NULL)
		id_timer(c, now);
	next = rxd_cm_timer_next();
	return next - now < TIMER_CAP_MS ? (unsigned int)(next - now) :
		TIMER_CAP_MS;
}
