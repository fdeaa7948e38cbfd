/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A connected QP's steering over its life (see rxd_qp_steer.h): at RTR
 * the peer's address and QPN are known, and so the UDP source port of
 * every frame it will send to this QP (rxd_sport_connected(): Soft-RoCE's
 * choice, and rxd's); the port steers that flow to the queue of the
 * engine owning the QP, shard qpn % engines (rxd_stack_qp_engine()).
 */
#include <string.h>

#include "rxd_qp_steer.h"
#include "rxd_stack.h"

void
rxd_qp_steer_release(struct rxd_qp_core *qp)
{
	struct rxd_port *p = &rxd_stk.ports[qp->port];

	rxd_steer_remove(&p->steer, p->port_id, qp->steer);
	qp->steer = NULL;
}

/* The flow of the peer's frames to qp, from its address vector. */
static bool
peer_flow(const struct rxd_qp_core *qp, struct rxd_steer_flow *f)
{
	const struct ibv_qp_attr *a = &qp->attr;

	memset(f, 0, sizeof(*f));
	if (rxd_query_gid(qp->port, a->ah_attr.grh.sgid_index, f->dst) != 0)
		return false;
	memcpy(f->src, a->ah_attr.grh.dgid.raw, sizeof(f->src));
	f->sport = rxd_sport_connected(a->ah_attr.grh.flow_label,
				       a->dest_qp_num, qp->qpn);
	f->dport = RXD_ROCE_UDP_PORT;
	return true;
}

static void
steer(struct rxd_qp_core *qp)
{
	struct rxd_port *p = &rxd_stk.ports[qp->port];
	unsigned int n = rxd_stk.n_shards[qp->port];
	struct rxd_steer_flow f;

	if (n < 2 || (p->steer.mode != RXD_STEER_FLOW &&
		      p->steer.mode != RXD_STEER_RETA) || !peer_flow(qp, &f))
		return;
	qp->steer = rxd_steer_add(&p->steer, p->port_id, &f,
				  (uint16_t)rxd_qp_share(qp->qpn, n));
}

void
rxd_qp_steer_modify(struct rxd_qp_core *qp, enum ibv_qp_state from)
{
	enum ibv_qp_state to = qp->attr.qp_state;

	if (qp->type != IBV_QPT_RC && qp->type != IBV_QPT_UC)
		return;
	if (to == from || (to != IBV_QPS_RTR && to != IBV_QPS_RESET &&
			   to != IBV_QPS_INIT))
		return;
	rxd_qp_steer_release(qp);   /* a new connection, or none */
	if (to == IBV_QPS_RTR)
		steer(qp);
}
