/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The type of an engine's control command (rxd_engine_call() in
 * rxd_engine.h), alone: who only hands commands on (lib/verbs through
 * rxd_port_call()) needs no more of the engine.
 */
#ifndef RXD_ENGINE_CMD_H
#define RXD_ENGINE_CMD_H

struct rxd_engine;

/** A control command: fn runs on the engine's lcore. */
typedef int (*rxd_engine_fn)(struct rxd_engine *e, void *arg);

#endif /* RXD_ENGINE_CMD_H */
