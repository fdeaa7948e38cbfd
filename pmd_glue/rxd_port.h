/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One DPDK port as rxd uses it: configuration, queues, mbuf pool, offloads,
 * link state, and the rx/tx burst wrappers that apply fault injection and
 * capture.  This is the only layer that calls rte_eth_*.
 */
#ifndef RXD_PORT_H
#define RXD_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

struct rte_device;

#include "rxd_capture.h"
#include "rxd_config.h"
#include "rxd_fault.h"
#include "rxd_steer.h"
#include "rxd/rxd_ring_pair.h"

/** Queues of a port: N x N for lanes steering with N = RXD_MAX_SHARDS. */
#define RXD_PORT_MAX_QUEUES (RXD_MAX_SHARDS * RXD_MAX_SHARDS)

/** Offloads rxd found on the port and uses. */
enum rxd_port_offload {
	RXD_OFF_RX_RSS = 1u << 0,
	RXD_OFF_RX_IPV4_CKSUM = 1u << 1,
	RXD_OFF_RX_UDP_CKSUM = 1u << 2,
};

/** Frame counters of a port (fault and capture counters are separate). */
struct rxd_port_stats {
	uint64_t rx_pkts, rx_bytes;
	uint64_t tx_pkts, tx_bytes;
	uint64_t tx_full;          /**< frames the PMD would not take */
	uint64_t burst_faults;     /**< bursts ended by rxd_port_guard.c */
};

/** A port brought up by rxd_port_setup(). */
struct rxd_port {
	uint16_t port_id;
	uint16_t index;            /**< rxd's port number (rxdN) */
	int socket;
	char name[64];             /**< DPDK device name */
	char driver[32];
	struct rte_ether_addr mac;
	uint16_t mtu;              /**< Ethernet MTU in use */
	uint32_t max_frame;        /**< largest frame an mbuf holds */
	uint16_t nb_rxq, nb_txq;
	/** Engines the port can be shared by: engines_per_port, or fewer
	 *  when the device has fewer queues. */
	uint16_t shards;
	uint32_t offloads;         /**< enum rxd_port_offload */
	struct rte_mempool *pool;
	bool link_up;
	/** Its bursts may run only while the link is up (as link polls
	 *  last read it): memif (see rxd_port.c). */
	bool burst_needs_link;
	bool stopped;              /**< device stopped between redials */
	bool redial;               /**< a memif client: dials again when down */
	bool guarded;              /**< bursts run in rxd_port_guard_burst() */
	bool dialing;              /**< dialled, link not up since */
	uint64_t redial_at;        /**< timer cycles of the last dial */
	char redial_path[108];     /**< its server's socket file, "" if none */
	uint32_t link_speed;       /**< Mbit/s */
	struct rxd_fault fault_rx, fault_tx;
	/** Taken around the injector when several engines share the port. */
	rte_spinlock_t fault_lock;
	struct rxd_capture *capture;
	struct rxd_steer steer;    /**< frames to their QP's engine */
	/** By queue: the engines sharing a port count apart. */
	struct rxd_port_stats stats[RXD_PORT_MAX_QUEUES];
};

/**
 * Configure and start a DPDK port per conf.  A memif client whose server
 * is not there yet is no failure: it stays stopped and rxd_port_redial()
 * dials until the server comes.
 *
 * @return 0, or -1 with a one-line message in err.
 */
int rxd_port_setup(struct rxd_port *p, uint16_t port_id, uint16_t index,
		   const struct rxd_conf_port *conf, uint32_t mbufs,
		   char *err, size_t errlen);

/**
 * Note whether the port is a memif client whose server may come back
 * (rxd_port_redial() then dials it again); dev is the port's device.
 */
void rxd_port_redial_setup(struct rxd_port *p, const struct rte_device *dev);

/**
 * Called while the link is down: a memif client port dials its server
 * again (stop and start of the device), at most once a second and only
 * while the server's socket file exists.  Other ports: nothing.
 */
void rxd_port_redial(struct rxd_port *p);

/** Stop and close the port, free its pool and held frames. */
void rxd_port_close(struct rxd_port *p);

/**
 * Reset f (the port's fault_rx or fault_tx) and configure it anew, while
 * no engine sharing the port runs the injector.
 */
void rxd_port_fault_set(struct rxd_port *p, struct rxd_fault *f,
			const struct rxd_conf_fault *c, uint64_t seed);

/** Receive a burst: capture, then receive-side faults. */
uint16_t rxd_port_rx(struct rxd_port *p, uint16_t q, struct rte_mbuf **pkts,
		     uint16_t cap);

/**
 * First step of transmitting a burst: capture it, then apply the
 * transmit-side faults.  The frames to send go to out (room for 2n+1:
 * duplicates), in order; @return their number.
 */
uint16_t rxd_port_tx_prepare(struct rxd_port *p, uint16_t q,
			     struct rte_mbuf **pkts, uint16_t n,
			     struct rte_mbuf **out);

/**
 * Hand prepared frames to the PMD.  @return how many it took, from the
 * front; the rest stay the caller's (to retry or rxd_port_tx_drop()).
 */
uint16_t rxd_port_tx_burst(struct rxd_port *p, uint16_t q,
			   struct rte_mbuf **pkts, uint16_t n);

/** Free frames queue q had no room for, counted as tx_full. */
void rxd_port_tx_drop(struct rxd_port *p, uint16_t q, struct rte_mbuf **pkts,
		      uint16_t n);

/** The frame counters of every queue of the port, added up. */
void rxd_port_stats_sum(const struct rxd_port *p, struct rxd_port_stats *sum);

/**
 * Housekeeping for a quiet port: send frames the fault injector held back
 * too long on queue q.
 */
void rxd_port_tick(struct rxd_port *p, uint16_t q, uint64_t now);

/** Re-read the link state; true if it changed. */
bool rxd_port_link_poll(struct rxd_port *p);

/**
 * The rxd_wire_parse() flags a received frame earns from the checksum
 * status its PMD set in ol_flags: the checks the NIC found good are
 * skipped; a bad or unknown status leaves them to software (a zero UDP
 * checksum, which RoCEv2 sends, may read as bad on IPv6).
 */
unsigned int rxd_port_rx_parse_flags(uint64_t ol_flags);

/** Names of the offloads in use, comma separated. */
void rxd_port_offload_str(uint32_t offloads, char *buf, size_t len);

/** DPDK port ids of the available ports, at most max. @return count. */
unsigned int rxd_port_list(uint16_t *ids, unsigned int max);

#endif /* RXD_PORT_H */
