/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Two DPDK net_ring ports wired to each other, for running two rxd hosts
 * inside one process (tests, examples, rxd-perf --loopback).  The ports are
 * ordinary DPDK ports: rxd_start() then serves them as rxd0 and rxd1 like
 * any other.  Defined in pmd_glue and exported by librxd.so.
 */
#ifndef RXD_RING_PAIR_H
#define RXD_RING_PAIR_H

#include <stdint.h>

/** Queues of each ring-pair port: A's transmit queue q is B's receive
 *  queue q (and back), so that several engines can share each port. */
#define RXD_RING_PAIR_QUEUES 4

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Build two connected net_ring ports: what port A sends, port B receives,
 * and back, on RXD_RING_PAIR_QUEUES queues (queue q to queue q).  Call it after rte_eal_init() and before rxd_start().
 *
 * @param name_a
 *   DPDK device name of the first port (also names its rings "<name>_tx",
 *   "<name>_tx1", ...).
 * @param name_b
 *   DPDK device name of the second port; distinct from name_a.
 * @param socket
 *   NUMA socket of the rings (0 on a single-socket machine).
 * @param port_a
 *   Receives the DPDK port id of the first port.
 * @param port_b
 *   Receives the DPDK port id of the second port.
 * @return
 *   0, or -1 if a ring or a port could not be created (for example a name
 *   already in use).
 */
int rxd_port_ring_pair(const char *name_a, const char *name_b, int socket,
		       uint16_t *port_a, uint16_t *port_b);

#ifdef __cplusplus
}
#endif

#endif /* RXD_RING_PAIR_H */
