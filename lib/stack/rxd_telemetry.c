/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd's rte_telemetry endpoints, read with DPDK's dpdk-telemetry.py:
 *   /rxd/ports [,PORT]     ports: link, MTU, queues, every port counter
 *   /rxd/engines [,ID]     engines: lcore, ports, QPs, loop counters
 *   /rxd/qps               every QP: port, QPN, type, state, peer QPN
 *   /rxd/qp,[PORT,]QPN     one QP: state, PSNs, send window, counters
 * Without a parameter a field is a column (an array, one entry per port or
 * engine); with one it is a value.  Callbacks run on DPDK's telemetry
 * threads and copy what they print through the engines' control rings
 * (rxd_telemetry.h); observe_lock keeps rxd's start and stop out of a
 * callback in progress and is never taken by the data path.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>
#include <rte_telemetry.h>

#include "rxd_observe.h"
#include "rxd_stack.h"
#include "rxd_telemetry.h"

#define MAX_ROWS RTE_TEL_MAX_ARRAY_ENTRIES

enum field_kind { F_U64, F_U32, F_STR };

/* A printed field: its name, and where it is in a row. */
struct field {
	const char *name;
	enum field_kind kind;
	size_t off;
};

#define PORT_U64(f) { #f, F_U64, offsetof(struct rxd_tel_port, f) }
#define PORT_CNT(f) { #f, F_U64, offsetof(struct rxd_tel_port, c.f) }
#define PORT_STR(f) { #f, F_STR, offsetof(struct rxd_tel_port, f) }

static const struct field port_fields[] = {
	PORT_U64(port), PORT_STR(name), PORT_STR(driver), PORT_STR(mac),
	PORT_U64(dpdk_port), PORT_U64(mtu), PORT_U64(ib_mtu),
	PORT_U64(link_up), PORT_U64(link_speed), PORT_U64(n_gids),
	PORT_U64(engine), PORT_U64(rx_queues), PORT_U64(tx_queues),
	PORT_U64(qps), PORT_CNT(rx_pkts), PORT_CNT(rx_bytes),
	PORT_CNT(tx_pkts), PORT_CNT(tx_bytes), PORT_CNT(tx_full),
	PORT_CNT(burst_faults), PORT_CNT(tx_waited),
	PORT_CNT(roce_rx), PORT_CNT(roce_not_local), PORT_CNT(roce_unknown_qp),
	PORT_CNT(roce_bad_peer), PORT_CNT(roce_bad_cnp), PORT_CNT(qkey_viol), PORT_CNT(other_dropped),
	PORT_U64(wire_err_total), PORT_CNT(arp_rx), PORT_CNT(arp_tx),
	PORT_CNT(nd_rx), PORT_CNT(nd_tx), PORT_CNT(echo_answered),
	PORT_CNT(echo_replies), PORT_CNT(not_for_us), PORT_CNT(malformed),
	PORT_CNT(resolve_failed), PORT_CNT(held_dropped), PORT_CNT(no_route),
	PORT_CNT(fault_rx_dropped), PORT_CNT(fault_rx_duplicated),
	PORT_CNT(fault_rx_reordered), PORT_CNT(fault_rx_corrupted),
	PORT_CNT(fault_rx_cut), PORT_CNT(fault_rx_opcode),
	PORT_CNT(fault_tx_dropped), PORT_CNT(fault_tx_duplicated),
	PORT_CNT(fault_tx_reordered), PORT_CNT(fault_tx_corrupted),
	PORT_CNT(fault_tx_cut), PORT_CNT(fault_tx_opcode),
	PORT_CNT(capture_written), PORT_CNT(capture_lost), PORT_CNT(icmp_rx),
	PORT_CNT(icmp6_rx), PORT_CNT(arp_answered), PORT_CNT(nd_answered),
	PORT_CNT(neigh_confirmed), PORT_CNT(neigh_ignored),
	PORT_CNT(neigh_evicted), PORT_CNT(reply_failed),
	PORT_CNT(net_other_dropped), PORT_CNT(mbufs_in_use), PORT_CNT(roce_ce),
	PORT_STR(steering), PORT_U64(steered), PORT_U64(steered_active),
	PORT_U64(steer_collisions), PORT_U64(steer_failed),
};

#define ENG_U64(f) { #f, F_U64, offsetof(struct rxd_tel_engine, f) }

static const struct field engine_fields[] = {
	ENG_U64(engine), { "mode", F_STR, offsetof(struct rxd_tel_engine, mode) },
	ENG_U64(lcore), ENG_U64(n_ports), ENG_U64(qps),
	ENG_U64(doorbells_queued), ENG_U64(loops), ENG_U64(busy_loops),
	ENG_U64(sleeps), ENG_U64(commands), ENG_U64(qps_owned),
	ENG_U64(busy_cycles), ENG_U64(idle_cycles), ENG_U64(handoff_sent),
	ENG_U64(handoff_received), ENG_U64(handoff_dropped),
};

#define QP_U64(f) { #f, F_U64, offsetof(struct rxd_tel_qp, f) }
#define QP_STR(f) { #f, F_STR, offsetof(struct rxd_tel_qp, f) }
#define QP_TS(f) { #f, F_U32, offsetof(struct rxd_tel_qp, ts.f) }
#define QP_CNT(f) { #f, F_U64, offsetof(struct rxd_tel_qp, ts.cnt.f) }

/* /rxd/qps prints the first five, /rxd/qp all. */
static const struct field qp_fields[] = {
	QP_U64(port), QP_U64(qpn), QP_STR(type), QP_STR(state),
	QP_U64(dest_qpn), QP_U64(path_mtu), QP_TS(sq_psn), QP_TS(una),
	QP_TS(snd_nxt), QP_TS(rq_psn), QP_TS(msn), QP_TS(window_used),
	QP_TS(window_unsent), QP_TS(window_size), QP_TS(retry_left),
	QP_TS(rnr_left), QP_TS(timer_armed), QP_TS(rnr_waiting),
	QP_CNT(tx_pkts), QP_CNT(rx_pkts), QP_CNT(retransmits),
	QP_CNT(timeouts), QP_CNT(rnr_waits), QP_CNT(rnr_naks_tx),
	QP_CNT(duplicates), QP_CNT(out_of_sequence), QP_CNT(bad_addr),
	QP_CNT(dropped), QP_CNT(too_big), QP_CNT(acks_tx),
	QP_CNT(acks_coalesced), QP_CNT(ce_rx), QP_CNT(cnp_tx), QP_CNT(cnp_rx),
	QP_CNT(rate_cuts), QP_CNT(rate_kbps), QP_CNT(rtt_us),
	QP_CNT(rtt_samples), QP_CNT(keepalives),
};
#define QP_LIST_FIELDS 5

static pthread_mutex_t observe_lock = PTHREAD_MUTEX_INITIALIZER;
static bool observe_live, registered;

static uint64_t
u64_of(const void *row, const struct field *f)
{
	const char *p = (const char *)row + f->off;

	return f->kind == F_U32 ? *(const uint32_t *)p :
		*(const uint64_t *)p;
}

static void
add_value(struct rte_tel_data *d, const struct field *f, const void *row)
{
	if (f->kind == F_STR)
		rte_tel_data_add_dict_string(d, f->name,
			(const char *)row + f->off);
	else
		rte_tel_data_add_dict_u64(d, f->name, u64_of(row, f));
}

/* Field f of n rows of size sz as one array. */
static void
add_column(struct rte_tel_data *d, const struct field *f, const void *rows,
	   size_t sz, unsigned int n)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	unsigned int i;

	if (c == NULL)
		return;
	rte_tel_data_start_array(c, f->kind == F_STR ? RTE_TEL_STRING_VAL :
				 RTE_TEL_U64_VAL);
	for (i = 0; i < n; i++) {
		const void *row = (const char *)rows + i * sz;

		if (f->kind == F_STR)
			rte_tel_data_add_array_string(c,
				(const char *)row + f->off);
		else
			rte_tel_data_add_array_u64(c, u64_of(row, f));
	}
	rte_tel_data_add_dict_container(d, f->name, c, 0);
}

/* The fields of one row as values, or of n rows as columns. */
static void
add_fields(struct rte_tel_data *d, const struct field *f, size_t nf,
	   const void *rows, size_t sz, unsigned int n, bool columns)
{
	size_t i;

	rte_tel_data_start_dict(d);
	for (i = 0; i < nf; i++) {
		if (columns)
			add_column(d, &f[i], rows, sz, n);
		else
			add_value(d, &f[i], rows);
	}
}

/* A number parameter in *v (decimal or 0x); NULL or "" gives false. */
static bool
param_num(const char *s, char **end, unsigned long *v)
{
	if (s == NULL || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, end, 0);
	return errno == 0;
}

/* A single index in [0, limit), or -1 without a parameter. */
static int
param_index(const char *params, unsigned int limit, long *idx)
{
	unsigned long v;
	char *end;

	*idx = -1;
	if (params == NULL || *params == '\0')
		return 0;
	if (!param_num(params, &end, &v) || *end != '\0' || v >= limit)
		return -EINVAL;
	*idx = (long)v;
	return 0;
}

static int
answer_ports(const char *params, struct rte_tel_data *d)
{
	static struct rxd_tel_port rows[RXD_MAX_PORTS];
	unsigned int i, n = 0;
	long one;

	if (param_index(params, rxd_stk.n_ports, &one) != 0)
		return -EINVAL;
	for (i = 0; i < rxd_stk.n_ports; i++)
		if ((one < 0 || i == one) && rxd_tel_port_copy(i, &rows[n]) == 0)
			n++;
	add_fields(d, port_fields, RTE_DIM(port_fields), rows, sizeof(rows[0]),
		   n, one < 0);
	return 0;
}

static int
answer_engines(const char *params, struct rte_tel_data *d)
{
	static struct rxd_tel_engine rows[RXD_MAX_ENGINES];
	unsigned int i, n = 0;
	long one;

	if (param_index(params, rxd_stk.n_engines, &one) != 0)
		return -EINVAL;
	for (i = 0; i < rxd_stk.n_engines; i++)
		if ((one < 0 || i == one) &&
		    rxd_tel_engine_copy(i, &rows[n]) == 0)
			n++;
	add_fields(d, engine_fields, RTE_DIM(engine_fields), rows,
		   sizeof(rows[0]), n, one < 0);
	return 0;
}

static int
answer_qps(const char *params, struct rte_tel_data *d)
{
	static struct rxd_tel_qp rows[MAX_ROWS];
	unsigned int total;

	if (params != NULL && *params != '\0')
		return -EINVAL;
	total = rxd_tel_qp_list(rows, MAX_ROWS);
	add_fields(d, qp_fields, QP_LIST_FIELDS, rows, sizeof(rows[0]),
		   RTE_MIN(total, (unsigned int)MAX_ROWS), true);
	rte_tel_data_add_dict_u64(d, "count", total);
	return 0;
}

static void
add_naks(struct rte_tel_data *d, const char *name, const uint64_t *v,
	 unsigned int n)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	unsigned int i;

	if (c == NULL)
		return;
	rte_tel_data_start_array(c, RTE_TEL_U64_VAL);
	for (i = 0; i < n; i++)
		rte_tel_data_add_array_u64(c, v[i]);
	rte_tel_data_add_dict_container(d, name, c, 0);
}

/* "QPN" (the first port that has it) or "PORT,QPN". */
static int
answer_qp(const char *params, struct rte_tel_data *d)
{
	static struct rxd_tel_qp row;
	unsigned long a, b;
	int port = -1;
	char *end;

	if (!param_num(params, &end, &a))
		return -EINVAL;
	if (*end == ',') {
		if (a >= rxd_stk.n_ports || !param_num(end + 1, &end, &b))
			return -EINVAL;
		port = (int)a;
		a = b;
	}
	if (*end != '\0' || a > RXD_QPN_MASK)
		return -EINVAL;
	if (rxd_tel_qp_copy(port, (uint32_t)a, &row) != 0)
		return -ENOENT;
	add_fields(d, qp_fields, RTE_DIM(qp_fields), &row, sizeof(row), 1,
		   false);
	add_naks(d, "naks_rx", row.ts.cnt.naks_rx,
		 RTE_DIM(row.ts.cnt.naks_rx));
	add_naks(d, "naks_tx", row.ts.cnt.naks_tx,
		 RTE_DIM(row.ts.cnt.naks_tx));
	return 0;
}

/* Run an answer while rxd runs; rows are static: one answer at a time. */
static int
observed(int (*answer)(const char *, struct rte_tel_data *),
	 const char *params, struct rte_tel_data *d)
{
	int rc = -ENODEV;

	pthread_mutex_lock(&observe_lock);
	if (observe_live)
		rc = answer(params, d);
	pthread_mutex_unlock(&observe_lock);
	return rc;
}

static int
on_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return observed(answer_ports, params, d);
}

static int
on_engines(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return observed(answer_engines, params, d);
}

static int
on_qps(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return observed(answer_qps, params, d);
}

static int
on_qp(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return observed(answer_qp, params, d);
}

static const struct {
	const char *cmd;
	telemetry_cb fn;
	const char *help;
} endpoints[] = {
	{ "/rxd/ports", on_ports, "rxd's ports: link, MTU, queues, counters, "
	  "a column per field. Parameters: int port (optional, values)" },
	{ "/rxd/engines", on_engines, "rxd's engines: lcore, QPs, loop "
	  "counters, a column per field. Parameters: int engine (optional)" },
	{ "/rxd/qps", on_qps, "rxd's QPs: port, qpn, type, state, dest_qpn "
	  "(columns, at most 512) and count. Takes no parameters" },
	{ "/rxd/qp", on_qp, "One rxd QP: state, PSNs, send window, "
	  "counters. Parameters: int qpn, or int port,int qpn" },
};

static void
register_endpoints(void)
{
	unsigned int i;
	int rc;

	for (i = 0; i < RTE_DIM(endpoints); i++) {
		rc = rte_telemetry_register_cmd(endpoints[i].cmd,
			endpoints[i].fn, endpoints[i].help);
		if (rc != 0)
			rte_log(RTE_LOG_INFO, rxd_logtype_stack, "rxd: "
				"telemetry endpoint %s not registered (%s)\n",
				endpoints[i].cmd, strerror(-rc));
	}
}

void
rxd_telemetry_open(void)
{
	pthread_mutex_lock(&observe_lock);
	if (!registered)
		register_endpoints();
	registered = true;
	observe_live = true;
	pthread_mutex_unlock(&observe_lock);
}

void
rxd_telemetry_close(void)
{
	pthread_mutex_lock(&observe_lock);
	observe_live = false;
	pthread_mutex_unlock(&observe_lock);
}
