/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A sender's note of the MAC its frames to one peer went to, kept by a
 * connected QP so that its frames skip the route and neighbour lookups
 * while the port's neighbour table has not changed (rxd_net_output()).
 */
#ifndef RXD_NET_HINT_H
#define RXD_NET_HINT_H

#include <stdint.h>

#include <rte_ether.h>

/** The peer's MAC as of the neighbour table's generation gen. */
struct rxd_net_hint {
	uint32_t gen;                  /**< 0: nothing noted yet */
	struct rte_ether_addr mac;
};

#endif /* RXD_NET_HINT_H */
