/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_join_multicast, rdma_join_multicast_ex and rdma_leave_multicast on
 * RoCE, as the kernel's rdma_cm does them there: no SA, the group's MGID
 * is its IP address (IPv4-mapped for IPv4), the Q_Key RDMA_UDP_QKEY.  The
 * id must be bound to a port (rdma_bind_addr or rdma_resolve_addr).  A
 * full member's QP (if the id has one) is attached to the group, which
 * makes the port report it (IGMP/MLD); a send-only member is not.  The
 * RDMA_CM_EVENT_MULTICAST_JOIN event carries the UD parameters to send to
 * the group: an AH to the MGID (hop limit 64), QPN 0xFFFFFF, the Q_Key;
 * its private_data is the join's context.  Destroying the id leaves its
 * groups.
 */
#include <stdlib.h>
#include <string.h>

#include "rxd_cm_priv.h"
#include "rxd_wire.h"

#define MCAST_QPN 0xFFFFFFu
#define MCAST_HOP_LIMIT 64

/** One group an id has joined. */
struct rxd_cm_mcast {
	uint8_t gid[16];
	bool attached;               /**< the id's QP is attached to it */
	struct rxd_cm_mcast *next;
};

static struct rxd_cm_mcast **
find(struct rxd_cm_id *c, const uint8_t gid[16])
{
	struct rxd_cm_mcast **m;

	for (m = &c->mcast; *m != NULL; m = &(*m)->next)
		if (memcmp((*m)->gid, gid, 16) == 0)
			return m;
	return m;
}

static void
join_params(struct rdma_cm_event *ev, const struct rxd_cm_id *c,
	    const uint8_t gid[16], void *context)
{
	struct ibv_ah_attr *a = &ev->param.ud.ah_attr;

	a->is_global = 1;
	a->port_num = 1;
	memcpy(a->grh.dgid.raw, gid, 16);
	a->grh.sgid_index = c->sgid_index;
	a->grh.hop_limit = MCAST_HOP_LIMIT;
	a->grh.traffic_class = c->tos;
	ev->param.ud.qp_num = MCAST_QPN;
	ev->param.ud.qkey = RDMA_UDP_QKEY;
	ev->param.ud.private_data = context;
	ev->param.ud.private_data_len = 0;
}

static bool
send_only(const struct rdma_cm_join_mc_attr_ex *a)
{
	return (a->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) &&
		a->join_flags == RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
}

/* Check the request; @return 0 or the errno value. */
static int
join_check(struct rxd_cm_id *c, const struct rdma_cm_join_mc_attr_ex *a,
	   uint8_t gid[16])
{
	uint32_t known = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
		RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;

	if (a == NULL || (a->comp_mask & ~known) ||
	    !(a->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS) ||
	    ((a->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) &&
	     a->join_flags >= RDMA_MC_JOIN_FLAG_RESERVED))
		return EINVAL;
	if (a->addr == NULL || rxd_cm_addr_gid(a->addr, gid) != 0)
		return EAFNOSUPPORT;
	if (!rxd_gid_is_mcast(gid) || c->dev == NULL ||
	    c->id.qp_type != IBV_QPT_UD)
		return EINVAL;
	return *find(c, gid) != NULL ? EADDRINUSE : 0;
}

int
rdma_join_multicast_ex(struct rdma_cm_id *id,
		       struct rdma_cm_join_mc_attr_ex *mc_join_attr,
		       void *context)
{
	struct rxd_cm_id *c = rxd_cm_id(id);
	struct rxd_cm_mcast *m;
	struct rdma_cm_event *ev;
	uint8_t gid[16];
	int rc;

	if (id == NULL)
		return rxd_cm_result(EINVAL);
	rc = join_check(c, mc_join_attr, gid);
	if (rc == 0 && (m = calloc(1, sizeof(*m))) == NULL)
		rc = ENOMEM;
	if (rc != 0)
		return rxd_cm_result(rc);
	memcpy(m->gid, gid, 16);
	if (id->qp != NULL && !send_only(mc_join_attr)) {
		rc = ibv_attach_mcast(id->qp, (const union ibv_gid *)gid, 0);
		if (rc != 0) {
			free(m);
			return rxd_cm_result(rc);
		}
		m->attached = true;
	}
	pthread_mutex_lock(&rxd_cm.lock);
	m->next = c->mcast;
	c->mcast = m;
	ev = rxd_cm_event_push(c, NULL, RDMA_CM_EVENT_MULTICAST_JOIN, 0,
			       NULL, 0);
	if (ev != NULL)
		join_params(ev, c, gid, context);
	pthread_mutex_unlock(&rxd_cm.lock);
	return rxd_cm_sync_wait(c, RDMA_CM_EVENT_MULTICAST_JOIN);
}

int
rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
		    void *context)
{
	struct rdma_cm_join_mc_attr_ex a = {
		.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
			RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS,
		.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER,
		.addr = addr,
	};

	return rdma_join_multicast_ex(id, &a, context);
}

/* Unlink and free a group, detaching the QP from it. */
static int
leave(struct rxd_cm_id *c, struct rxd_cm_mcast **link)
{
	struct rxd_cm_mcast *m = *link;
	int rc = 0;

	*link = m->next;
	if (m->attached && c->id.qp != NULL)
		rc = ibv_detach_mcast(c->id.qp, (const union ibv_gid *)m->gid,
				      0);
	free(m);
	return rc;
}

int
rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rxd_cm_id *c = rxd_cm_id(id);
	struct rxd_cm_mcast **link;
	uint8_t gid[16];

	if (id == NULL || addr == NULL)
		return rxd_cm_result(EINVAL);
	if (rxd_cm_addr_gid(addr, gid) != 0)
		return rxd_cm_result(EAFNOSUPPORT);
	link = find(c, gid);
	if (*link == NULL)
		return rxd_cm_result(EADDRNOTAVAIL);
	return rxd_cm_result(leave(c, link));
}

void
rxd_cm_mcast_leave_all(struct rxd_cm_id *c)
{
	while (c->mcast != NULL)
		leave(c, &c->mcast);
}
