/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma_cm id API up to the connection: create and destroy ids, bind,
 * resolve address and route, listen, options, channels migration, device
 * list, ports.  Ids created without a channel are synchronous: each call
 * waits for its own event, as librdmacm does (rxd_cm_sync_wait).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "rxd_cm_priv.h"

int
rxd_cm_sync_wait(struct rxd_cm_id *c, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int status;
	enum rdma_cm_event_type got;

	if (!c->sync)
		return 0;
	if (rxd_cm_event_take((struct rxd_cm_channel *)c->id.channel, &ev))
		return -1;
	got = ev->event;
	status = ev->status;
	rdma_ack_cm_event(ev);
	if (got == want && status == 0)
		return 0;
	if (got == RDMA_CM_EVENT_REJECTED)
		errno = ECONNREFUSED;
	else if (status < 0)
		errno = -status;
	else
		errno = status ? status : EPROTO;
	return -1;
}

static enum ibv_qp_type
qp_type_of(enum rdma_port_space ps)
{
	return ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB ? IBV_QPT_UD :
		IBV_QPT_RC;
}

int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
	       void *context, enum rdma_port_space ps)
{
	struct rxd_cm_id *c;
	int rc = rxd_cm_start();

	if (rc == 0 && id == NULL)
		rc = EINVAL;
	if (rc == 0 && (c = calloc(1, sizeof(*c))) == NULL)
		rc = ENOMEM;
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	c->sync = channel == NULL;
	c->id.channel = channel ? channel : rdma_create_event_channel();
	if (c->id.channel == NULL) {
		free(c);
		return -1;
	}
	c->id.context = context;
	c->id.ps = ps;
	c->id.qp_type = qp_type_of(ps);
	c->ack_timeout = RXD_CM_ACK_TIMEOUT;
	c->local_psn = rxd_cm_new_psn();
	pthread_cond_init(&c->acked, NULL);
	pthread_mutex_lock(&rxd_cm.lock);
	rxd_cm_id_link(c);
	pthread_mutex_unlock(&rxd_cm.lock);
	*id = &c->id;
	return 0;
}

/* Leave the peer knowing: DREQ for a connection, REJ for a request. */
static void
say_goodbye(struct rxd_cm_id *c)
{
	if (c->state == RXD_CMS_ESTABLISHED || c->state == RXD_CMS_REP_SENT)
		rxd_cm_id_disconnect(c);
	else if (c->state == RXD_CMS_REQ_RCVD ||
		 c->state == RXD_CMS_SIDR_REQ_RCVD)
		rxd_cm_id_reject(c, NULL, 0);
	rxd_cm_disarm(c);
}

int
rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rxd_cm_id *c = rxd_cm_id(id);

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	rxd_cm_mcast_leave_all(c);
	pthread_mutex_lock(&rxd_cm.lock);
	rxd_cm_event_drop(c);
	while (c->events_out > 0)
		pthread_cond_wait(&c->acked, &rxd_cm.lock);
	say_goodbye(c);
	rxd_cm_id_unlink(c);
	pthread_mutex_unlock(&rxd_cm.lock);
	if (c->sync)
		rdma_destroy_event_channel(id->channel);
	pthread_cond_destroy(&c->acked);
	free(id->route.path_rec);
	free(c->ep_attr);
	free(c);
	return 0;
}

/* The IP address of @p sa is the wildcard (0.0.0.0 or ::). */
static bool
any_addr(const struct sockaddr *sa)
{
	static const struct in6_addr any6 = IN6ADDR_ANY_INIT;

	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr ==
			htonl(INADDR_ANY);
	return memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, &any6,
		      sizeof(any6)) == 0;
}

/* The same family and IP address (ports aside). */
static bool
same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
			((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)b)->sin6_addr,
		      sizeof(struct in6_addr)) == 0;
}

/*
 * May @p self bind @p sa at @p port, beside the ids bound there already?
 * Linux's rdma_cm rules: two ids that both asked for REUSEADDR share a
 * port; two AF-only ids of different families (IPv4 ids are always
 * AF-only; IPv6 ones when RDMA_OPTION_ID_AFONLY says so) share it, as
 * tgt's IPv4 and IPv6 wildcard portals do; else a wildcard takes the port
 * from every other address (EADDRNOTAVAIL), and one address from itself
 * (EADDRINUSE).  @return 0 or that errno.
 */
static int
port_conflict(const struct rxd_cm_id *self, const struct sockaddr *sa,
	      uint16_t port)
{
	const struct rxd_cm_id *c;
	const struct sockaddr *cur;

	for (c = rxd_cm.ids; c != NULL; c = c->next) {
		if (c == self || c->passive || c->id.ps != self->id.ps ||
		    c->sport != port || (self->reuseaddr && c->reuseaddr))
			continue;
		cur = (const struct sockaddr *)&c->id.route.addr.src_storage;
		if (self->afonly && c->afonly &&
		    sa->sa_family != cur->sa_family)
			continue;
		if (any_addr(sa) || any_addr(cur))
			return EADDRNOTAVAIL;
		if (same_addr(sa, cur))
			return EADDRINUSE;
	}
	return 0;
}

/* Bind to a local address, a loopback one (rxd's host) or the wildcard
 * (lock held). */
static int
bind_locked(struct rxd_cm_id *c, const struct sockaddr *sa)
{
	struct sockaddr_storage host;
	uint8_t gid[16];
	uint16_t port;
	int rc = 0;

	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return EAFNOSUPPORT;
	if (c->state != RXD_CMS_IDLE)
		return EINVAL;
	rc = rxd_cm_addr_loopback(sa, &host);
	if (rc == 0)
		sa = (const struct sockaddr *)&host;
	else if (rc != ENOENT)
		return rc;
	rc = 0;
	if (!c->afonly_set)
		c->afonly = sa->sa_family == AF_INET;
	port = rxd_cm_addr_port(sa);
	if (port == 0)
		port = rxd_cm_addr_ephemeral();
	else if ((rc = port_conflict(c, sa, port)) != 0)
		return rc;        /* a failed bind takes no port */
	if (rxd_cm_addr_gid(sa, gid) == 0 &&
	    (gid[15] | gid[14] | gid[13] | gid[12]) != 0)
		rc = rxd_cm_addr_local(sa, &c->dev, &c->sgid_index, c->sgid);
	if (rc != 0)
		return rc;
	c->sport = port;
	memcpy(&c->id.route.addr.src_storage, sa,
	       sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
	       sizeof(struct sockaddr_in6));
	if (sa->sa_family == AF_INET)
		c->id.route.addr.src_sin.sin_port = htons(c->sport);
	else
		c->id.route.addr.src_sin6.sin6_port = htons(c->sport);
	if (c->dev != NULL) {
		c->id.verbs = c->dev->verbs;
		c->id.pd = c->dev->pd;
		c->id.port_num = 1;
	}
	c->state = RXD_CMS_BOUND;
	return 0;
}

int
rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	int rc;

	if (id == NULL || addr == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&rxd_cm.lock);
	rc = bind_locked(rxd_cm_id(id), addr);
	pthread_mutex_unlock(&rxd_cm.lock);
	return rxd_cm_result(rc);
}

static void
resolved(struct rxd_cm_id *c, const struct sockaddr *dst)
{
	struct rdma_addr *ra = &c->id.route.addr;

	if (c->sport == 0)
		c->sport = rxd_cm_addr_ephemeral();
	c->dport = rxd_cm_addr_port(dst);
	rxd_cm_addr_from_gid(c->sgid, c->sport, &ra->src_storage);
	rxd_cm_addr_from_gid(c->dgid, c->dport, &ra->dst_storage);
	memcpy(ra->addr.ibaddr.sgid.raw, c->sgid, 16);
	memcpy(ra->addr.ibaddr.dgid.raw, c->dgid, 16);
	ra->addr.ibaddr.pkey = htons(0xffff);
	c->id.verbs = c->dev->verbs;
	c->id.pd = c->dev->pd;
	c->id.port_num = 1;
	c->mtu = c->dev->mtu;
	c->state = RXD_CMS_ADDR_RESOLVED;
}

int
rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		  struct sockaddr *dst_addr, int timeout_ms)
{
	struct rxd_cm_id *c = rxd_cm_id(id);
	int rc = 0;

	if (id == NULL || dst_addr == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (src_addr != NULL && c->state == RXD_CMS_IDLE &&
	    rdma_bind_addr(id, src_addr) != 0)
		return -1;
	if (c->state != RXD_CMS_IDLE && c->state != RXD_CMS_BOUND) {
		errno = EINVAL;
		return -1;
	}
	rc = rxd_cm_addr_resolve(c, dst_addr, timeout_ms);
	pthread_mutex_lock(&rxd_cm.lock);
	if (rc == 0) {
		resolved(c, dst_addr);
		rxd_cm_event_push(c, NULL, RDMA_CM_EVENT_ADDR_RESOLVED, 0,
				  NULL, 0);
	} else {
		rxd_cm_event_push(c, NULL, RDMA_CM_EVENT_ADDR_ERROR, -rc,
				  NULL, 0);
	}
	pthread_mutex_unlock(&rxd_cm.lock);
	return rxd_cm_sync_wait(c, RDMA_CM_EVENT_ADDR_RESOLVED);
}

static struct ibv_sa_path_rec *
path_of(struct rxd_cm_id *c)
{
	struct ibv_sa_path_rec *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	memcpy(p->sgid.raw, c->sgid, 16);
	memcpy(p->dgid.raw, c->dgid, 16);
	p->hop_limit = 64;
	p->traffic_class = c->tos;
	p->reversible = htonl(1);
	p->numb_path = 1;
	p->pkey = htons(0xffff);
	p->mtu_selector = 2;            /* exactly */
	p->mtu = (uint8_t)c->mtu;
	p->rate_selector = 2;
	p->packet_life_time_selector = 2;
	p->packet_life_time = RXD_CM_PKT_LIFE;
	return p;
}

int
rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct rxd_cm_id *c = rxd_cm_id(id);
	int rc = 0;

	(void)timeout_ms;       /* RoCE: the route is the resolved address */
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&rxd_cm.lock);
	if (c->state != RXD_CMS_ADDR_RESOLVED)
		rc = EINVAL;
	else if (id->route.path_rec == NULL &&
		 (id->route.path_rec = path_of(c)) == NULL)
		rc = ENOMEM;
	if (rc == 0) {
		id->route.num_paths = 1;
		c->state = RXD_CMS_ROUTE_RESOLVED;
		rxd_cm_event_push(c, NULL, RDMA_CM_EVENT_ROUTE_RESOLVED, 0,
				  NULL, 0);
	}
	pthread_mutex_unlock(&rxd_cm.lock);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return rxd_cm_sync_wait(c, RDMA_CM_EVENT_ROUTE_RESOLVED);
}

int
rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rxd_cm_id *c = rxd_cm_id(id);
	struct sockaddr_in any = { .sin_family = AF_INET };
	int rc = 0;

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&rxd_cm.lock);
	if (c->state == RXD_CMS_IDLE)
		rc = bind_locked(c, (struct sockaddr *)&any);
	if (rc == 0 && c->state != RXD_CMS_BOUND)
		rc = EINVAL;
	(void)backlog;          /* not enforced */
	if (rc == 0) {
		c->state = RXD_CMS_LISTEN;
		rxd_cm_index_listen(c);
	}
	pthread_mutex_unlock(&rxd_cm.lock);
	return rxd_cm_result(rc);
}

/* RDMA_OPTION_ID_REUSEADDR or _AFONLY, an int, in the states Linux takes
 * them in: AFONLY before or once bound, REUSEADDR on before listening
 * and off only before binding. */
static int
bool_option(struct rxd_cm_id *c, int optname, const void *optval,
	    size_t optlen)
{
	bool on;
	int rc = 0;

	if (optlen != sizeof(int)) {
		errno = EINVAL;
		return -1;
	}
	on = *(const int *)optval != 0;
	pthread_mutex_lock(&rxd_cm.lock);
	if (optname == RDMA_OPTION_ID_AFONLY) {
		if (c->state == RXD_CMS_IDLE || c->state == RXD_CMS_BOUND) {
			c->afonly = on;
			c->afonly_set = true;
		} else
			rc = EINVAL;
	} else if ((on && c->state != RXD_CMS_LISTEN) ||
		   c->state == RXD_CMS_IDLE) {
		c->reuseaddr = on;
	} else {
		rc = EINVAL;
	}
	pthread_mutex_unlock(&rxd_cm.lock);
	return rxd_cm_result(rc);
}

int
rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval,
		size_t optlen)
{
	struct rxd_cm_id *c = rxd_cm_id(id);

	if (id == NULL || optval == NULL || optlen == 0) {
		errno = EINVAL;
		return -1;
	}
	if (level == RDMA_OPTION_ID && optname == RDMA_OPTION_ID_TOS) {
		c->tos = *(uint8_t *)optval;
		return 0;
	}
	if (level == RDMA_OPTION_ID &&
	    optname == RDMA_OPTION_ID_ACK_TIMEOUT) {
		c->ack_timeout = *(uint8_t *)optval & 0x1f;
		return 0;
	}
	if (level == RDMA_OPTION_ID && (optname == RDMA_OPTION_ID_REUSEADDR ||
					optname == RDMA_OPTION_ID_AFONLY))
		return bool_option(c, optname, optval, optlen);
	errno = ENOSYS;
	return -1;
}

int
rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct rxd_cm_id *c = rxd_cm_id(id);
	struct rdma_event_channel *old;
	bool own = channel == NULL;

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (own && (channel = rdma_create_event_channel()) == NULL)
		return -1;
	pthread_mutex_lock(&rxd_cm.lock);
	while (c->events_out > 0)
		pthread_cond_wait(&c->acked, &rxd_cm.lock);
	rxd_cm_event_drop(c);
	old = c->sync ? id->channel : NULL;
	c->sync = own;
	id->channel = channel;
	pthread_mutex_unlock(&rxd_cm.lock);
	if (old != NULL && old != channel)
		rdma_destroy_event_channel(old);
	return 0;
}

struct ibv_context **
rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	unsigned int i;
	int rc = rxd_cm_start();

	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	list = calloc(rxd_cm.n_dev + 1, sizeof(*list));
	if (list == NULL)
		return NULL;
	for (i = 0; i < rxd_cm.n_dev; i++)
		list[i] = rxd_cm.dev[i].verbs;
	if (num_devices != NULL)
		*num_devices = (int)rxd_cm.n_dev;
	return list;
}

void
rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

__be16
rdma_get_src_port(struct rdma_cm_id *id)
{
	return htons(rxd_cm_addr_port(&id->route.addr.src_addr));
}

__be16
rdma_get_dst_port(struct rdma_cm_id *id)
{
	return htons(rxd_cm_addr_port(&id->route.addr.dst_addr));
}
