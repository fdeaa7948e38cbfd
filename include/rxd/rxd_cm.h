/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The counters of rxd's connection manager (the rdma_cm of librxd and of
 * the compat librdmacm.so.1): the MADs it sent, received, resent and
 * dropped (by reason), and the ids, events and memory it holds, for the
 * whole process.
 */
#ifndef RXD_CM_H
#define RXD_CM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What the CM did since it started, and what it holds now. */
struct rxd_cm_counters {
	uint64_t mads_tx;         /**< MADs posted on QP1 */
	uint64_t mads_rx;         /**< CM MADs received */
	uint64_t resent;          /**< MADs resent after a response timeout */
	uint64_t timeouts;        /**< requests given up after the last resend */
	uint64_t backlogged;      /**< MADs that waited for room on QP1's send
				       queue (sent later, not lost) */
	uint64_t drop_qp1;        /**< MADs QP1 dropped (no receive buffer
				       free, or a wrong Q_Key) */
	uint64_t drop_malformed;  /**< received, but failed or not a CM MAD
				       rxd decodes */
	uint64_t drop_unmatched;  /**< naming no id of this CM (late answers
				       to ids gone) */
	uint64_t drop_tx;         /**< MADs that could not be sent */
	uint64_t rej_no_listener; /**< REQs refused: nobody listens there */
	uint64_t ids;             /**< rdma_cm_ids alive */
	uint64_t ids_peak;        /**< most ids alive at once */
	uint64_t events;          /**< events queued or not yet acknowledged */
	uint64_t mem_bytes;       /**< heap the CM holds for ids, events,
				       waiting MADs and its indexes */
};

/**
 * Read the CM's counters.  All zero before the process's first
 * rdma_cm call.
 * @return 0.
 */
int rxd_cm_counters(struct rxd_cm_counters *c);

#ifdef __cplusplus
}
#endif

#endif /* RXD_CM_H */
