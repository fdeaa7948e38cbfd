/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How big a port's mbufs, rings and pool must be, from what the PMD
 * reports in rte_eth_dev_info.  Pure arithmetic over those fields (no
 * rte_eth_* call), so that it can be tested against every driver's limits.
 */
#ifndef RXD_PORT_SIZE_H
#define RXD_PORT_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ethdev.h>

/** Bytes rxd adds to the MTU for a frame: Ethernet, two VLAN tags, CRC. */
#define RXD_PORT_FRAME_OVERHEAD (RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN + \
				 RTE_ETHER_CRC_LEN)

/** What rxd asks of a port. */
struct rxd_port_want {
	uint32_t mtu;          /**< Ethernet MTU */
	uint32_t min_frame;    /**< a driver's own frame size (a devarg), or 0 */
	uint16_t rx_desc, tx_desc;  /**< descriptors per queue, as configured */
	uint16_t nb_rxq, nb_txq;
	uint32_t mbufs;        /**< pool size, as configured */
	uint32_t cache;        /**< per-lcore cache of the pool */
	uint32_t lcores;       /**< lcores that may hold cached mbufs */
};

/** What the port gets. */
struct rxd_port_size {
	uint32_t frame_room;   /**< bytes of data an mbuf holds after headroom */
	uint16_t data_room;    /**< rte_pktmbuf_pool_create()'s data_room_size */
	uint16_t rx_desc, tx_desc;  /**< within the PMD's descriptor limits */
	uint32_t mbufs;        /**< at least what the rings and caches hold */
};

/**
 * Size a port for the PMD described by info:
 * - the mbuf's data room holds the largest frame of the MTU with the
 *   PMD's own per-frame overhead (max_rx_pktlen - max_mtu, up to 64 bytes:
 *   virtio counts its virtio-net header there) or rxd's, whichever is
 *   larger, is at
 *   least min_rx_bufsize and RTE_MBUF_DEFAULT_DATAROOM, plus the headroom;
 * - descriptors are rounded up to nb_align and kept in [nb_min, nb_max];
 * - the pool holds every receive descriptor's mbuf, a full transmit ring
 *   per queue and every lcore's cache, with the configured size as floor.
 *
 * @return 0, or -1 with a one-line message in err.
 */
int rxd_port_size(const struct rte_eth_dev_info *info,
		  const struct rxd_port_want *want, struct rxd_port_size *out,
		  char *err, size_t errlen);

#endif /* RXD_PORT_SIZE_H */
