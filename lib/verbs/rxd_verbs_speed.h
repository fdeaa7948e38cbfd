/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IB active width and speed a RoCE port reports for its Ethernet link
 * speed: the closest IB pair, as Linux's ib_core gives Soft-RoCE and mlx5
 * (doc/architecture.md has the table).  Pure logic, no DPDK.
 */
#ifndef RXD_VERBS_SPEED_H
#define RXD_VERBS_SPEED_H

#include <stdint.h>

/** Link speed the port could not learn (RTE_ETH_SPEED_NUM_UNKNOWN). */
#define RXD_SPEED_UNKNOWN UINT32_MAX

/**
 * The IB pair for an Ethernet speed in Mbit/s: *width as in
 * ibv_port_attr.active_width (1 = 1X, 2 = 4X, 16 = 2X), *speed as in
 * active_speed (1 = SDR ... 128 = NDR).  An unknown or zero speed counts
 * as 1000 Mbit/s, as ib_core does.
 */
void rxd_verbs_ib_speed(uint32_t mbps, uint8_t *width, uint8_t *speed);

#endif /* RXD_VERBS_SPEED_H */
