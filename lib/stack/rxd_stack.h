/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/stack: the host-wide stack over the engines, and its state (rxd_stk),
 * shared by lib/stack's files only.  It starts and stops ports and
 * engines, owns the QP tables and placement, and implements
 * include/rxd/rxd.h; the engines get what they need of it as data.
 */
#ifndef RXD_STACK_H
#define RXD_STACK_H

#include "rxd/rxd.h"
#include "rxd_engine.h"
#include "rxd_inline.h"
#include "rxd_qp_engine.h"

struct rxd_stack {
	bool running;
	struct rxd_conf conf;
	unsigned int n_ports;
	struct rxd_port ports[RXD_MAX_PORTS];
	struct rxd_net_port net[RXD_MAX_PORTS];
	struct rxd_engine *port_engine[RXD_MAX_PORTS];
	/** The engines sharing each port: shard k's is port_shard[p][k]. */
	struct rxd_engine *port_shard[RXD_MAX_PORTS][RXD_MAX_SHARDS];
	unsigned int n_shards[RXD_MAX_PORTS];
	unsigned int n_engines;
	struct rxd_engine engines[RXD_MAX_ENGINES];
	bool launched[RXD_MAX_ENGINES];
	struct rxd_qp_core **qp_table[RXD_MAX_PORTS]; /**< by QPN */
	uint32_t qp_table_len;
};

extern struct rxd_stack rxd_stk;
extern int rxd_logtype_stack;   /**< rte_log type "rxd.stack" */

/** Record the message of a failed API call, set errno; returns -1. */
int rxd_stack_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** The engine serving port, or NULL with errno ENODEV. */
struct rxd_engine *rxd_stack_engine_of(unsigned int port);

/**
 * The engine owning a QP of a port for the QP's life: QP1 the port's
 * first, any other QPN modulo the port's engines.  NULL with errno ENODEV.
 */
struct rxd_engine *rxd_stack_qp_engine(unsigned int port, uint32_t qpn);

/** Let time pass while waiting: run inline engines, or sleep 100 us. */
void rxd_stack_wait(void);

/**
 * Start the engines' inline runner on the engines no lcore runs
 * (rxd_stack_inline.c); nothing to do without such engines.  @return 0 or
 * pthread_create()'s error number.
 */
int rxd_stack_inline_start(void);

/**
 * With RXD_ENGINE_STATS set, print each engine's RoCE receive and
 * hand-off counters and each port's steering (rxd_stack_report.c).
 */
void rxd_stack_report(void);

/** TSC value ms milliseconds from now. */
uint64_t rxd_stack_deadline(unsigned int ms);

#endif /* RXD_STACK_H */
