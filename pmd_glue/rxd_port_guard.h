/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_port_guard.h - bursts that survive a memif peer unmapping the rings
 * under them (rxd_port_guard.c).
 */
#ifndef RXD_PORT_GUARD_H
#define RXD_PORT_GUARD_H

#include <stdint.h>

struct rte_mbuf;

/** A burst function: rte_eth_rx_burst()'s or rte_eth_tx_burst()'s shape. */
typedef uint16_t (*rxd_port_burst_fn)(uint16_t port, uint16_t queue,
				      struct rte_mbuf **pkts, uint16_t n);

/**
 * Install the SIGSEGV and SIGBUS handlers the guard needs (once per
 * process; later calls do nothing).  The handlers found are kept and
 * called for every fault the guard does not take.
 * @return 0, or -1 with errno from sigaction().
 */
int rxd_port_guard_install(void);

/**
 * Run @p fn(@p port, @p queue, @p pkts, @p n) on this thread so that a
 * memory fault inside it, taken while @p port's link is down, ends the
 * burst instead of the process.  A fault while the link is up, or outside
 * a guarded burst, goes to the handler that was there before.
 * @param[out] faulted  set to 1 when the burst ended on a fault (then the
 *                      PMD may hold some of @p pkts: they are not the
 *                      caller's any more), left alone otherwise
 * @return what @p fn returned, or 0 after a fault.
 */
uint16_t rxd_port_guard_burst(rxd_port_burst_fn fn, uint16_t port,
			      uint16_t queue, struct rte_mbuf **pkts,
			      uint16_t n, int *faulted);

#endif
