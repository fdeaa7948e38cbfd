/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-memif-raw's port: the first DPDK port, one rx and one tx queue, an
 * mbuf pool whose data room is --seg, the link wait and the close.
 */
#include <stdio.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "memif_raw.h"

#define POOL_MBUFS 4095
#define POOL_CACHE 256
#define RING_DESC 1024

static int
fail(const struct raw_port *p, const char *what, int rc)
{
	fprintf(stderr, "rxd-memif-raw: port %u: %s failed: %s\n", p->id, what,
		rte_strerror(rc < 0 ? -rc : rc));
	return -1;
}

static int
configure(struct raw_port *p, const struct raw_opts *o)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	int rc, sock = (int)rte_eth_dev_socket_id(p->id);

	rc = rte_eth_dev_info_get(p->id, &info);
	if (rc != 0)
		return fail(p, "info", rc);
	if (o->size > p->seg) {
		if (!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)) {
			fprintf(stderr, "rxd-memif-raw: %s cannot send mbuf "
				"chains: give --seg %u or more\n",
				info.driver_name, o->size);
			return -1;
		}
		conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	}
	rc = rte_eth_dev_configure(p->id, 1, 1, &conf);
	if (rc != 0)
		return fail(p, "configure", rc);
	rc = rte_eth_rx_queue_setup(p->id, 0, RING_DESC,
		(unsigned int)(sock < 0 ? 0 : sock), NULL, p->pool);
	if (rc != 0)
		return fail(p, "rx queue setup", rc);
	rc = rte_eth_tx_queue_setup(p->id, 0, RING_DESC,
		(unsigned int)(sock < 0 ? 0 : sock), NULL);
	if (rc != 0)
		return fail(p, "tx queue setup", rc);
	rc = rte_eth_dev_start(p->id);
	return rc != 0 ? fail(p, "start", rc) : 0;
}

int
raw_port_open(struct raw_port *p, const struct raw_opts *o)
{
	uint16_t id = (uint16_t)rte_eth_find_next(0);

	p->pool = NULL;
	p->seg = o->seg;
	if (id >= RTE_MAX_ETHPORTS) {
		fprintf(stderr, "rxd-memif-raw: no DPDK port: give one on the "
			"EAL command line (--vdev=net_memif0,...)\n");
		return -1;
	}
	p->id = id;
	p->pool = rte_pktmbuf_pool_create("memif_raw", POOL_MBUFS, POOL_CACHE,
		0, (uint16_t)(o->seg + RTE_PKTMBUF_HEADROOM),
		(int)rte_socket_id());
	if (p->pool == NULL) {
		fprintf(stderr, "rxd-memif-raw: mbuf pool of %u x %u bytes: "
			"%s (give EAL more memory, -m)\n", POOL_MBUFS,
			o->seg, rte_strerror(rte_errno));
		return -1;
	}
	if (configure(p, o) < 0)
		return -1;
	return rte_eth_macaddr_get(p->id, &p->mac) == 0 ? 0 :
		fail(p, "MAC address", EIO);
}

/* Wait until the link is up (or down): a memif link is up only while
 * both sides are there. */
int
raw_port_wait_link(const struct raw_port *p, double seconds, bool up)
{
	uint64_t end = rte_get_tsc_cycles() +
		(uint64_t)(seconds * (double)rte_get_tsc_hz());
	struct rte_eth_link link;

	do {
		if (rte_eth_link_get_nowait(p->id, &link) == 0 &&
		    (link.link_status == RTE_ETH_LINK_UP) == up)
			return 0;
		usleep(1000);
	} while (rte_get_tsc_cycles() < end);
	return -1;
}

void
raw_port_close(struct raw_port *p)
{
	if (rte_eth_dev_count_avail() != 0 && p->pool != NULL) {
		rte_eth_dev_stop(p->id);
		rte_eth_dev_close(p->id);
		raw_intr_sync();
	}
	rte_mempool_free(p->pool);
	p->pool = NULL;
}
