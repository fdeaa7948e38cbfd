/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running a function on EAL's interrupt thread, where PMDs handle their
 * control events (memif: its peer's connect and disconnect).
 */
#ifndef RXD_INTR_THREAD_H
#define RXD_INTR_THREAD_H

/**
 * Run fn(arg) on EAL's interrupt thread, between two of the PMDs' control
 * callbacks, and wait for it to return.
 *
 * @return 0 once fn has run there; -1 when it could not be sent there or
 *         the thread did not take it within 5 s (fn has not run and will
 *         not: the caller may run it itself).
 */
int rxd_intr_thread_run(void (*fn)(void *), void *arg);

#endif
