/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A connected QP's steering (pmd_glue/rxd_steer.h) over its life: made
 * when it enters RTR, undone when it leaves the connection (RESET, INIT)
 * or goes.  On the owning engine.
 */
#ifndef RXD_QP_STEER_H
#define RXD_QP_STEER_H

#include <infiniband/verbs.h>

#include "rxd_qp_core.h"

/** After a modify from state from was applied to qp. */
void rxd_qp_steer_modify(struct rxd_qp_core *qp, enum ibv_qp_state from);

/** Undo the QP's steering (it goes). */
void rxd_qp_steer_release(struct rxd_qp_core *qp);

#endif /* RXD_QP_STEER_H */
