/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Waiting for EAL's interrupt thread to finish what it was doing.  DPDK
 * 22.11's memif needs this: it handles the peer's disconnect on that
 * thread and reports the link down before it has released the queues'
 * interrupt handles, so closing the port meanwhile frees them twice; and
 * a close leaves that thread work to do while rte_eal_cleanup() unmaps
 * memory.  An eventfd of our own, registered as an interrupt source,
 * fires on that thread after whatever it was running; it is unregistered
 * again, so that rte_eal_cleanup() finds no source of ours.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_interrupts.h>

#include "memif_raw.h"

#define SYNC_WAIT_MS 1000

static bool done;                /* set on the interrupt thread */

static void
reached(void *arg)
{
	struct rte_intr_handle *h = arg;
	uint64_t v;

	if (read(rte_intr_fd_get(h), &v, sizeof(v)) == sizeof(v))
		__atomic_store_n(&done, true, __ATOMIC_RELEASE);
}

static void
wait_reached(int fd)
{
	uint64_t one = 1;
	int ms;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		return;
	for (ms = 0; ms < SYNC_WAIT_MS; ms++) {
		if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
			return;
		usleep(1000);
	}
	fprintf(stderr, "rxd-memif-raw: EAL's interrupt thread did not "
		"answer in %d ms\n", SYNC_WAIT_MS);
}

void
raw_intr_sync(void)
{
	struct rte_intr_handle *h =
		rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	int fd = eventfd(0, EFD_NONBLOCK);

	if (h != NULL && fd >= 0 && rte_intr_fd_set(h, fd) == 0 &&
	    rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) == 0 &&
	    rte_intr_callback_register(h, reached, h) == 0) {
		__atomic_store_n(&done, false, __ATOMIC_RELAXED);
		wait_reached(fd);
		while (rte_intr_callback_unregister(h, reached, h) == -EAGAIN)
			usleep(100);
	}
	rte_intr_instance_free(h);
	if (fd >= 0)
		close(fd);
}
