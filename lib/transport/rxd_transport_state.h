/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A copy of one QP's transport state for observers (the rte_telemetry
 * endpoints of lib/stack): PSNs, send window, retry budgets and the
 * counters, taken on the engine that owns the QP so that it is consistent.
 */
#ifndef RXD_TRANSPORT_STATE_H
#define RXD_TRANSPORT_STATE_H

#include <stdint.h>

#include "rxd/rxd.h"
#include "rxd_qp_core.h"

/** What rxd_transport_state() copies. */
struct rxd_transport_state {
	uint32_t sq_psn;        /**< PSN of the next new request packet */
	uint32_t una;           /**< oldest PSN not yet acknowledged */
	uint32_t snd_nxt;       /**< PSN after the highest one sent */
	uint32_t rq_psn;        /**< responder: next expected PSN */
	uint32_t msn;           /**< responder: message sequence number */
	uint32_t window_used;   /**< send WQEs posted, not yet completed */
	uint32_t window_unsent; /**< ... of which not (re)sent yet */
	uint32_t window_size;   /**< send window slots */
	uint32_t retry_left;    /**< transport retries left for the oldest */
	uint32_t rnr_left;      /**< RNR retries left */
	uint32_t timer_armed;   /**< 1 while the retransmit timer runs */
	uint32_t rnr_waiting;   /**< 1 during an RNR back-off */
	struct rxd_qp_stats cnt;
};

/** Copy the QP's transport state (on the QP's engine). */
void rxd_transport_state(const struct rxd_qp_core *qp,
			 struct rxd_transport_state *s);

#endif /* RXD_TRANSPORT_STATE_H */
