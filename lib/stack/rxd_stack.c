/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The running stack: brings up every DPDK port with its host state, places
 * ports on engines, launches the engines on their lcores, and implements
 * the control API of include/rxd/rxd.h by running commands on the engine
 * that owns the port.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "rxd_observe.h"
#include "rxd_stack.h"

#define DRAIN_MS 20              /* longest drain of queued frames at stop */
#define DRAIN_QUIET_MS 5         /* ... and how long it waits with nothing to do */

RTE_LOG_REGISTER(rxd_logtype_stack, rxd.stack, NOTICE);

struct rxd_stack rxd_stk;



static __thread char last_error[512];

int
rxd_stack_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	rte_log(RTE_LOG_DEBUG, rxd_logtype_stack, "rxd: %s\n", last_error);
	errno = err;
	return -1;
}

const char *
rxd_last_error(void)
{
	return last_error;
}

const struct rxd_conf *
rxd_config(void)
{
	return &rxd_stk.conf;
}

bool
rxd_running(void)
{
	return rxd_stk.running;
}

unsigned int
rxd_port_count(void)
{
	return rxd_stk.running ? rxd_stk.n_ports : 0;
}

/* Engine lcores: the configured list, else every worker lcore. */
static unsigned int
pick_lcores(const struct rxd_conf *conf, unsigned int *lcores)
{
	unsigned int n = 0, i, lc;

	if (conf->n_engine_lcores > 0) {
		for (i = 0; i < conf->n_engine_lcores; i++)
			lcores[n++] = conf->engine_lcores[i];
		return n;
	}
	RTE_LCORE_FOREACH_WORKER(lc) {
		if (n < RXD_MAX_ENGINES)
			lcores[n++] = lc;
	}
	return n;
}

static int
check_lcores(const unsigned int *lcores, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!rte_lcore_is_enabled(lcores[i]) ||
		    lcores[i] == rte_get_main_lcore())
			return rxd_stack_fail(EINVAL, "engine lcore %u is not an EAL "
				    "worker lcore (see EAL -l)", lcores[i]);
		if (rte_eal_get_lcore_state(lcores[i]) != WAIT)
			return rxd_stack_fail(EBUSY, "engine lcore %u is busy",
				    lcores[i]);
	}
	return 0;
}

static int
setup_engines(const struct rxd_conf *conf)
{
	unsigned int lcores[RXD_MAX_ENGINES], i, n;

	n = pick_lcores(conf, lcores);
	if (check_lcores(lcores, n) != 0)
		return -1;
	if (n == 0) { /* inline progress: the caller's thread runs it */
		lcores[0] = rte_lcore_id();
		n = 1;
	}
	for (i = 0; i < n; i++)
		if (rxd_engine_init(&rxd_stk.engines[i], i, lcores[i], conf) != 0)
			return rxd_stack_fail(ENOMEM, "cannot create engine %u's ring", i);
	rxd_stk.n_engines = n;
	return 0;
}

static rxd_port_event_fn port_event_fn;

/* A port's link changed (an engine calls, rxd_engine_host.port_event). */
static void
port_event(unsigned int port, bool up)
{
	rxd_port_event_fn fn = __atomic_load_n(&port_event_fn,
					       __ATOMIC_ACQUIRE);

	if (fn != NULL)
		fn(port, up);
}

/*
 * Port i's shard k goes to engine (i + k) modulo the engines: shard 0
 * where the port went before sharding, the others on distinct engines.
 * A port has no more shards than there are engines.
 */
static int
share_port(struct rxd_port *p)
{
	unsigned int k, j, n = RTE_MIN(p->shards, rxd_stk.n_engines);
	struct rxd_engine_port *first = NULL;
	const struct rxd_engine_host host = {
		.qp_table = rxd_stk.qp_table[p->index],
		.qp_table_len = rxd_stk.qp_table_len,
		.port_event = port_event,
	};

	if (n < p->shards)
		rte_log(RTE_LOG_WARNING, rxd_logtype_stack,
			"rxd: port %u: engines_per_port %u but %u engine "
			"lcore(s): %u engine(s) serve it\n", p->index,
			p->shards, rxd_stk.n_engines, n);
	for (k = 0; k < n; k++) {
		struct rxd_engine *e =
			&rxd_stk.engines[(p->index + k) % rxd_stk.n_engines];
		int rc = rxd_engine_add_port(e, p, &rxd_stk.net[p->index],
					     (uint16_t)k, (uint16_t)n, first,
					     &host);

		if (rc == -ENOSPC)
			return rxd_stack_fail(ENOSPC, "engine %u serves too "
					      "many ports", e->id);
		if (rc != 0)
			return rxd_stack_fail(-rc, "no memory for engine %u's "
					      "transmit lanes", e->id);
		if (first == NULL)
			first = &e->ports[e->n_ports - 1];
		rxd_stk.port_shard[p->index][k] = e;
	}
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			if (rxd_handoff_link(rxd_stk.port_shard[p->index][k],
					     rxd_stk.port_shard[p->index][j]))
				return rxd_stack_fail(ENOMEM, "no hand-off "
						      "ring for port %u",
						      p->index);
	rxd_stk.n_shards[p->index] = n;
	rxd_stk.port_engine[p->index] = rxd_stk.port_shard[p->index][0];
	return 0;
}

/* A port's QP table, on its socket, before its engines are lent it. */
static int
alloc_qp_table(const struct rxd_port *p, const struct rxd_conf *conf)
{
	rxd_stk.qp_table[p->index] = rte_zmalloc_socket("rxd_qps",
		rxd_stk.qp_table_len * sizeof(struct rxd_qp_core *), 0,
		p->socket);
	if (rxd_stk.qp_table[p->index] == NULL)
		return rxd_stack_fail(ENOMEM, "no memory for %u QPs",
				      conf->max_qp);
	return 0;
}

static int
setup_ports(const struct rxd_conf *conf)
{
	uint16_t ids[RXD_MAX_PORTS];
	unsigned int i, n = rxd_port_list(ids, RXD_MAX_PORTS);
	char err[256];

	rxd_stk.qp_table_len = RXD_QPN_FIRST + conf->max_qp;
	for (i = 0; i < n; i++) {
		struct rxd_port *p = &rxd_stk.ports[i];

		if (rxd_port_setup(p, ids[i], (uint16_t)i, &conf->port[i],
				   conf->mbufs, err, sizeof(err)) != 0)
			return rxd_stack_fail(EIO, "%s", err);
		rxd_stk.n_ports = i + 1;
		rxd_net_port_init(&rxd_stk.net[p->index], &conf->port[p->index],
				  &p->mac, p->pool, NULL, NULL);
		if (alloc_qp_table(p, conf) != 0 || share_port(p) != 0)
			return -1;
	}
	if (rxd_stk.n_ports == 0)
		return rxd_stack_fail(ENODEV, "no DPDK port: give one on the "
			"EAL command line (--vdev=net_memif0,... or -a PCI)");
	return 0;
}

static int
open_captures(const struct rxd_conf *conf)
{
	unsigned int i;

	for (i = 0; i < rxd_stk.n_ports; i++)
		if (conf->port[i].capture[0] != '\0' &&
		    rxd_capture_start(i, conf->port[i].capture) != 0)
			return -1;
	return 0;
}

static int
announce(struct rxd_engine *e, void *arg)
{
	(void)e;
	rxd_net_announce(arg);
	return 0;
}

static void
launch(void)
{
	unsigned int i;

	for (i = 0; i < rxd_stk.n_engines; i++) {
		struct rxd_engine *e = &rxd_stk.engines[i];

		if (e->lcore == rte_lcore_id())
			continue;
		rte_eal_remote_launch(rxd_engine_main, e, e->lcore);
		rxd_stk.launched[i] = true;
		while (!__atomic_load_n(&e->running, __ATOMIC_ACQUIRE))
			rte_pause();
	}
	for (i = 0; i < rxd_stk.n_ports; i++)
		rxd_engine_call(rxd_stk.port_engine[i], announce, &rxd_stk.net[i]);
}

int
rxd_start_conf(const struct rxd_conf *conf)
{
	char err[256];
	int rc;

	if (rxd_stk.running)
		return rxd_stack_fail(EALREADY, "rxd is already running");
	if (rxd_conf_validate(conf, err, sizeof(err)) != 0)
		return rxd_stack_fail(EINVAL, "%s", err);
	memset(&rxd_stk, 0, sizeof(rxd_stk));
	rxd_stk.conf = *conf;
	if (rte_log_get_global_level() < conf->log_level)
		rte_log_set_global_level(conf->log_level);
	rte_log_set_level_pattern("rxd.*", conf->log_level);
	if (setup_engines(conf) != 0 || setup_ports(conf) != 0) {
		rxd_stop();
		return -1;
	}
	rxd_stk.running = true;
	if (open_captures(conf) != 0) {
		rxd_stop();
		return -1;
	}
	launch();
	rc = rxd_stack_inline_start();
	if (rc != 0) {
		rxd_stop();
		return rxd_stack_fail(rc, "cannot start the inline progress "
				      "thread: %s", strerror(rc));
	}
	rxd_pdump_open();
	rxd_telemetry_open();
	rte_log(RTE_LOG_INFO, rxd_logtype_stack,
		"rxd: %u port(s), %u engine(s)\n", rxd_stk.n_ports, rxd_stk.n_engines);
	return 0;
}

int
rxd_start(int *argc, char **argv)
{
	struct rxd_conf conf;
	char err[RXD_CONF_ERRLEN];

	if (rxd_conf_load(&conf, argc, argv, err, sizeof(err)) != 0)
		return rxd_stack_fail(EINVAL, "%s", err);
	return rxd_start_conf(&conf);
}

/* True while some port's link is up (as the engines last read it). */
static bool
any_link_up(void)
{
	unsigned int i;

	for (i = 0; i < rxd_stk.n_ports; i++)
		if (rxd_stk.ports[i].link_up)
			return true;
	return false;
}

/*
 * Before the engines stop, send what programs queued: a program's last
 * posts (rdma_cm's DREQ, posted by rdma_disconnect() right before exit)
 * must reach the wire, as a NIC's would.  Two barriers give launched
 * engines two passes.  Inline engines run until DRAIN_QUIET_MS pass with
 * nothing to do, while a link is up (at most DRAIN_MS): a frame handed to
 * memif has left only once the peer has read it from the shared ring,
 * and a peer that sees the link go down first never does (rping's server
 * then missed the DREQ, about 1 run in 50).  Not while the link is down:
 * a memif peer that disconnects unmaps the ring under a polling thread.
 */
static void
drain(void)
{
	uint64_t ms = rte_get_timer_hz() / 1000, now = rte_get_timer_cycles();
	uint64_t end = now + ms * DRAIN_MS, quiet = now + ms * DRAIN_QUIET_MS;

	if (!rxd_stk.running)
		return;
	rxd_sync_engines();
	rxd_sync_engines();
	while (rxd_inline_progress() && any_link_up() &&
	       (now = rte_get_timer_cycles()) < end && now < quiet) {
		if (rxd_poll() != 0)
			quiet = now + ms * DRAIN_QUIET_MS;
		else
			rte_delay_us_sleep(100);
	}
}

void
rxd_stop(void)
{
	unsigned int i;

	rxd_telemetry_close();
	rxd_pdump_close();
	rxd_inline_stop();
	drain();
	for (i = 0; i < rxd_stk.n_engines; i++) {
		if (!rxd_stk.launched[i])
			continue;
		rxd_engine_stop(&rxd_stk.engines[i]);
		rte_eal_wait_lcore(rxd_stk.engines[i].lcore);
	}
	rxd_stack_report();
	for (i = 0; i < rxd_stk.n_engines; i++)   /* frees frames: before pools */
		rxd_engine_fini(&rxd_stk.engines[i]);
	for (i = 0; i < rxd_stk.n_ports; i++) {
		rxd_capture_close(rxd_stk.ports[i].capture);
		rxd_stk.ports[i].capture = NULL;
		rxd_net_port_fini(&rxd_stk.net[i]);
		rxd_port_close(&rxd_stk.ports[i]);
		rte_free(rxd_stk.qp_table[i]);
	}
	memset(&rxd_stk, 0, sizeof(rxd_stk));
}

static int
barrier_cmd(struct rxd_engine *e, void *arg)
{
	(void)e;
	(void)arg;
	return 0;
}

void
rxd_sync_engines(void)
{
	unsigned int i;

	for (i = 0; i < rxd_stk.n_engines; i++)
		rxd_engine_call(&rxd_stk.engines[i], barrier_cmd, NULL);
}

void
rxd_set_port_event_handler(rxd_port_event_fn fn)
{
	__atomic_store_n(&port_event_fn, fn, __ATOMIC_RELEASE);
}

int
rxd_port_call(unsigned int port, rxd_engine_fn fn, void *arg)
{
	struct rxd_engine *e = rxd_stack_engine_of(port);

	return e == NULL ? -ENODEV : rxd_engine_call(e, fn, arg);
}

struct rxd_engine *
rxd_stack_qp_engine(unsigned int port, uint32_t qpn)
{
	unsigned int n;

	if (rxd_stack_engine_of(port) == NULL)
		return NULL;
	n = rxd_stk.n_shards[port];
	return rxd_stk.port_shard[port][rxd_qp_share(qpn, n)];
}

unsigned int
rxd_port_engines(unsigned int port)
{
	return rxd_stack_engine_of(port) == NULL ? 0 : rxd_stk.n_shards[port];
}

struct rxd_engine *
rxd_stack_engine_of(unsigned int port)
{
	if (!rxd_stk.running || port >= rxd_stk.n_ports) {
		rxd_stack_fail(ENODEV, "no rxd port %u", port);
		return NULL;
	}
	return rxd_stk.port_engine[port];
}

void
rxd_stack_wait(void)
{
	if (rxd_poll() == 0)
		usleep(100);
}

uint64_t
rxd_stack_deadline(unsigned int ms)
{
	return rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;
}

static uint16_t
ib_mtu(uint16_t mtu)
{
	uint16_t ib = 4096;

	while (ib > 256 && ib > mtu - 80)
		ib /= 2;
	return ib;
}

/* Address conflict detection's state, read from the engine's lcore. */
static void
conflict_info(const struct rxd_net_port *np, struct rxd_port_info *info)
{
	const struct rxd_net_acd *a = &np->acd;

	info->arp_conflicts = np->stats.arp_conflicts;
	memcpy(info->conflict_mac, a->conflict_mac.addr_bytes, 6);
	memcpy(info->conflict_ip, a->conflict_ip, 4);
	info->conflict_probing = a->while_probing;
	info->probing = a->phase != RXD_ACD_IDLE;
}

int
rxd_port_info(unsigned int port, struct rxd_port_info *info)
{
	const struct rxd_port *p;

	if (rxd_stack_engine_of(port) == NULL)
		return -1;
	p = &rxd_stk.ports[port];
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", p->name);
	snprintf(info->driver, sizeof(info->driver), "%s", p->driver);
	info->dpdk_port = p->port_id;
	memcpy(info->mac, p->mac.addr_bytes, 6);
	info->mtu = p->mtu;
	info->ib_mtu = ib_mtu(p->mtu);
	info->link_up = p->link_up;
	info->link_speed = p->link_speed;
	rxd_port_offload_str(p->offloads, info->offloads,
			     sizeof(info->offloads));
	info->n_gids = rxd_stk.net[port].n_gids;
	info->engine = rxd_stk.port_engine[port]->id;
	info->rx_queues = rxd_stk.ports[port].nb_rxq;
	info->tx_queues = rxd_stk.ports[port].nb_txq;
	snprintf(info->steering, sizeof(info->steering), "%s",
		 rxd_steer_mode_name(p->steer.mode));
	info->steered = p->steer.stats.steered;
	info->steered_active = p->steer.stats.active;
	info->steer_collisions = p->steer.stats.collisions;
	info->steer_failed = p->steer.stats.failed;
	conflict_info(&rxd_stk.net[port], info);
	return 0;
}

int
rxd_query_gid(unsigned int port, unsigned int index, uint8_t gid[16])
{
	if (rxd_stack_engine_of(port) == NULL)
		return -1;
	if (index >= rxd_stk.net[port].n_gids)
		return rxd_stack_fail(EINVAL, "port %u has no GID %u", port, index);
	memcpy(gid, rxd_stk.net[port].gids[index], 16);
	return 0;
}

