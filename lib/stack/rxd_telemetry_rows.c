/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The copies the telemetry endpoints print (rxd_telemetry.h): ports,
 * engines and QPs, taken by control commands on the engines that own them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rxd_stack.h"
#include "rxd_telemetry.h"

static const char *const qp_state_names[] = {
	[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
	[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS", [IBV_QPS_SQD] = "SQD",
	[IBV_QPS_SQE] = "SQE", [IBV_QPS_ERR] = "ERR",
};

static const struct {
	enum ibv_qp_type type;
	const char *name;
} qp_type_names[] = {
	{ IBV_QPT_RC, "RC" }, { IBV_QPT_UC, "UC" }, { IBV_QPT_UD, "UD" },
	{ IBV_QPT_RAW_PACKET, "RAW_PACKET" }, { IBV_QPT_XRC_SEND, "XRC_SEND" },
	{ IBV_QPT_XRC_RECV, "XRC_RECV" },
};

static const char *
qp_type_name(const struct rxd_qp_core *qp)
{
	unsigned int i;

	if (qp->qpn == RXD_QPN_GSI)
		return "GSI";
	for (i = 0; i < RTE_DIM(qp_type_names); i++)
		if (qp_type_names[i].type == qp->type)
			return qp_type_names[i].name;
	return "?";
}

static const char *
qp_state_name(enum ibv_qp_state s)
{
	return (unsigned int)s < RTE_DIM(qp_state_names) ? qp_state_names[s] :
		"?";
}

/* QPs attached to port now (the table outlives every request). */
static uint64_t
qp_count(unsigned int port)
{
	uint64_t n = 0;
	uint32_t qpn;

	for (qpn = 0; qpn < rxd_stk.qp_table_len; qpn++)
		n += rxd_qp_lookup(port, qpn) != NULL;
	return n;
}

int
rxd_tel_port_copy(unsigned int port, struct rxd_tel_port *row)
{
	struct rxd_port_info info;
	unsigned int i;

	memset(row, 0, sizeof(*row));
	if (rxd_port_info(port, &info) != 0 ||
	    rxd_port_counters(port, &row->c) != 0)
		return -ENODEV;
	snprintf(row->name, sizeof(row->name), "%s", info.name);
	snprintf(row->driver, sizeof(row->driver), "%s", info.driver);
	snprintf(row->mac, sizeof(row->mac),
		 "%02x:%02x:%02x:%02x:%02x:%02x", info.mac[0], info.mac[1],
		 info.mac[2], info.mac[3], info.mac[4], info.mac[5]);
	row->port = port;
	row->dpdk_port = info.dpdk_port;
	row->mtu = info.mtu;
	row->ib_mtu = info.ib_mtu;
	row->link_up = info.link_up;
	row->link_speed = info.link_speed;
	row->n_gids = info.n_gids;
	row->engine = info.engine;
	row->rx_queues = info.rx_queues;
	row->tx_queues = info.tx_queues;
	snprintf(row->steering, sizeof(row->steering), "%s", info.steering);
	row->steered = info.steered;
	row->steered_active = info.steered_active;
	row->steer_collisions = info.steer_collisions;
	row->steer_failed = info.steer_failed;
	row->qps = qp_count(port);
	for (i = 0; i < RTE_DIM(row->c.wire_err); i++)
		row->wire_err_total += row->c.wire_err[i];
	return 0;
}

static int
engine_copy_cmd(struct rxd_engine *e, void *arg)
{
	struct rxd_tel_engine *row = arg;

	row->n_ports = e->n_ports;
	row->doorbells_queued = rte_ring_count(e->doorbells);
	row->loops = e->stats.loops;
	row->busy_loops = e->stats.busy_loops;
	row->sleeps = e->stats.sleeps;
	row->commands = e->stats.commands;
	row->qps_owned = e->n_qps;
	row->busy_cycles = e->busy_cycles;
	row->idle_cycles = e->idle_cycles;
	row->handoff_sent = e->handoff.stats.sent;
	row->handoff_received = e->handoff.stats.received;
	row->handoff_dropped = e->handoff.stats.dropped;
	return 0;
}

int
rxd_tel_engine_copy(unsigned int engine, struct rxd_tel_engine *row)
{
	struct rxd_engine *e = &rxd_stk.engines[engine];
	unsigned int i;

	memset(row, 0, sizeof(*row));
	if (!rxd_stk.running || engine >= rxd_stk.n_engines)
		return -ENODEV;
	rxd_engine_call(e, engine_copy_cmd, row);
	row->engine = engine;
	row->lcore = e->lcore;
	snprintf(row->mode, sizeof(row->mode), "%s",
		 rxd_stk.launched[engine] ? "lcore" : "inline");
	for (i = 0; i < e->n_ports; i++)
		row->qps += qp_count(e->ports[i].port->index);
	return 0;
}

static void
qp_brief(const struct rxd_qp_core *qp, struct rxd_tel_qp *row)
{
	memset(row, 0, sizeof(*row));
	snprintf(row->type, sizeof(row->type), "%s", qp_type_name(qp));
	snprintf(row->state, sizeof(row->state), "%s",
		 qp_state_name(qp->attr.qp_state));
	row->port = qp->port;
	row->qpn = qp->qpn;
	row->dest_qpn = qp->attr.dest_qp_num;
	row->path_mtu = qp->attr.path_mtu == 0 ? 0 :
		128u << qp->attr.path_mtu;
}

struct list_arg {
	unsigned int port;
	struct rxd_tel_qp *rows;
	unsigned int max, n;
};

static int
list_cmd(struct rxd_engine *e, void *arg)
{
	struct list_arg *a = arg;
	const struct rxd_qp_core *qp;
	uint32_t qpn;

	(void)e;
	for (qpn = 0; qpn < rxd_stk.qp_table_len; qpn++) {
		qp = rxd_qp_lookup(a->port, qpn);
		if (qp == NULL)
			continue;
		if (a->n < a->max)
			qp_brief(qp, &a->rows[a->n]);
		a->n++;
	}
	return 0;
}

unsigned int
rxd_tel_qp_list(struct rxd_tel_qp *rows, unsigned int max)
{
	struct list_arg a = { .rows = rows, .max = max };

	for (a.port = 0; a.port < rxd_stk.n_ports; a.port++)
		rxd_port_call(a.port, list_cmd, &a);
	return a.n;
}

struct copy_arg {
	unsigned int port;
	uint32_t qpn;
	struct rxd_tel_qp *row;
};

/* Looked up here, on the engine: see rxd_telemetry.h. */
static int
copy_cmd(struct rxd_engine *e, void *arg)
{
	struct copy_arg *a = arg;
	const struct rxd_qp_core *qp = rxd_qp_lookup(a->port, a->qpn);

	(void)e;
	if (qp == NULL)
		return -ENOENT;
	qp_brief(qp, a->row);
	rxd_transport_state(qp, &a->row->ts);
	return 0;
}

int
rxd_tel_qp_copy(int port, uint32_t qpn, struct rxd_tel_qp *row)
{
	struct copy_arg a = { .qpn = qpn, .row = row };

	for (a.port = 0; a.port < rxd_stk.n_ports; a.port++)
		if ((port < 0 || a.port == (unsigned int)port) &&
		    rxd_port_call(a.port, copy_cmd, &a) == 0)
			return 0;
	return -ENOENT;
}
