/* SPDX-License-Identifier: BSD-3-Clause */
/* The rte_flow rules of rxd_steer.h's flow mode (rxd_steer_flow.c). */
#ifndef RXD_STEER_FLOW_H
#define RXD_STEER_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "rxd_steer_hash.h"

struct rte_flow;

/** A rule sending flow f's frames to queue, or NULL (refused). */
struct rte_flow *rxd_steer_flow_create(uint16_t port_id,
				       const struct rxd_steer_flow *f,
				       uint16_t queue);

/** Remove a rule of rxd_steer_flow_create(). */
void rxd_steer_flow_destroy(uint16_t port_id, struct rte_flow *flow);

/** Whether the device validates and creates such a rule (a probe). */
bool rxd_steer_flow_works(uint16_t port_id, uint16_t queue);

#endif /* RXD_STEER_FLOW_H */
