/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What DPDK's own tools see of a running rxd: rxd's rte_telemetry
 * endpoints (rxd_telemetry.c, for dpdk-telemetry.py) and rte_pdump
 * (rxd_pdump.c, for dpdk-dumpcap).  The stack opens both once it runs and
 * closes them first thing when it stops.
 */
#ifndef RXD_OBSERVE_H
#define RXD_OBSERVE_H

/**
 * Let the telemetry endpoints answer; they are registered with
 * rte_telemetry the first time (they stay registered for the process and
 * answer null while rxd is stopped).
 */
void rxd_telemetry_open(void);

/** Make them answer null; waits for a request being answered. */
void rxd_telemetry_close(void);

/**
 * Enable rte_pdump in a primary process (unless the application did), so
 * that dpdk-dumpcap can capture rxd's ports.  Failure only costs that and
 * is logged.
 */
void rxd_pdump_open(void);

/** Disable what rxd_pdump_open() enabled. */
void rxd_pdump_close(void);

#endif /* RXD_OBSERVE_H */
