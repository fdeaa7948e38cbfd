/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The burst guard (pmd_glue/rxd_port_guard.c) on its own: a burst that
 * faults on unmapped memory while its port's link is down ends with 0 and
 * the process goes on, as when a memif peer unmaps the rings mid-burst;
 * a fault while the link is up, or outside a burst, still kills the
 * process (or reaches ASan's handler).  The port is a net_ring whose
 * link is down until set up.
 */
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "rxd_port_guard.h"
#include "rxd_test_eal.h"

static uint16_t port;
static volatile uint8_t *gone;   /* a page that was unmapped */

static void
start(void)
{
	struct rte_ring *r;
	void *page;
	int p;

	cr_assert_geq(rxd_test_eal("-m 64 --no-shconf --file-prefix rxdguard"),
		      0, "EAL init");
	r = rte_ring_create("guard", 64, SOCKET_ID_ANY,
			    RING_F_SP_ENQ | RING_F_SC_DEQ);
	cr_assert_not_null(r);
	p = rte_eth_from_ring(r);
	cr_assert_geq(p, 0, "net_ring port");
	port = (uint16_t)p;
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(page, MAP_FAILED);
	cr_assert_eq(munmap(page, 4096), 0);
	gone = page;
	cr_assert_eq(rxd_port_guard_install(), 0);
}

static void
stop(void)
{
	rte_eal_cleanup();
}

/* What memif's copy does once its regions are gone. */
static uint16_t
write_gone(uint16_t p, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)p;
	(void)q;
	(void)pkts;
	gone[0] = 1;
	return n;
}

static uint16_t
take_all(uint16_t p, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)p;
	(void)q;
	(void)pkts;
	return n;
}

/* Run @p body in a child: it must not come back to exit 0. */
static void
expect_death(void (*body)(void))
{
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		body();
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(!(WIFEXITED(status) && WEXITSTATUS(status) == 0),
		  "the fault was swallowed");
}

TestSuite(port_guard, .init = start, .fini = stop, .timeout = 30);

Test(port_guard, fault_with_link_down_ends_the_burst)
{
	int faulted = 0;
	struct rte_eth_link link;

	cr_assert_eq(rte_eth_link_get_nowait(port, &link), 0);
	cr_assert_eq(link.link_status, RTE_ETH_LINK_DOWN);
	cr_assert_eq(rxd_port_guard_burst(write_gone, port, 0, NULL, 32,
					  &faulted), 0);
	cr_assert_eq(faulted, 1);
	/* armed again for the next burst, and a clean one is left alone */
	faulted = 0;
	cr_assert_eq(rxd_port_guard_burst(write_gone, port, 0, NULL, 32,
					  &faulted), 0);
	cr_assert_eq(faulted, 1);
	faulted = 0;
	cr_assert_eq(rxd_port_guard_burst(take_all, port, 0, NULL, 32,
					  &faulted), 32);
	cr_assert_eq(faulted, 0);
}

static void
fault_link_up(void)
{
	int faulted = 0;

	if (rte_eth_dev_set_link_up(port) != 0) {
		fprintf(stderr, "cannot set the link up\n");
		return;   /* exit 0: the test fails */
	}
	rxd_port_guard_burst(write_gone, port, 0, NULL, 32, &faulted);
}

Test(port_guard, fault_with_link_up_is_not_taken)
{
	expect_death(fault_link_up);
}

static void
fault_outside(void)
{
	gone[0] = 1;
}

Test(port_guard, fault_outside_a_burst_is_not_taken)
{
	expect_death(fault_outside);
}
