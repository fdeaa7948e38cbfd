/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rows the telemetry endpoints print (rxd_telemetry.c), and how they
 * are copied (rxd_telemetry_rows.c): everything an engine owns is copied
 * by a control command on that engine, a QP is looked up inside that
 * command, so a QP being destroyed is either still attached (its detach
 * waits behind the command) or not found.
 */
#ifndef RXD_TELEMETRY_H
#define RXD_TELEMETRY_H

#include <stdint.h>

#include "rxd/rxd.h"
#include "rxd_transport_state.h"

#define RXD_TEL_NAME 64

/** One rxd port. */
struct rxd_tel_port {
	char name[RXD_TEL_NAME], driver[RXD_TEL_NAME], mac[RXD_TEL_NAME];
	uint64_t port, dpdk_port, mtu, ib_mtu, link_up, link_speed, n_gids;
	uint64_t engine, rx_queues, tx_queues, qps, wire_err_total;
	char steering[RXD_TEL_NAME];
	uint64_t steered, steered_active, steer_collisions, steer_failed;
	struct rxd_port_counters c;
};

/** One engine. */
struct rxd_tel_engine {
	char mode[RXD_TEL_NAME];        /**< "lcore" or "inline" */
	uint64_t engine, lcore, n_ports, qps, doorbells_queued;
	uint64_t loops, busy_loops, sleeps, commands;
	uint64_t qps_owned, busy_cycles, idle_cycles;
	uint64_t handoff_sent, handoff_received, handoff_dropped;
};

/** One QP: what /rxd/qps lists of it, and what /rxd/qp adds. */
struct rxd_tel_qp {
	char type[RXD_TEL_NAME], state[RXD_TEL_NAME];
	uint64_t port, qpn, dest_qpn, path_mtu;
	struct rxd_transport_state ts;
};

/** Copy port's row.  @return 0 or -ENODEV. */
int rxd_tel_port_copy(unsigned int port, struct rxd_tel_port *row);

/** Copy engine's row.  @return 0 or -ENODEV. */
int rxd_tel_engine_copy(unsigned int engine, struct rxd_tel_engine *row);

/**
 * Copy the first max QPs (ports in order, QPNs ascending) without their
 * transport state into rows.  @return how many QPs there are in all.
 */
unsigned int rxd_tel_qp_list(struct rxd_tel_qp *rows, unsigned int max);

/**
 * Copy QP qpn of port (of the first port that has it: port < 0).
 * @return 0, or -ENOENT without such a QP.
 */
int rxd_tel_qp_copy(int port, uint32_t qpn, struct rxd_tel_qp *row);

#endif /* RXD_TELEMETRY_H */
