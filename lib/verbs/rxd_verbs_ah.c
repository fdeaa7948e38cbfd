/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address handles: a RoCE AH is a GRH (GID, hop limit, traffic class,
 * flow label, source GID index); it is built from attributes or from a
 * received work completion and its GRH area.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxd_qp.h"

struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct rxd_context *ctx = rxd_ctx(pd->context);
	struct rxd_ah *ah;

	if (!attr->is_global || attr->port_num != 1 ||
	    attr->grh.sgid_index >= RXD_GID_TBL_LEN) {
		errno = EINVAL;
		return NULL;
	}
	if (ctx->n_ah >= RXD_MAX_AH || (ah = calloc(1, sizeof(*ah))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ah->attr = *attr;
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	__atomic_add_fetch(&rxd_pd(pd)->users, 1, __ATOMIC_RELEASE);
	ctx->n_ah++;
	return &ah->ibah;
}

int
ibv_destroy_ah(struct ibv_ah *ibah)
{
	__atomic_sub_fetch(&rxd_pd(ibah->pd)->users, 1, __ATOMIC_RELEASE);
	rxd_ctx(ibah->context)->n_ah--;
	free(ibah);
	return 0;
}

/* The source address of a received GRH area (IPv4 form or IPv6 header). */
static int
grh_source(const struct ibv_grh *grh, union ibv_gid *sgid,
	   union ibv_gid *dgid, uint8_t *hop_limit, uint8_t *tclass)
{
	const uint8_t *p = (const uint8_t *)grh;

	if ((p[20] >> 4) == 4) {            /* IPv4 header at bytes 20..39 */
		memset(sgid, 0, sizeof(*sgid));
		memset(dgid, 0, sizeof(*dgid));
		sgid->raw[10] = sgid->raw[11] = 0xff;
		dgid->raw[10] = dgid->raw[11] = 0xff;
		memcpy(sgid->raw + 12, p + 32, 4);
		memcpy(dgid->raw + 12, p + 36, 4);
		*tclass = p[21];
		*hop_limit = p[28];
		return 0;
	}
	if ((p[0] >> 4) != 6)
		return EINVAL;
	*sgid = grh->sgid;
	*dgid = grh->dgid;
	*hop_limit = grh->hop_limit;
	*tclass = (uint8_t)(be32toh(grh->version_tclass_flow) >> 20);
	return 0;
}

int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
		    struct ibv_wc *wc, struct ibv_grh *grh,
		    struct ibv_ah_attr *ah_attr)
{
	union ibv_gid sgid, dgid, gid;
	uint8_t hop, tclass;
	int i;

	if (port_num != 1 || !(wc->wc_flags & IBV_WC_GRH) ||
	    grh_source(grh, &sgid, &dgid, &hop, &tclass) != 0)
		return -1;
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->is_global = 1;
	ah_attr->port_num = port_num;
	ah_attr->sl = wc->sl;
	ah_attr->grh.dgid = sgid;
	ah_attr->grh.hop_limit = 0xff;
	ah_attr->grh.traffic_class = tclass;
	for (i = 0; i < RXD_GID_TBL_LEN; i++) {
		if (ibv_query_gid(context, port_num, i, &gid) == 0 &&
		    memcmp(gid.raw, dgid.raw, sizeof(gid.raw)) == 0) {
			ah_attr->grh.sgid_index = (uint8_t)i;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
		      struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr) != 0)
		return NULL;
	return ibv_create_ah(pd, &attr);
}
