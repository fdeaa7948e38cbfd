/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hand-off between the engines sharing a port (engines_per_port > 1).
 * A frame received by an engine that does not own its QP, and every
 * ARP/ND/ICMP/IGMP and multicast frame received by an engine other than
 * the port's first, goes to the right engine through a single-producer
 * single-consumer rte_ring per ordered engine pair, in bursts.  Only
 * received frames travel them: an engine sends its QPs' frames itself
 * (rxd_tx_addr.h).
 */
#ifndef RXD_HANDOFF_H
#define RXD_HANDOFF_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rxd_config.h"

#define RXD_HANDOFF_BURST 32
#define RXD_HANDOFF_RING 4096

struct rxd_engine;
struct rxd_engine_port;

/** Hand-off counters of one engine. */
struct rxd_handoff_stats {
	uint64_t sent;       /**< frames handed to another engine */
	uint64_t received;   /**< frames other engines handed here */
	uint64_t dropped;    /**< the ring to the owner was full */
};

/** One engine's hand-off rings and the bursts it is filling. */
struct rxd_handoff {
	struct rte_ring *to[RXD_MAX_LCORES];    /**< by engine id, or NULL */
	struct rte_ring *from[RXD_MAX_LCORES];  /**< by engine id, or NULL */
	uint8_t out_ids[RXD_MAX_LCORES];        /**< engines with a to[] */
	uint8_t in_ids[RXD_MAX_LCORES];         /**< engines with a from[] */
	unsigned int n_out_ids, n_in_ids;
	uint16_t n_out[RXD_MAX_LCORES];
	void *out[RXD_MAX_LCORES][RXD_HANDOFF_BURST];
	struct rxd_handoff_stats stats;
};

/** Create the ring from engine a to engine b unless there is one. */
int rxd_handoff_link(struct rxd_engine *a, struct rxd_engine *b);

/** Free an engine's incoming rings and the frames still in them. */
void rxd_handoff_fini(struct rxd_engine *e);

/** Hand a received frame to engine to (from the binding that got it). */
void rxd_handoff_rx(struct rxd_engine_port *ep, struct rxd_engine *to,
		    struct rte_mbuf *m);

/** Pass the bursts filled so far to their rings. @return frames passed. */
unsigned int rxd_handoff_flush(struct rxd_engine *e);

/** Take what other engines handed here and process it. @return count. */
unsigned int rxd_handoff_receive(struct rxd_engine *e);

#endif /* RXD_HANDOFF_H */
