/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port bring-up and the burst wrappers (see rxd_port.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_spinlock.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "rxd_driver.h"
#include "rxd_intr_thread.h"
#include "rxd_port.h"
#include "rxd_port_guard.h"
#include "rxd_port_size.h"

#define PORT_POOL_CACHE 256
#define PORT_FRAME_HDRS (RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN)
#define FAULT_HOLD_US 1000

RTE_LOG_REGISTER(rxd_logtype_port, rxd.port, NOTICE);

/*
 * The offloads rxd uses, enabled where the device has them.  Only receive
 * ones: the engine reads the checksum status a PMD sets on each mbuf
 * (rxd_port_rx_parse_flags()) and skips the checks the NIC made.  None on
 * transmit: the IPv4 header checksum is summed from fields the builder
 * has in registers, RoCEv2's UDP checksum is 0 (IPv4 and, as Soft-RoCE
 * sends it, IPv6: the ICRC covers the datagram), and frames are one
 * segment; turning them on would only choose a slower PMD transmit path.
 */
static const struct {
	uint32_t rxd;
	uint64_t dev_capa;
	const char *name;
} offload_table[] = {
	{ RXD_OFF_RX_IPV4_CKSUM, RTE_ETH_RX_OFFLOAD_IPV4_CKSUM,
		"rx-ipv4-cksum" },
	{ RXD_OFF_RX_UDP_CKSUM, RTE_ETH_RX_OFFLOAD_UDP_CKSUM, "rx-udp-cksum" },
	{ RXD_OFF_RX_RSS, RTE_ETH_RX_OFFLOAD_RSS_HASH, "rx-rss" },
};

#define N_OFFLOADS (sizeof(offload_table) / sizeof(offload_table[0]))

void
rxd_port_offload_str(uint32_t offloads, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < N_OFFLOADS && used < len; i++)
		if (offloads & offload_table[i].rxd)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
				used ? "," : "", offload_table[i].name);
	if (used == 0)
		snprintf(buf, len, "none");
}

/*
 * The offloads RXD_OFFLOADS_OFF names (comma- or space-separated names of
 * offload_table, or "all") into *off: left off on every port, to measure
 * what they bring or to rule them out.  @return 0, or -1 with err saying
 * which name is unknown or that the list is too long.
 */
static int
offloads_off(uint32_t *off, char *err, size_t errlen)
{
	const char *env = getenv("RXD_OFFLOADS_OFF");
	char list[256], *save = NULL, *name;
	size_t i;

	*off = 0;
	if (env == NULL)
		return 0;
	if (strlen(env) >= sizeof(list)) {
		snprintf(err, errlen, "RXD_OFFLOADS_OFF: longer than %zu "
			 "characters", sizeof(list) - 1);
		return -1;
	}
	strcpy(list, env);
	for (name = strtok_r(list, ", ", &save); name != NULL;
	     name = strtok_r(NULL, ", ", &save)) {
		bool all = strcmp(name, "all") == 0, known = all;

		for (i = 0; i < N_OFFLOADS; i++)
			if (all || strcmp(name, offload_table[i].name) == 0) {
				*off |= offload_table[i].rxd;
				known = true;
			}
		if (!known) {
			snprintf(err, errlen, "RXD_OFFLOADS_OFF: unknown "
				 "offload '%s' (names: see doc/configuration.md,"
				 " or all)", name);
			return -1;
		}
	}
	return 0;
}

static int
pick_offloads(struct rxd_port *p, const struct rte_eth_dev_info *info,
	      struct rte_eth_conf *ec, char *err, size_t errlen)
{
	uint32_t off;
	size_t i;

	if (offloads_off(&off, err, errlen) != 0)
		return -1;
	for (i = 0; i < N_OFFLOADS; i++) {
		bool rss = offload_table[i].rxd & RXD_OFF_RX_RSS;

		if (!(info->rx_offload_capa & offload_table[i].dev_capa) ||
		    (rss && p->nb_rxq < 2) || (off & offload_table[i].rxd))
			continue;
		p->offloads |= offload_table[i].rxd;
		ec->rxmode.offloads |= offload_table[i].dev_capa;
	}
	if (p->nb_rxq > 1 && info->flow_type_rss_offloads) {
		ec->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		ec->rx_adv_conf.rss_conf.rss_hf = info->flow_type_rss_offloads &
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP);
	}
	return 0;
}

static int
setup_queues(struct rxd_port *p, const struct rte_eth_dev_info *info,
	     const struct rxd_port_size *size, char *err, size_t errlen)
{
	uint16_t rxd = size->rx_desc, txd = size->tx_desc, q;
	int rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &rxd, &txd);

	for (q = 0; rc == 0 && q < p->nb_rxq; q++)
		rc = rte_eth_rx_queue_setup(p->port_id, q, rxd, p->socket,
					    NULL, p->pool);
	for (q = 0; rc == 0 && q < p->nb_txq; q++)
		rc = rte_eth_tx_queue_setup(p->port_id, q, txd, p->socket,
					    NULL);
	if (rc != 0)
		snprintf(err, errlen, "port %u (%s): queue setup failed: %s "
			 "(%u rx, %u tx descriptors, mbufs of %u bytes)",
			 p->port_id, info->driver_name, rte_strerror(-rc),
			 rxd, txd, size->frame_room);
	return rc;
}

/* The largest MTU the device accepts, as rte_eth_dev_configure() checks. */
static uint32_t
device_max_mtu(const struct rte_eth_dev_info *info)
{
	uint32_t hdrs = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;

	if (info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu)
		hdrs = info->max_rx_pktlen - info->max_mtu;
	return RTE_MIN((uint32_t)info->max_mtu, info->max_rx_pktlen - hdrs);
}

/* A devarg of the port's device as a number; dflt when absent or bad. */
static uint32_t
devarg_u32(const struct rte_eth_dev_info *info, const char *key,
	   uint32_t dflt)
{
	const struct rte_devargs *da = rte_dev_devargs(info->device);
	struct rte_kvargs *kv;
	const char *v;
	uint32_t n = dflt;
	char *end;

	if (da == NULL || da->args == NULL)
		return dflt;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return dflt;
	v = rte_kvargs_get(kv, key);
	if (v != NULL) {
		unsigned long x = strtoul(v, &end, 0);

		if (*end == '\0' && x > 0 && x <= UINT32_MAX)
			n = (uint32_t)x;
	}
	rte_kvargs_free(kv);
	return n;
}

/* What the frame devarg of the port's driver says, or 0 (none). */
static uint32_t
devarg_frame(const struct rte_eth_dev_info *info,
	     const struct rxd_driver_traits *t)
{
	return t->frame_devarg == NULL ? 0 :
		devarg_u32(info, t->frame_devarg, t->frame_dflt);
}

/*
 * The largest MTU rxd may use on the port: the device's, or for a driver
 * with a frame devarg what it lets through.  *hint names the devarg for
 * an error message ("" when none).
 */
static uint32_t
data_path_max_mtu(const struct rte_eth_dev_info *info, char *hint,
		  size_t len)
{
	const struct rxd_driver_traits *t =
		rxd_driver_traits(info->driver_name);
	uint32_t frame = devarg_frame(info, t);

	hint[0] = '\0';
	if (t->frame_devarg == NULL)
		return device_max_mtu(info);
	if (t->frame_kept != 0)
		snprintf(hint, len, " (frames of at most %s=%u bytes, less %u)",
			 t->frame_devarg, frame, t->frame_kept);
	else
		snprintf(hint, len, " (frames of at most %s=%u bytes)",
			 t->frame_devarg, frame);
	frame -= RTE_MIN(frame, t->frame_kept);
	return RTE_MAX(frame, (uint32_t)PORT_FRAME_HDRS) -
		(uint32_t)PORT_FRAME_HDRS;
}

/* The mbuf and ring sizes the port needs (rxd_port_size.h). */
static int
size_port(struct rxd_port *p, const struct rte_eth_dev_info *info,
	  const struct rxd_conf_port *conf, uint32_t mbufs,
	  struct rxd_port_size *size, char *err, size_t errlen)
{
	struct rxd_port_want want = {
		.mtu = p->mtu, .rx_desc = conf->rx_desc,
		.tx_desc = conf->tx_desc, .nb_rxq = p->nb_rxq,
		.nb_txq = p->nb_txq, .mbufs = mbufs, .cache = PORT_POOL_CACHE,
		.lcores = rte_lcore_count(),
	};
	const struct rxd_driver_traits *t =
		rxd_driver_traits(info->driver_name);

	if (t->frame_mbuf_sized)
		want.min_frame = devarg_frame(info, t);
	if (rxd_port_size(info, &want, size, err, errlen) == 0)
		return 0;
	snprintf(err + strlen(err), errlen - strlen(err), " on port %u (%s)",
		 p->port_id, info->driver_name);
	return -1;
}

static int
create_pool(struct rxd_port *p, const struct rxd_port_size *size,
	    char *err, size_t errlen)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "rxd_mp%u", p->port_id);
	p->pool = rte_pktmbuf_pool_create(name, size->mbufs, PORT_POOL_CACHE,
					  0, size->data_room, p->socket);
	if (p->pool == NULL) {
		snprintf(err, errlen, "port %u: cannot create a pool of %u "
			 "mbufs: %s", p->port_id, size->mbufs,
			 rte_strerror(rte_errno));
		return -1;
	}
	p->max_frame = size->frame_room;
	return 0;
}

/*
 * Check the configured MTU and give the device the largest it takes up
 * to it; rxd's own frames follow the configured MTU (p->mtu).
 */
static int
set_mtu(struct rxd_port *p, const struct rte_eth_dev_info *info,
	const struct rxd_conf_port *conf, struct rte_eth_conf *ec,
	char *err, size_t errlen)
{
	uint32_t dev_max = device_max_mtu(info), max;
	char hint[64];

	max = data_path_max_mtu(info, hint, sizeof(hint));
	if (conf->mtu > max || conf->mtu < info->min_mtu) {
		snprintf(err, errlen, "port %u (%s): MTU %u outside the "
			 "device's range %u..%u%s", p->port_id, p->driver,
			 conf->mtu, info->min_mtu, max, hint);
		return -1;
	}
	ec->rxmode.mtu = RTE_MIN(conf->mtu, dev_max);
	if (conf->mtu > dev_max)
		rte_log(RTE_LOG_NOTICE, rxd_logtype_port,
			"rxd: port %u (%s): MTU %u on the data path, %u on the "
			"device (the most it reports)%s\n", p->port_id,
			p->driver, conf->mtu, dev_max, hint);
	return 0;
}

/* Queues to use: as configured, at least 1, at most what both allow. */
static uint16_t
queues(uint16_t want, uint16_t dev_max)
{
	uint16_t n = want ? want : 1;

	n = RTE_MIN(n, dev_max);
	return RTE_MIN(n, (uint16_t)RXD_PORT_MAX_QUEUES);
}

static int
configure(struct rxd_port *p, const struct rte_eth_dev_info *info,
	  const struct rxd_conf_port *conf, const struct rxd_port_size *size,
	  char *err, size_t errlen)
{
	struct rte_eth_conf ec;
	int rc;

	memset(&ec, 0, sizeof(ec));
	if (pick_offloads(p, info, &ec, err, errlen) != 0 ||
	    set_mtu(p, info, conf, &ec, err, errlen) != 0)
		return -1;
	rxd_steer_configure(&p->steer, info, &ec);
	rc = rte_eth_dev_configure(p->port_id, p->nb_rxq, p->nb_txq, &ec);
	if (rc != 0) {
		snprintf(err, errlen, "port %u (%s): configure failed: %s",
			 p->port_id, p->driver, rte_strerror(-rc));
		return -1;
	}
	return setup_queues(p, info, size, err, errlen);
}

/*
 * Each engine of a port has a receive and a transmit queue of its own:
 * a device with fewer queues than engines_per_port gets fewer engines.
 */
static void
pick_shards(struct rxd_port *p, uint16_t want)
{
	uint16_t n = want ? want : 1;
	uint16_t q = RTE_MIN(p->nb_rxq, p->nb_txq);

	p->shards = RTE_MIN(n, q);
	if (p->shards < n)
		rte_log(RTE_LOG_WARNING, rxd_logtype_port,
			"rxd: port %u (%s): engines_per_port %u but the device "
			"has %u rx / %u tx queue(s): %u engine(s) serve it\n",
			p->port_id, p->driver, n, p->nb_rxq, p->nb_txq,
			p->shards);
}


/*
 * A port whose bursts may touch unmapped memory (burst_needs_link: memif)
 * runs them guarded (rxd_port_guard.c): its peer's disconnect unmaps the
 * rings under a burst already running.  Without the guard's handlers the
 * port still works, as before.
 */
static void
guard_bursts(struct rxd_port *p)
{
	p->guarded = p->burst_needs_link;
	if (p->guarded && rxd_port_guard_install() != 0) {
		rte_log(RTE_LOG_WARNING, rxd_logtype_port, "rxd: port %u: "
			"no fault handler (%s): a memif peer leaving mid-burst "
			"may crash this process\n", p->port_id, strerror(errno));
		p->guarded = false;
	}
}

/*
 * Device info, driver name and queue counts of the port: a queue pair per
 * engine, or with lanes steering N per engine (rxd_steer.h).
 */
static int
read_device(struct rxd_port *p, const struct rxd_conf_port *conf,
	    struct rte_eth_dev_info *info, char *err, size_t errlen)
{
	uint16_t n = (uint16_t)conf->engines_per_port, want;
	int rc = rte_eth_dev_info_get(p->port_id, info);

	if (rc != 0) {
		snprintf(err, errlen, "port %u: no device info: %s",
			 p->port_id, rte_strerror(-rc));
		return -1;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", info->driver_name);
	rxd_port_redial_setup(p, info->device);
	p->burst_needs_link = rxd_driver_traits(p->driver)->burst_needs_link;
	guard_bursts(p);
	if (rxd_steer_init(&p->steer, info, n, queues(UINT16_MAX,
			   RTE_MIN(info->max_rx_queues, info->max_tx_queues)),
			   err, errlen) != 0)
		return -1;
	want = (uint16_t)(n * p->steer.lanes);
	p->nb_rxq = queues(RTE_MAX(conf->rx_queues, want),
			   info->max_rx_queues);
	p->nb_txq = queues(RTE_MAX(conf->tx_queues, want),
			   info->max_tx_queues);
	pick_shards(p, n);
	return 0;
}

/*
 * Read the port's MAC; a port without one (net_ring) gets a random locally
 * administered address, since peers cannot answer ARP to 00:00:00:00:00:00.
 * A PMD that cannot store it (net_ring) does not filter by MAC either, so
 * rxd then uses the address on its own.
 */
static int
set_mac(struct rxd_port *p, char *err, size_t errlen)
{
	int rc;

	rte_eth_macaddr_get(p->port_id, &p->mac);
	if (!rte_is_zero_ether_addr(&p->mac))
		return 0;
	rte_eth_random_addr(p->mac.addr_bytes);
	rc = rte_eth_dev_default_mac_addr_set(p->port_id, &p->mac);
	if (rc != 0 && rc != -ENOTSUP) {
		snprintf(err, errlen, "port %u (%s): has no MAC and cannot "
			 "take one: %s", p->port_id, p->driver,
			 rte_strerror(-rc));
		return -1;
	}
	return 0;
}

int
rxd_port_setup(struct rxd_port *p, uint16_t port_id, uint16_t index,
	       const struct rxd_conf_port *conf, uint32_t mbufs,
	       char *err, size_t errlen)
{
	struct rte_eth_dev_info info;
	struct rxd_port_size size;
	int rc;

	memset(p, 0, sizeof(*p));
	rte_spinlock_init(&p->fault_lock);
	p->port_id = port_id;
	p->index = index;
	p->socket = rte_eth_dev_socket_id(port_id);
	if (p->socket < 0)
		p->socket = (int)rte_socket_id();
	p->mtu = conf->mtu;
	rte_eth_dev_get_name_by_port(port_id, p->name);
	if (read_device(p, conf, &info, err, errlen) != 0 ||
	    size_port(p, &info, conf, mbufs, &size, err, errlen) != 0 ||
	    create_pool(p, &size, err, errlen) != 0)
		return -1;
	if (configure(p, &info, conf, &size, err, errlen) != 0)
		goto fail;
	rc = rte_eth_dev_start(port_id);
	p->stopped = rc != 0;
	if (rc != 0 && !p->redial) {
		snprintf(err, errlen, "port %u (%s): start failed: %s",
			 port_id, p->driver, rte_strerror(-rc));
		goto fail;
	}
	/* a memif client still dialing (stopped) can have lanes, no more */
	rxd_steer_start(&p->steer, port_id, p->shards);
	/* ND needs multicast; not every PMD can filter, so failure is fine */
	rte_eth_allmulticast_enable(port_id);
	if (set_mac(p, err, errlen) != 0)
		goto fail;
	rxd_fault_configure(&p->fault_rx, &conf->fault_rx, conf->fault_seed);
	rxd_fault_configure(&p->fault_tx, &conf->fault_tx,
			    conf->fault_seed ^ 0x5bd1e995u);
	rxd_port_link_poll(p);
	return 0;
fail:
	rte_mempool_free(p->pool);
	p->pool = NULL;
	return -1;
}

static void
stop_and_close(void *arg)
{
	const struct rxd_port *p = arg;

	rte_eth_dev_stop(p->port_id);
	rte_eth_dev_close(p->port_id);
}

/*
 * The port is stopped and closed on EAL's interrupt thread, the one where
 * memif handles its peer's disconnect: a peer leaving while rxd closes
 * (both sides of a test exit together) had both threads in memif's
 * disconnect at once, which frees the regions and the control channel
 * twice, and the close could still leave that thread work to do while
 * rte_eal_cleanup() unmaps the memory it works on.  On one thread the
 * two run one after the other, and the close is over when this returns.
 */
void
rxd_port_close(struct rxd_port *p)
{
	if (p->pool == NULL)
		return;
	rxd_fault_reset(&p->fault_rx);
	rxd_fault_reset(&p->fault_tx);
	if (rxd_intr_thread_run(stop_and_close, p) != 0)
		stop_and_close(p);
	rte_mempool_free(p->pool);
	p->pool = NULL;
}

/*
 * The injector's state is the port's: the engines sharing a port take
 * turns on it (faults are a test aid; a port with one engine takes no
 * lock).
 */
static void
fault_lock(struct rxd_port *p)
{
	if (p->shards > 1)
		rte_spinlock_lock(&p->fault_lock);
}

static void
fault_unlock(struct rxd_port *p)
{
	if (p->shards > 1)
		rte_spinlock_unlock(&p->fault_lock);
}

void
rxd_port_stats_sum(const struct rxd_port *p, struct rxd_port_stats *sum)
{
	uint16_t q;

	memset(sum, 0, sizeof(*sum));
	for (q = 0; q < RXD_PORT_MAX_QUEUES; q++) {
		sum->rx_pkts += p->stats[q].rx_pkts;
		sum->rx_bytes += p->stats[q].rx_bytes;
		sum->tx_pkts += p->stats[q].tx_pkts;
		sum->tx_bytes += p->stats[q].tx_bytes;
		sum->tx_full += p->stats[q].tx_full;
		sum->burst_faults += p->stats[q].burst_faults;
	}
}

/*
 * No burst now: the device is stopped, or its bursts need the link and
 * it is down.  While link polls last read it down, it is read again here
 * (memif's is a load): waiting for the next poll would leave a peer that
 * just connected unanswered for up to 100 ms.
 */
static bool
no_burst(const struct rxd_port *p)
{
	struct rte_eth_link link;

	if (p->stopped)
		return true;
	if (!p->burst_needs_link ||
	    __atomic_load_n(&p->link_up, __ATOMIC_ACQUIRE))
		return false;
	return rte_eth_link_get_nowait(p->port_id, &link) != 0 ||
		link.link_status != RTE_ETH_LINK_UP;
}

void
rxd_port_fault_set(struct rxd_port *p, struct rxd_fault *f,
		   const struct rxd_conf_fault *c, uint64_t seed)
{
	fault_lock(p);
	rxd_fault_reset(f);
	rxd_fault_configure(f, c, seed);
	fault_unlock(p);
}

static uint16_t
rx_burst(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_rx_burst(port, q, pkts, n);
}

static uint16_t
tx_burst(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	return rte_eth_tx_burst(port, q, pkts, n);
}

/*
 * A burst on a guarded port.  After a fault the mbufs are the PMD's
 * (memif frees each frame it has copied): counted as taken, not freed
 * again; what memif had not freed yet is lost with its regions.
 */
static uint16_t
guarded(struct rxd_port *p, rxd_port_burst_fn fn, uint16_t q,
	struct rte_mbuf **pkts, uint16_t n)
{
	int faulted = 0;
	uint16_t done = rxd_port_guard_burst(fn, p->port_id, q, pkts, n,
					     &faulted);

	if (!faulted)
		return done;
	p->stats[q].burst_faults++;
	rte_log(RTE_LOG_NOTICE, rxd_logtype_port, "rxd: port %u queue %u: "
		"%s burst ended by a fault: the peer's regions were unmapped "
		"(link down)\n", p->port_id, q, fn == tx_burst ? "tx" : "rx");
	return fn == tx_burst ? n : 0;
}

uint16_t
rxd_port_rx(struct rxd_port *p, uint16_t q, struct rte_mbuf **pkts,
	    uint16_t cap)
{
	uint16_t n, i;

	if (no_burst(p))
		return 0;
	/* leave room for duplicates the injector may add */
	n = p->fault_rx.active ? cap / 2 : cap;
	n = p->guarded ? guarded(p, rx_burst, q, pkts, n)
		       : rte_eth_rx_burst(p->port_id, q, pkts, n);
	for (i = 0; i < n; i++)
		p->stats[q].rx_bytes += rte_pktmbuf_pkt_len(pkts[i]);
	p->stats[q].rx_pkts += n;
	if (p->capture != NULL && n > 0)
		rxd_capture_frames(p->capture, p->port_id, q, pkts, n, false);
	if (!p->fault_rx.active)
		return n;
	fault_lock(p);
	n = rxd_fault_apply(&p->fault_rx, pkts, n, cap, p->pool);
	n = (uint16_t)(n + rxd_fault_release(&p->fault_rx, pkts + n,
		(uint16_t)(cap - n), rte_rdtsc(),
		rte_get_tsc_hz() / 1000000 * FAULT_HOLD_US));
	fault_unlock(p);
	return n;
}

uint16_t
rxd_port_tx_burst(struct rxd_port *p, uint16_t q, struct rte_mbuf **pkts,
		  uint16_t n)
{
	uint64_t bytes = 0;
	uint16_t sent = 0, i;

	/* counted before: a sent mbuf is the PMD's (memif frees it at once) */
	for (i = 0; i < n; i++)
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
	for (i = 0; i < 2 && sent < n && !no_burst(p); i++)
		sent += p->guarded
			? guarded(p, tx_burst, q, pkts + sent, n - sent)
			: rte_eth_tx_burst(p->port_id, q, pkts + sent,
					   (uint16_t)(n - sent));
	for (i = sent; i < n; i++)
		bytes -= rte_pktmbuf_pkt_len(pkts[i]);
	p->stats[q].tx_pkts += sent;
	p->stats[q].tx_bytes += bytes;
	return sent;
}

void
rxd_port_tx_drop(struct rxd_port *p, uint16_t q, struct rte_mbuf **pkts,
		 uint16_t n)
{
	if (n == 0)
		return;
	p->stats[q].tx_full += n;
	rte_pktmbuf_free_bulk(pkts, n);
}

uint16_t
rxd_port_tx_prepare(struct rxd_port *p, uint16_t q, struct rte_mbuf **pkts,
		    uint16_t n, struct rte_mbuf **out)
{
	if (n == 0)
		return 0;
	if (p->capture != NULL)
		rxd_capture_frames(p->capture, p->port_id, q, pkts, n, true);
	memcpy(out, pkts, n * sizeof(*pkts));
	if (!p->fault_tx.active)
		return n;
	fault_lock(p);
	n = rxd_fault_apply(&p->fault_tx, out, n, (uint16_t)(2 * n + 1),
			    p->pool);
	fault_unlock(p);
	return n;
}

/* Send what the PMD takes now; free and count the rest. */
static void
tx_or_drop(struct rxd_port *p, uint16_t q, struct rte_mbuf **pkts,
	   uint16_t n)
{
	uint16_t sent = rxd_port_tx_burst(p, q, pkts, n);

	rxd_port_tx_drop(p, q, pkts + sent, (uint16_t)(n - sent));
}

void
rxd_port_tick(struct rxd_port *p, uint16_t q, uint64_t now)
{
	struct rte_mbuf *held[RXD_FAULT_MAX_HELD];
	uint64_t max = rte_get_tsc_hz() / 1000000 * FAULT_HOLD_US;
	uint16_t n;

	fault_lock(p);
	n = rxd_fault_release(&p->fault_tx, held, RXD_FAULT_MAX_HELD, now, max);
	fault_unlock(p);
	tx_or_drop(p, q, held, n);
}

bool
rxd_port_link_poll(struct rxd_port *p)
{
	struct rte_eth_link link;
	bool up;

	if (rte_eth_link_get_nowait(p->port_id, &link) != 0)
		return false;
	up = link.link_status == RTE_ETH_LINK_UP;
	p->link_speed = link.link_speed;
	if (up == p->link_up)
		return false;
	__atomic_store_n(&p->link_up, up, __ATOMIC_RELEASE);
	return true;
}

unsigned int
rxd_port_list(uint16_t *ids, unsigned int max)
{
	unsigned int n = 0;
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		if (n < max)
			ids[n++] = pid;
	}
	return n;
}

/* Ring q of the frames port name sends on its queue q. */
static struct rte_ring *
pair_ring(const char *name, unsigned int q, int socket)
{
	char rname[RTE_RING_NAMESIZE];

	if (q == 0)
		snprintf(rname, sizeof(rname), "%s_tx", name);
	else
		snprintf(rname, sizeof(rname), "%s_tx%u", name, q);
	return rte_ring_create(rname, 4096, socket,
			       RING_F_SP_ENQ | RING_F_SC_DEQ);
}

int
rxd_port_ring_pair(const char *name_a, const char *name_b, int socket,
		   uint16_t *port_a, uint16_t *port_b)
{
	struct rte_ring *ab[RXD_RING_PAIR_QUEUES], *ba[RXD_RING_PAIR_QUEUES];
	unsigned int q;
	int a, b;

	for (q = 0; q < RXD_RING_PAIR_QUEUES; q++) {
		ab[q] = pair_ring(name_a, q, socket);
		ba[q] = pair_ring(name_b, q, socket);
		if (ab[q] == NULL || ba[q] == NULL)
			return -1;
	}
	a = rte_eth_from_rings(name_a, ba, RXD_RING_PAIR_QUEUES, ab,
			       RXD_RING_PAIR_QUEUES, (unsigned int)socket);
	b = rte_eth_from_rings(name_b, ab, RXD_RING_PAIR_QUEUES, ba,
			       RXD_RING_PAIR_QUEUES, (unsigned int)socket);
	if (a < 0 || b < 0)
		return -1;
	*port_a = (uint16_t)a;
	*port_b = (uint16_t)b;
	return 0;
}
