/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verbs: conversions between the kernel uverbs/SA structures and the
 * libibverbs ones.  Owns ibv_copy_ah_attr_from_kern,
 * ibv_copy_qp_attr_from_kern, ibv_copy_path_rec_from_kern and
 * ibv_copy_path_rec_to_kern.  librdmacm uses them on what the rdma_ucm
 * device returns (RDMA_USER_CM_CMD_INIT_QP_ATTR, route queries).  rxd has
 * no kernel side, but the layouts are fixed by <rdma/ib_user_verbs.h> and
 * <rdma/ib_user_sa.h>, so the copies are real: field by field, byte order
 * kept (both sides hold LIDs, P_Key and flow label alike), and the
 * destination fields with no kernel counterpart are left untouched.
 * Debian installs no header declaring these four (rdma-core keeps them in
 * its private marshall.h): their prototypes are in rxd_verbs_compat.h.
 */
#include <string.h>

#include "rxd_verbs_compat.h"

static void
copy_grh_from_kern(struct ibv_global_route *dst,
		   const struct ib_uverbs_global_route *src)
{
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid.raw));
	dst->flow_label = src->flow_label;
	dst->sgid_index = src->sgid_index;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
}

void
ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
			   const struct ib_uverbs_ah_attr *src)
{
	copy_grh_from_kern(&dst->grh, &src->grh);
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = src->is_global;
	dst->port_num = src->port_num;
}

static void
copy_qp_cap_from_kern(struct ibv_qp_cap *dst,
		      const struct ib_uverbs_qp_attr *src)
{
	dst->max_send_wr = src->max_send_wr;
	dst->max_recv_wr = src->max_recv_wr;
	dst->max_send_sge = src->max_send_sge;
	dst->max_recv_sge = src->max_recv_sge;
	dst->max_inline_data = src->max_inline_data;
}

/*
 * qp_state is not copied: Debian's library leaves it as the caller set it
 * (librdmacm sets the state it asks the kernel to prepare for, and the
 * kernel answers with the same one).
 */
void
ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
			   const struct ib_uverbs_qp_attr *src)
{
	dst->cur_qp_state = (enum ibv_qp_state)src->cur_qp_state;
	dst->path_mtu = (enum ibv_mtu)src->path_mtu;
	dst->path_mig_state = (enum ibv_mig_state)src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = (unsigned int)src->qp_access_flags;
	copy_qp_cap_from_kern(&dst->cap, src);
	ibv_copy_ah_attr_from_kern(&dst->ah_attr, &src->ah_attr);
	ibv_copy_ah_attr_from_kern(&dst->alt_ah_attr, &src->alt_ah_attr);
	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}

void
ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
			    const struct ib_user_path_rec *src)
{
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid.raw));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid.raw));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = (int)src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->reversible = (int)src->reversible;
	dst->mtu = (uint8_t)src->mtu;
	dst->pkey = src->pkey;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->numb_path = src->numb_path;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}

void
ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			  const struct ibv_sa_path_rec *src)
{
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = (__u32)src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->reversible = (__u32)src->reversible;
	dst->mtu = src->mtu;
	dst->pkey = src->pkey;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->numb_path = src->numb_path;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}
