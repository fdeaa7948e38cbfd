/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addressing a QP's frames on a binding: the destination MAC from the
 * QP's hint or the port's neighbour table, then the frame's lane.  A frame
 * whose next hop is not known yet waits in the binding's queue, and so
 * does every later frame to that destination until none of its frames
 * waits: whichever engine owns a QP, its frames leave in the order it
 * built them, all on its own lane, and frames to other destinations are
 * not held up.  The neighbour table is the port's first engine's
 * (lib/net): it resolves, the others read the table and ask it.
 */
#ifndef RXD_TX_ADDR_H
#define RXD_TX_ADDR_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rxd_net_hint.h"
#include "rxd_wire.h"

/** QP frames a binding holds while their next hops resolve. */
#define RXD_TX_WAIT 256

struct rxd_engine_port;

/** A frame waiting for its next hop's MAC. */
struct rxd_tx_wait {
	struct rte_mbuf *m;
	uint64_t since;               /**< TSC when it started waiting */
	uint16_t lane;
	uint8_t dgid[RXD_GID_LEN];
};

/** What the waiting came to, per binding. */
struct rxd_tx_addr_stats {
	uint64_t waited;    /**< frames that waited for their next hop */
	uint64_t dropped;   /**< of those: no route, resolution failed,
			     *   or the queue was full */
};

/** Give the binding its wait queue. @return 0 or -ENOMEM. */
int rxd_tx_addr_init(struct rxd_engine_port *ep);

/** Free the wait queue and the frames still in it. */
void rxd_tx_addr_fini(struct rxd_engine_port *ep);

/**
 * Address a QP's frame to dgid and put it on its lane, or queue it behind
 * the frames waiting already.  hint is the QP's own (may be NULL).
 */
void rxd_tx_addr_send(struct rxd_engine_port *ep, uint16_t lane,
		      const uint8_t dgid[RXD_GID_LEN],
		      struct rxd_net_hint *hint, struct rte_mbuf *m);

/**
 * Have the next hop of dgid resolved: by the binding itself on the port's
 * first engine, else asked of that engine without waiting.
 */
void rxd_tx_addr_resolve(struct rxd_engine_port *ep,
			 const uint8_t dgid[RXD_GID_LEN]);

/**
 * Send the waiting frames whose next hop is known now, in order; drop
 * those that cannot be resolved.  @return frames sent.
 */
unsigned int rxd_tx_addr_drain(struct rxd_engine_port *ep);

#endif /* RXD_TX_ADDR_H */
