/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What rxd knows of the DPDK drivers it runs on, one row per driver: how
 * a devarg bounds a frame, whether rxd can steer its RSS, whether its
 * transmit queue q is the peer's receive queue q, whether its bursts
 * need the link up, whether a lost peer is dialled again.  A driver with
 * no row has none of these traits.
 */
#ifndef RXD_DRIVER_H
#define RXD_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

/** One driver's traits. */
struct rxd_driver_traits {
	const char *name;           /**< DPDK's driver name */
	/** The devarg bounding a frame its data path carries (beyond the
	 *  max_rx_pktlen it reports), or NULL. */
	const char *frame_devarg;
	uint32_t frame_dflt;        /**< that devarg's value when not given */
	uint32_t frame_kept;        /**< bytes of it the driver keeps */
	bool frame_mbuf_sized;      /**< receive queues want mbufs that big */
	/** RSS is the Toeplitz hash over the standard input with a 40-byte
	 *  key rxd can set: software can tell a flow's RETA entry. */
	bool toeplitz;
	/** Its transmit queue q arrives on the peer's receive queue q. */
	bool lanes;
	/** Bursts only while the link reads up, and guarded against the
	 *  peer unmapping the rings (rxd_port_guard.h). */
	bool burst_needs_link;
	/** A client that lost its peer is dialled again (rxd_port_redial.h). */
	bool redial;
};

/** The traits of driver @p name (a row of no traits when unknown). */
const struct rxd_driver_traits *rxd_driver_traits(const char *name);

#endif /* RXD_DRIVER_H */
