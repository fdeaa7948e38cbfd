/* SPDX-License-Identifier: BSD-3-Clause */
/* Completion queues and completion channels of lib/verbs. */
#ifndef RXD_CQ_H
#define RXD_CQ_H

#include "rxd_verbs.h"

/** A completion channel: an eventfd plus the CQs that fired, in order. */
struct rxd_channel {
	struct ibv_comp_channel ch;
	pthread_mutex_t lock;
	struct rxd_cq *head, *tail;   /**< fired CQs (one entry per event) */
};

/** A CQ: verbs handle (extended form) and the engine-side core. */
struct rxd_cq {
	struct ibv_cq_ex cqx;         /**< starts like struct ibv_cq */
	struct rxd_cq_core core;
	pthread_spinlock_t lock;      /**< ibv_poll_cq is thread-safe */
	struct rxd_context *ctx;
	uint32_t users;               /**< QPs and SRQs using it */
	uint32_t events_delivered;    /**< by ibv_get_cq_event */
	uint64_t wc_flags;            /**< IBV_WC_EX_WITH_* asked at create */
	struct rxd_cqe cur;           /**< entry under the extended poll */
	struct rxd_cq *next_fired;    /**< link in the channel's queue */
	uint32_t fired;               /**< events queued on the channel */
	uint32_t empty_polls;         /**< polls in a row that found nothing */
};

static inline struct rxd_cq *
rxd_cq(struct ibv_cq *cq)
{
	return (struct rxd_cq *)cq;
}

/** verbs_context create_cq_ex operation. */
struct ibv_cq_ex *rxd_verbs_create_cq_ex(struct ibv_context *context,
					 struct ibv_cq_init_attr_ex *attr);

/** ibv_context_ops poll_cq and req_notify_cq operations. */
int rxd_verbs_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int rxd_verbs_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/**
 * Drop the completions of QP @p qpn not yet polled from the CQ (a QP
 * moved to RESET takes its completions back, as mlx5 providers do).
 */
void rxd_verbs_cq_clean(struct ibv_cq *cq, uint32_t qpn);

/** Called for each polled completion: free the send slots it retires. */
void rxd_verbs_sq_retire(struct rxd_context *ctx, const struct rxd_cqe *c);

#endif /* RXD_CQ_H */
