/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_port_guard.c - bursts that survive a memif peer unmapping the rings
 * under them.
 *
 * DPDK 22.11's memif handles its peer's disconnect on EAL's interrupt
 * thread: it marks the link down, clears its "connected" flag and unmaps
 * the shared regions at once, with nothing to wait for a data-path thread
 * that passed the flag's check a moment before and is still copying to or
 * from those regions.  That thread then faults (seen in peer-death: the
 * survivor's engine in memif's transmit copy, under load).  rxd arms a
 * jump point on its thread around each burst on such a port; the fault
 * handler jumps back only when the faulting thread is armed and the
 * port's link is down by then (memif marks it down before it unmaps), and
 * the burst returns 0.  Every other fault goes to the handler that was
 * installed before rxd's (the default action, ASan's, the program's own).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include <rte_ethdev.h>

#include "rxd_port_guard.h"

/* The burst this thread is in, if any. */
struct guard {
	sigjmp_buf jump;
	volatile sig_atomic_t armed;
	uint16_t port;
};

static __thread struct guard guard;
static struct sigaction prev_segv, prev_bus;
static bool installed;

static bool
link_is_up(uint16_t port)
{
	struct rte_eth_link link;

	if (rte_eth_link_get_nowait(port, &link) != 0)
		return true;
	return link.link_status == RTE_ETH_LINK_UP;
}

/* Hand the fault to the handler found at install time. */
static void
pass_on(int sig, siginfo_t *info, void *ctx)
{
	const struct sigaction *prev = sig == SIGBUS ? &prev_bus : &prev_segv;
	struct sigaction dfl;

	if (prev->sa_flags & SA_SIGINFO) {
		prev->sa_sigaction(sig, info, ctx);
		return;
	}
	if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
		prev->sa_handler(sig);
		return;
	}
	/* the faulting instruction runs again and takes the default action */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
}

static void
on_fault(int sig, siginfo_t *info, void *ctx)
{
	if (guard.armed && !link_is_up(guard.port)) {
		guard.armed = 0;
		siglongjmp(guard.jump, 1);
	}
	pass_on(sig, info, ctx);
}

int
rxd_port_guard_install(void)
{
	struct sigaction sa;

	if (installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	/* not blocked in the handler: the jump leaves it without sigreturn */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &prev_segv) != 0)
		return -1;
	if (sigaction(SIGBUS, &sa, &prev_bus) != 0) {
		sigaction(SIGSEGV, &prev_segv, NULL);
		return -1;
	}
	installed = true;
	return 0;
}

uint16_t
rxd_port_guard_burst(rxd_port_burst_fn fn, uint16_t port, uint16_t queue,
		     struct rte_mbuf **pkts, uint16_t n, int *faulted)
{
	uint16_t done;

	if (sigsetjmp(guard.jump, 0) != 0) {
		*faulted = 1;
		return 0;
	}
	guard.port = port;
	guard.armed = 1;
	done = fn(port, queue, pkts, n);
	guard.armed = 0;
	return done;
}
