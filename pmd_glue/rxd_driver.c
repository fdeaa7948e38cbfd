/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The drivers rxd knows (see rxd_driver.h), and why.
 *
 * Frame limits.  memif (DPDK 22.11) reports max_rx_pktlen 1518 yet copies
 * a frame of up to bsize bytes into one descriptor; a longer frame is
 * split over a chain of descriptors, which 22.11 loses under load, so
 * bsize is the real limit.  af_packet reports 1518 too; the kernel writes
 * a received frame 66 bytes into a ring frame of framesz bytes (after the
 * tpacket header) and cuts what does not fit.
 *
 * Toeplitz.  DPDK 22.11 does not report a device's hash function: these
 * drivers' RSS is the Toeplitz hash over source and destination address,
 * then ports, with a 40-byte key (virtio: its specification's RSS).
 *
 * Lanes.  memif's ring pair q, and the rings of rxd_port_ring_pair()
 * (rte_eth_from_rings): what is sent on queue q is received on queue q.
 *
 * Link before bursts.  memif computes a queue's ring address from its
 * region before it checks that the link is connected: a burst that
 * starts while the link comes up can read the region's address before
 * the connection maps it, find the link connected a moment later and use
 * the stale address (a SEGV at 0xc184, ring 3's flags from a NULL region,
 * once in four ASan runs of ud-uc-2eng-memif).  The connection sets the
 * link up only after the mapping, so a burst started after the link was
 * read up sees the mapping.  Its disconnect unmaps the regions under a
 * burst already running: those bursts are guarded.
 *
 * Redial.  memif's client does not connect again by itself once its
 * server went away.
 */
#include <stddef.h>
#include <string.h>

#include <rte_common.h>

#include "rxd_driver.h"

static const struct rxd_driver_traits drivers[] = {
	{ .name = "net_memif", .frame_devarg = "bsize", .frame_dflt = 2048,
	  .lanes = true, .burst_needs_link = true, .redial = true },
	{ .name = "net_af_packet", .frame_devarg = "framesz",
	  .frame_dflt = 2048, .frame_kept = 66, .frame_mbuf_sized = true },
	{ .name = "net_ring", .lanes = true },
	{ .name = "net_virtio", .toeplitz = true },
	{ .name = "net_ixgbe", .toeplitz = true },
	{ .name = "net_e1000_igb", .toeplitz = true },
	{ .name = "net_mlx5", .toeplitz = true },
	{ .name = "net_vmxnet3", .toeplitz = true },
};

static const struct rxd_driver_traits no_traits = { .name = "" };

const struct rxd_driver_traits *
rxd_driver_traits(const char *name)
{
	size_t i;

	for (i = 0; i < RTE_DIM(drivers); i++)
		if (strcmp(name, drivers[i].name) == 0)
			return &drivers[i];
	return &no_traits;
}
