/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The operation tables behind the static inline verbs of <infiniband/verbs.h>
 * (verbs_context ops and the legacy ibv_context_ops).  An operation rxd does
 * not implement stays NULL, which the header turns into EOPNOTSUPP/ENOSYS.
 */
#include "rxd_qp.h"

void
rxd_verbs_set_ops(struct rxd_context *ctx)
{
	struct verbs_context *v = &ctx->vctx;
	struct ibv_context_ops *o = &v->context.ops;

	v->query_port = rxd_verbs_query_port;
	v->query_device_ex = rxd_verbs_query_device_ex;
	v->create_cq_ex = rxd_verbs_create_cq_ex;
	v->create_qp_ex = rxd_verbs_create_qp_ex;
	v->query_rt_values = rxd_verbs_query_rt_values;
	o->poll_cq = rxd_verbs_poll_cq;
	o->req_notify_cq = rxd_verbs_req_notify_cq;
	o->post_send = rxd_verbs_post_send;
	o->post_recv = rxd_verbs_post_recv;
	o->post_srq_recv = rxd_verbs_post_srq_recv;
	rxd_verbs_mw_set_ops(o);
}
