/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port sizing from rte_eth_dev_info (see rxd_port_size.h).
 */
#include <stdio.h>

#include <rte_mbuf.h>

#include "rxd_port_size.h"

/*
 * More than any header a PMD receives around a frame: a larger gap between
 * max_rx_pktlen and max_mtu means two unrelated limits (net_vmxnet3: 16384
 * and 9000), not an overhead.
 */
#define PMD_OVERHEAD_MAX 64

/*
 * Bytes the PMD adds to the MTU for one received frame.  A driver that
 * reports a real max_mtu says how much it needs above it (max_rx_pktlen
 * less max_mtu): Ethernet header and CRC, its VLAN allowance and, for
 * net_virtio, the virtio-net header it receives in front of each frame.
 */
static uint32_t
pmd_overhead(const struct rte_eth_dev_info *info)
{
	uint32_t own = RXD_PORT_FRAME_OVERHEAD, gap;

	if (info->max_mtu == 0 || info->max_mtu == UINT16_MAX ||
	    info->max_rx_pktlen <= info->max_mtu)
		return own;
	gap = info->max_rx_pktlen - info->max_mtu;
	return gap > PMD_OVERHEAD_MAX ? own : RTE_MAX(own, gap);
}

/* n descriptors, rounded up to the alignment and kept in the limits. */
static uint16_t
desc_in_limits(uint16_t n, const struct rte_eth_desc_lim *lim)
{
	uint32_t align = lim->nb_align ? lim->nb_align : 1;
	uint32_t d = ((uint32_t)n + align - 1) / align * align;
	uint32_t hi = lim->nb_max ? lim->nb_max : UINT16_MAX;

	d = RTE_MAX(d, (uint32_t)lim->nb_min);
	while (d > hi && d >= align)
		d -= align;
	return (uint16_t)RTE_MAX(d, (uint32_t)lim->nb_min);
}

int
rxd_port_size(const struct rte_eth_dev_info *info,
	      const struct rxd_port_want *want, struct rxd_port_size *out,
	      char *err, size_t errlen)
{
	uint32_t room = want->mtu + pmd_overhead(info);
	uint32_t need;

	room = RTE_MAX(room, want->min_frame);
	room = RTE_MAX(room, info->min_rx_bufsize);
	room = RTE_MAX(room, (uint32_t)RTE_MBUF_DEFAULT_DATAROOM);
	if (room > UINT16_MAX - RTE_PKTMBUF_HEADROOM) {
		snprintf(err, errlen, "frames of %u bytes do not fit an mbuf "
			 "(at most %u)", room,
			 UINT16_MAX - RTE_PKTMBUF_HEADROOM);
		return -1;
	}
	out->frame_room = room;
	out->data_room = (uint16_t)(room + RTE_PKTMBUF_HEADROOM);
	out->rx_desc = desc_in_limits(want->rx_desc, &info->rx_desc_lim);
	out->tx_desc = desc_in_limits(want->tx_desc, &info->tx_desc_lim);
	need = (uint32_t)want->nb_rxq * out->rx_desc +
		(uint32_t)want->nb_txq * out->tx_desc +
		want->lcores * want->cache;
	out->mbufs = RTE_MAX(want->mbufs, need);
	return 0;
}
