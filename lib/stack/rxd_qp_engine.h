/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the stack does for a queue pair and a port when lib/verbs asks:
 * make a QP's transport state, place the QP on the engine that owns it
 * and publish it in the port's QP table, apply attributes on that engine,
 * look a QPN up, run a command on a port's engine.  The QP tables are the
 * stack's, which lends each engine its ports' tables to read (struct
 * rxd_engine_host); the QP core itself (lib/qp) is below the engine and
 * the transport.  These calls live here so that lib/verbs includes no
 * lib/transport header.
 */
#ifndef RXD_QP_ENGINE_H
#define RXD_QP_ENGINE_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "rxd_engine_cmd.h"
#include "rxd_qp_core.h"

struct rxd_qp_memory;

/**
 * Run fn on the engine serving an rxd port and return its result
 * (-ENODEV without such a port).
 */
int rxd_port_call(unsigned int port, rxd_engine_fn fn, void *arg);

/**
 * How many engines share an rxd port (engines_per_port, as far as the
 * device and the engine lcores allow); 0 without such a port.  With more
 * than one, the QPs of one CQ or SRQ may be served by several engines.
 */
unsigned int rxd_port_engines(unsigned int port);

/**
 * Make a QP's transport state (a send window of sq_size WRs), place the
 * QP on the engine serving its port and publish it in the port's QP
 * table.  @return 0 or a negative errno (-ENOMEM, -ENOSPC: QPN out of
 * range); then nothing is left to undo.
 */
int rxd_qp_attach(struct rxd_qp_core *qp, uint32_t sq_size);

/**
 * Unpublish a QP, take it off its engine's timers and doorbells, wait
 * until no engine uses it and free its transport state.
 */
void rxd_qp_detach(struct rxd_qp_core *qp);

/**
 * The transport state's share of rxd_qp_memory() (state, send window,
 * responder resources) for a QP of this type and sq_size send WRs.
 */
void rxd_qp_transport_memory(enum ibv_qp_type type, uint32_t sq_size,
			     struct rxd_qp_memory *m);

/**
 * Apply checked attributes on the QP's engine (state, PSNs, path).
 * @return 0 or a negative errno.
 */
int rxd_qp_apply(struct rxd_qp_core *qp, const struct ibv_qp_attr *attr,
		 int mask);

/** The QP with this QPN on a port, or NULL (engine side). */
struct rxd_qp_core *rxd_qp_lookup(unsigned int port, uint32_t qpn);

#endif /* RXD_QP_ENGINE_H */
