/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rdma_cm connection calls: connect, accept, reject, disconnect,
 * establish, and the synchronous endpoint calls rdma_create_ep,
 * rdma_get_request and rdma_destroy_ep (rdma_server/rdma_client).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxd_cm_priv.h"

#define EP_RESOLVE_MS 2000

/* Run an id operation under the lock; errno on failure. */
static int
locked(struct rdma_cm_id *id, int (*fn)(struct rxd_cm_id *c, const void *a),
       const void *arg)
{
	int rc;

	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&rxd_cm.lock);
	rc = fn(rxd_cm_id(id), arg);
	pthread_mutex_unlock(&rxd_cm.lock);
	return rxd_cm_result(rc);
}

static int
do_connect(struct rxd_cm_id *c, const void *p)
{
	if (c->state != RXD_CMS_ROUTE_RESOLVED)
		return EINVAL;
	return rxd_cm_id_connect(c, p);
}

int
rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	if (locked(id, do_connect, conn_param) != 0)
		return -1;
	return rxd_cm_sync_wait(rxd_cm_id(id), RDMA_CM_EVENT_ESTABLISHED);
}

static int
do_accept(struct rxd_cm_id *c, const void *p)
{
	return rxd_cm_id_accept(c, p);
}

int
rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	if (locked(id, do_accept, conn_param) != 0)
		return -1;
	if (id->qp_type == IBV_QPT_UD)
		return 0;
	return rxd_cm_sync_wait(rxd_cm_id(id), RDMA_CM_EVENT_ESTABLISHED);
}

struct reject_arg {
	const void *pdata;
	uint8_t len;
};

static int
do_reject(struct rxd_cm_id *c, const void *a)
{
	const struct reject_arg *r = a;

	return rxd_cm_id_reject(c, r->pdata, r->len);
}

int
rdma_reject(struct rdma_cm_id *id, const void *private_data,
	    uint8_t private_data_len)
{
	struct reject_arg r = { private_data, private_data_len };

	return locked(id, do_reject, &r);
}

int
rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
		uint8_t private_data_len)
{
	return rdma_reject(id, private_data, private_data_len);
}

static int
do_disconnect(struct rxd_cm_id *c, const void *a)
{
	(void)a;
	return rxd_cm_id_disconnect(c);
}

int
rdma_disconnect(struct rdma_cm_id *id)
{
	return locked(id, do_disconnect, NULL);
}

static int
do_establish(struct rxd_cm_id *c, const void *a)
{
	(void)a;
	return rxd_cm_id_establish(c);
}

int
rdma_establish(struct rdma_cm_id *id)
{
	return locked(id, do_establish, NULL);
}

/* A request's id gets a channel of its own: it is synchronous too. */
static int
own_channel(struct rxd_cm_id *c)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();

	if (ch == NULL)
		return -1;
	pthread_mutex_lock(&rxd_cm.lock);
	c->id.channel = ch;
	c->sync = true;
	pthread_mutex_unlock(&rxd_cm.lock);
	return 0;
}

int
rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct rxd_cm_id *l = rxd_cm_id(listen);
	struct rdma_cm_event *ev;
	struct ibv_qp_init_attr attr;
	struct rxd_cm_id *c;

	if (listen == NULL || id == NULL || !l->sync) {
		errno = EINVAL;
		return -1;
	}
	if (rxd_cm_event_take((struct rxd_cm_channel *)listen->channel, &ev))
		return -1;
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		errno = ev->status < 0 ? -ev->status : EPROTO;
		rdma_ack_cm_event(ev);
		return -1;
	}
	c = rxd_cm_id(ev->id);
	rdma_ack_cm_event(ev);
	if (own_channel(c) != 0)
		goto refuse;
	if (l->ep_attr != NULL) {
		attr = *l->ep_attr;
		if (rdma_create_qp(&c->id, l->ep_pd, &attr) != 0)
			goto refuse;
	}
	*id = &c->id;
	return 0;
refuse:
	rdma_reject(&c->id, NULL, 0);
	rdma_destroy_id(&c->id);
	return -1;
}

static int
ep_passive(struct rdma_cm_id *id, struct rdma_addrinfo *res,
	   struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rxd_cm_id *c = rxd_cm_id(id);

	if (rdma_bind_addr(id, res->ai_src_addr) != 0)
		return -1;
	if (qp_init_attr == NULL)
		return 0;
	c->ep_attr = malloc(sizeof(*c->ep_attr));
	if (c->ep_attr == NULL)
		return -1;
	*c->ep_attr = *qp_init_attr;
	c->ep_attr->qp_type = id->qp_type;
	c->ep_pd = pd;
	return 0;
}

static int
ep_active(struct rdma_cm_id *id, struct rdma_addrinfo *res,
	  struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	if (rdma_resolve_addr(id, res->ai_src_addr, res->ai_dst_addr,
			      EP_RESOLVE_MS) != 0 ||
	    rdma_resolve_route(id, EP_RESOLVE_MS) != 0)
		return -1;
	if (qp_init_attr == NULL)
		return 0;
	qp_init_attr->qp_type = id->qp_type;    /* from the addrinfo */
	return rdma_create_qp(id, pd, qp_init_attr);
}

int
rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
	       struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cid;
	int rc;

	if (id == NULL || res == NULL ||
	    (res->ai_flags & RAI_PASSIVE ? res->ai_src_addr :
	     res->ai_dst_addr) == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (rdma_create_id(NULL, &cid, NULL,
			   (enum rdma_port_space)res->ai_port_space) != 0)
		return -1;
	if (res->ai_qp_type != 0)
		cid->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	if (res->ai_flags & RAI_PASSIVE)
		rc = ep_passive(cid, res, pd, qp_init_attr);
	else
		rc = ep_active(cid, res, pd, qp_init_attr);
	if (rc != 0) {
		rc = errno;
		rdma_destroy_ep(cid);
		errno = rc;
		return -1;
	}
	*id = cid;
	return 0;
}

void
rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (id == NULL)
		return;
	if (id->qp != NULL)
		rdma_destroy_qp(id);
	rdma_destroy_id(id);
}
