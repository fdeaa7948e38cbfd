/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: connection setup.  Owns rsocket, rbind, rlisten, raccept and
 * rconnect, and the CM events behind them: the active side resolves,
 * creates its endpoint and sends its connection data in the REQ; a
 * listener accepts each request at once (its endpoint, our connection
 * data in the REP) and queues the new rsocket for raccept, which moves the
 * CM id to an event channel of the new rsocket's own.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rsocket.h>

#include "rxd_rs.h"

#define RESOLVE_MS 2000
#define RETRY_COUNT 7
#define RNR_RETRY_COUNT 7             /* infinite */
static void
fail_connect(struct rxd_rs *rs, int err)
{
	rs->phase = RXD_RS_CONNECT_ERROR;
	rs->readable = rs->writable = false;
	rs->err = err;
}

static void
send_request(struct rxd_rs *rs)
{
	uint8_t pdata[RXD_RS_CONN_LEN];
	struct rdma_conn_param p = {
		.private_data = pdata,
		.private_data_len = sizeof(pdata),
		.flow_control = 1,
		.retry_count = RETRY_COUNT,
		.rnr_retry_count = RNR_RETRY_COUNT,
	};
	int rc = rxd_rs_ep_create(rs);

	if (rc != 0) {
		fail_connect(rs, rc);
		return;
	}
	rxd_rs_ep_conn_data(rs, pdata);
	if (rdma_connect(rs->id, &p) != 0)
		fail_connect(rs, errno);
	else
		rs->phase = RXD_RS_CONNECTING;
}

static void
established(struct rxd_rs *rs, const struct rdma_cm_event *ev)
{
	int rc;

	if (rs->phase == RXD_RS_CONNECTING) {
		rc = rxd_rs_ep_peer_data(rs, ev->param.conn.private_data,
					 ev->param.conn.private_data_len);
		if (rc != 0) {
			fail_connect(rs, rc);
			return;
		}
	} else if (rs->phase != RXD_RS_ACCEPTING) {
		return;
	}
	rs->phase = RXD_RS_CONNECTED;
	rs->readable = rs->writable = true;
	rs->last_activity_ns = rxd_rs_now_ns();
}

static int
connect_error_of(enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_REJECTED:
		return ECONNREFUSED;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return EHOSTUNREACH;
	default:
		return ETIMEDOUT;
	}
}

static void
on_event(struct rxd_rs *rs, const struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(rs->id, RESOLVE_MS) != 0)
			fail_connect(rs, errno);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		send_request(rs);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		established(rs, ev);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		/* an orderly close sends DISCONNECT first and its DREQ only
		 * once that completed, so the DISCONNECT (and the data before
		 * it) is in our CQ by now, maybe put there by another thread
		 * since we last polled: take it first.  Still connected
		 * after that, the peer went away without one (its connection
		 * failed, or it is no rsocket): a reset */
		if (rs->cq != NULL)
			rxd_rs_poll_cq(rs);
		if (rs->phase == RXD_RS_CONNECTED ||
		    rs->phase == RXD_RS_ACCEPTING)
			rxd_rs_close_with(rs, ECONNRESET);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		if (rs->phase == RXD_RS_RESOLVING ||
		    rs->phase == RXD_RS_CONNECTING)
			fail_connect(rs, connect_error_of(ev->event));
		else if (rs->phase == RXD_RS_ACCEPTING)
			rxd_rs_close_with(rs, ECONNRESET);
		break;
	default:
		break;
	}
}

void
rxd_rs_conn_progress(struct rxd_rs *rs)
{
	struct rdma_cm_event *ev;
	uint64_t now;

	if (rs->phase == RXD_RS_LISTENING || rs->id == NULL)
		return;
	/* connected, only a disconnect can come: look now and then */
	if (rs->phase == RXD_RS_CONNECTED || rs->phase == RXD_RS_CLOSED) {
		now = rxd_rs_now_ns();
		if (now - rs->cm_checked_ns < RXD_RS_CM_CHECK_NS)
			return;
		rs->cm_checked_ns = now;
	}
	while (rdma_get_cm_event(rs->ch, &ev) == 0) {
		on_event(rs, ev);
		rdma_ack_cm_event(ev);
	}
}

static struct rdma_event_channel *
nonblocking_channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();

	if (ch != NULL && fcntl(ch->fd, F_SETFL, O_NONBLOCK) != 0) {
		rdma_destroy_event_channel(ch);
		return NULL;
	}
	return ch;
}

/* An accepted rsocket, not numbered until raccept hands it out. */
static struct rxd_rs *
child_of(const struct rxd_rs *l)
{
	struct rxd_rs *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	c->index = -1;
	c->tun = l->tun;
	c->opts = l->opts;
	c->ch = nonblocking_channel();
	if (c->ch == NULL) {
		rxd_rs_free(c);
		return NULL;
	}
	return c;
}

/* Accept the request of @p id with our connection data (reject on any
 * failure); the rsocket keeps the id, on its own channel. */
static struct rxd_rs *
accept_request(struct rxd_rs *l, struct rdma_cm_id *id,
	       const uint8_t *pdata, uint8_t len, struct rdma_conn_param p)
{
	uint8_t ours[RXD_RS_CONN_LEN];
	struct rxd_rs *c = child_of(l);

	if (c == NULL || rdma_migrate_id(id, c->ch) != 0)
		goto reject;
	id->context = c;
	c->id = id;
	if (rxd_rs_ep_create(c) != 0 || rxd_rs_ep_peer_data(c, pdata, len) != 0)
		goto reject;
	rxd_rs_ep_conn_data(c, ours);
	p.private_data = ours;
	p.private_data_len = sizeof(ours);
	if (rdma_accept(id, &p) != 0)
		goto reject;
	c->phase = RXD_RS_ACCEPTING;
	c->readable = c->writable = true;
	return c;
reject:
	rdma_reject(id, NULL, 0);
	if (c != NULL)
		rxd_rs_free(c);
	else
		rdma_destroy_id(id);
	return NULL;
}

static void
queue_accepted(struct rxd_rs *l, struct rxd_rs *c)
{
	if (l->accept_tail != NULL)
		l->accept_tail->accept_next = c;
	else
		l->accept_head = c;
	l->accept_tail = c;
}

void
rxd_rs_listen_progress(struct rxd_rs *l)
{
	struct rdma_cm_event *ev;
	struct rdma_conn_param p;
	struct rdma_cm_id *id;
	uint8_t pdata[256];
	uint8_t len;
	struct rxd_rs *c;

	while (rdma_get_cm_event(l->ch, &ev) == 0) {
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			continue;
		}
		id = ev->id;
		p = ev->param.conn;
		len = p.private_data_len;
		if (len > 0)
			memcpy(pdata, p.private_data, len);
		rdma_ack_cm_event(ev);
		c = accept_request(l, id, pdata, len, p);
		if (c != NULL)
			queue_accepted(l, c);
	}
}

int
rsocket(int domain, int type, int protocol)
{
	int flags = type & (SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct rxd_rs_tun tun;
	struct rxd_rs *rs;
	int rc;

	/* socket(2)'s type flags are honoured (Python sets SOCK_CLOEXEC) */
	type &= ~flags;
	if ((domain != AF_INET && domain != AF_INET6) || type != SOCK_STREAM ||
	    (protocol != 0 && protocol != IPPROTO_TCP))
		return rxd_rs_fail(ENOTSUP);
	rxd_rs_tun_default(&tun);
	rs = rxd_rs_new(&tun);
	if (rs == NULL)
		return -1;
	if (flags & SOCK_NONBLOCK)
		rs->fd_flags = O_NONBLOCK;
	rc = rxd_rs_insert(rs);
	if (rc != 0) {
		rxd_rs_free(rs);
		return rxd_rs_fail(rc);
	}
	return rs->index;
}

int
rbind(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	int rc;

	(void)addrlen;
	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	pthread_mutex_lock(&rs->lock);
	rc = rdma_bind_addr(rs->id, (struct sockaddr *)addr);
	if (rc == 0)
		rs->phase = RXD_RS_BOUND;
	pthread_mutex_unlock(&rs->lock);
	return rc;
}

int
rlisten(int socket, int backlog)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	int rc = 0;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	pthread_mutex_lock(&rs->lock);
	if (rs->phase != RXD_RS_LISTENING) {
		rc = rdma_listen(rs->id, backlog);
		if (rc == 0)
			rs->phase = RXD_RS_LISTENING;
	}
	pthread_mutex_unlock(&rs->lock);
	return rc;
}

static struct rxd_rs *
take_accepted(struct rxd_rs *l)
{
	struct rxd_rs *c = l->accept_head;

	if (c == NULL)
		return NULL;
	l->accept_head = c->accept_next;
	if (l->accept_head == NULL)
		l->accept_tail = NULL;
	c->accept_next = NULL;
	return c;
}

/*
 * Give an accepted rsocket its number: the fd of a channel made now, the
 * id's events moved to it.  Numbers are made when the application gets
 * the socket (rsocket, raccept), as rdma-core's are: librspreload up to
 * v62 maps select()'s results back by walking descriptors from 0, and
 * takes an rsocket number below the descriptor it handed out (opened
 * just before raccept) for that descriptor.  0, or -1 and errno (the
 * rsocket is closed).
 */
static int
number(struct rxd_rs *c)
{
	struct rdma_event_channel *ch = nonblocking_channel(), *unused = ch;
	int rc;

	pthread_mutex_lock(&c->lock);
	rc = ch == NULL ? errno : 0;
	if (rc == 0 && rdma_migrate_id(c->id, ch) != 0)
		rc = errno;
	if (rc == 0) {
		unused = c->ch;
		c->ch = ch;
		c->index = ch->fd;
		rc = rxd_rs_insert(c);
	}
	pthread_mutex_unlock(&c->lock);
	if (unused != NULL)
		rdma_destroy_event_channel(unused);
	if (rc != 0) {
		rxd_rs_free(c);
		return rxd_rs_fail(rc);
	}
	return 0;
}

int
raccept(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	struct rxd_rs *l = rxd_rs_lookup(socket), *c = NULL;
	unsigned int round = 0;

	if (l == NULL)
		return rxd_rs_fail(EBADF);
	pthread_mutex_lock(&l->lock);
	while (l->phase == RXD_RS_LISTENING) {
		rxd_rs_listen_progress(l);
		c = take_accepted(l);
		if (c != NULL || (l->fd_flags & O_NONBLOCK))
			break;
		rxd_rs_pause(l, round++);
	}
	pthread_mutex_unlock(&l->lock);
	if (c == NULL)
		return rxd_rs_fail(l->phase == RXD_RS_LISTENING ? EAGAIN :
				   EINVAL);
	if (number(c) != 0)
		return -1;
	if (addr != NULL && addrlen != NULL)
		rgetpeername(c->index, addr, addrlen);
	return c->index;
}

/* Start resolving @p addr; the CM events drive the rest. */
static int
start_connect(struct rxd_rs *rs, const struct sockaddr *addr)
{
	if (rdma_resolve_addr(rs->id, NULL, (struct sockaddr *)addr,
			      RESOLVE_MS) != 0)
		return errno;
	rs->phase = RXD_RS_RESOLVING;
	return 0;
}

int
rxd_rs_connect_step(struct rxd_rs *rs)
{
	rxd_rs_progress(rs);
	switch (rs->phase) {
	case RXD_RS_RESOLVING:
	case RXD_RS_CONNECTING:
		return rxd_rs_fail(EINPROGRESS);
	case RXD_RS_CONNECT_ERROR:
		return rxd_rs_fail(rs->err);
	default:
		return 0;
	}
}

int
rconnect(int socket, const struct sockaddr *addr, socklen_t addrlen)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	unsigned int round = 0;
	int rc = 0;

	(void)addrlen;
	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	pthread_mutex_lock(&rs->lock);
	if (rs->phase == RXD_RS_IDLE || rs->phase == RXD_RS_BOUND)
		rc = start_connect(rs, addr);
	else if (rs->phase == RXD_RS_CONNECTED)
		rc = EISCONN;
	else if (rs->phase != RXD_RS_RESOLVING &&
		 rs->phase != RXD_RS_CONNECTING)
		rc = EINVAL;
	else if (rs->fd_flags & O_NONBLOCK)
		rc = EALREADY;
	while (rc == 0 && (rs->phase == RXD_RS_RESOLVING ||
			   rs->phase == RXD_RS_CONNECTING)) {
		rxd_rs_progress(rs);
		if (rs->phase == RXD_RS_CONNECT_ERROR)
			break;
		if (rs->fd_flags & O_NONBLOCK)
			rc = rs->phase == RXD_RS_CONNECTED ? 0 : EINPROGRESS;
		else if (rs->phase != RXD_RS_CONNECTED)
			rxd_rs_pause(rs, round++);
	}
	if (rc == 0 && rs->phase == RXD_RS_CONNECT_ERROR)
		rc = rs->err;
	pthread_mutex_unlock(&rs->lock);
	return rc == 0 ? 0 : rxd_rs_fail(rc);
}
