/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one entry lib/verbs offers lib/cm beyond the verbs API: the GSI QP
 * (QPN 1) of a device's port, which carries the CM's MADs.  Exported from
 * the compat libibverbs.so.1 under the private node RXD_PRIVATE_1.0 so
 * that the compat librdmacm.so.1 shares the process's single rxd.
 */
#ifndef RXD_VERBS_GSI_H
#define RXD_VERBS_GSI_H

#include <infiniband/verbs.h>

/**
 * QP1's own limits, whatever [limits] sets for applications: a storm of
 * N connections brings 2N MADs at once (REQs and RTUs, or DREQs and
 * DREPs), so QP1 may hold this many WRs in each queue, and its CQ both.
 */
#define RXD_GSI_MAX_WR 8192
#define RXD_GSI_MAX_CQE (2 * RXD_GSI_MAX_WR)

/**
 * Create the GSI QP of @p pd's device: a UD QP numbered 1, which may use
 * the privileged Q_Key 0x80010000 without CAP_NET_RAW (ibv_modify_qp
 * takes it like any Q_Key).  Otherwise as ibv_create_qp().
 * @return the QP, or NULL with errno (EBUSY: the port's QP1 exists,
 * EINVAL: not a UD QP).
 */
struct ibv_qp *rxd_verbs_create_gsi_qp(struct ibv_pd *pd,
				       struct ibv_qp_init_attr *attr);

/**
 * Create the CQ of a GSI QP: as ibv_create_cq(), up to RXD_GSI_MAX_CQE
 * entries whatever the configured cq_depth.
 * @return the CQ, or NULL with errno.
 */
struct ibv_cq *rxd_verbs_create_gsi_cq(struct ibv_context *context, int cqe,
				       struct ibv_comp_channel *channel);

#endif /* RXD_VERBS_GSI_H */
