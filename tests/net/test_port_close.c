/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where rxd closes its ports: on EAL's interrupt thread, where memif
 * handles its peer's disconnect.  Closed from the program's thread, a
 * peer leaving at the same moment had both threads in memif's disconnect,
 * freeing the same regions (SIGSEGV at exit of rc-memif-tools' servers).
 * The race itself is rare; what removes it is checked here: ethdev's
 * DESTROY event, which rte_eth_dev_close() raises on the thread that
 * closes, must come on the interrupt thread, and only once rxd_stop()
 * has returned is the port gone.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "rxd/rxd.h"
#include "rxd_test_eal.h"

#define EAL_INTR_THREAD "eal-intr-thread"   /* DPDK's name for it */

static char sock[64];
static char closer[16];      /* name of the thread that closed the port */
static pthread_t closer_id;
static int destroyed;

static int
on_destroy(uint16_t port, enum rte_eth_event_type ev, void *arg, void *ret)
{
	(void)port;
	(void)ev;
	(void)arg;
	(void)ret;
	closer_id = pthread_self();
	pthread_getname_np(closer_id, closer, sizeof(closer));
	destroyed++;
	return 0;
}

Test(port_close, on_the_interrupt_thread, .timeout = 60)
{
	snprintf(sock, sizeof(sock), "/tmp/rxd-port-close-%d.sock", getpid());
	unlink(sock);
	/* EAL and rxd on a memif server nobody connects to */
	cr_assert_geq(rxd_test_eal("-l 0-1 -m 256 --no-shconf "
		"--log-level=pmd.net.memif:error --vdev=net_memif0,role=server,"
		"id=0,socket=%s,socket-abstract=no", sock), 0, "EAL init");
	cr_assert_eq(rxd_test_rxd("--ip 10.0.0.1/24"), 0, "%s",
		     rxd_last_error());
	cr_assert_eq(rte_eth_dev_callback_register(RTE_ETH_ALL,
		     RTE_ETH_EVENT_DESTROY, on_destroy, NULL), 0);
	rxd_stop();
	cr_assert_eq(destroyed, 1, "the port was destroyed %d times by the "
		     "time rxd_stop() returned", destroyed);
	cr_assert(!pthread_equal(closer_id, pthread_self()),
		  "the program's thread closed the port");
	cr_assert_str_eq(closer, EAL_INTR_THREAD, "closed on thread \"%s\"",
			 closer);
	rte_eal_cleanup();
	unlink(sock);
}
