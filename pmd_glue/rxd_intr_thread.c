/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_intr_thread_run (see rxd_intr_thread.h): an eventfd of our own is
 * registered as an interrupt source and written to; its callback runs the
 * function on EAL's interrupt thread and says so; the source is then
 * unregistered, so that rte_eal_cleanup() finds none of ours.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_interrupts.h>

#include "rxd_intr_thread.h"

#define POLL_US 100

struct intr_job {
	struct rte_intr_handle *h;
	void (*fn)(void *);
	void *arg;
	bool done;                  /* set on the interrupt thread */
};

static void
run_job(void *arg)
{
	struct intr_job *j = arg;
	uint64_t v;

	if (read(rte_intr_fd_get(j->h), &v, sizeof(v)) != sizeof(v) ||
	    __atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
		return;
	j->fn(j->arg);
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
}

/* Write the eventfd and wait for the job: the thread always answers. */
static void
kick_and_wait(struct intr_job *j, int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		return;
	while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
		usleep(POLL_US);
}

int
rxd_intr_thread_run(void (*fn)(void *), void *arg)
{
	struct intr_job j = { .fn = fn, .arg = arg };
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	bool registered = false;

	j.h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (j.h != NULL && fd >= 0 && rte_intr_fd_set(j.h, fd) == 0 &&
	    rte_intr_type_set(j.h, RTE_INTR_HANDLE_EXT) == 0 &&
	    rte_intr_callback_register(j.h, run_job, &j) == 0) {
		registered = true;
		kick_and_wait(&j, fd);
		while (rte_intr_callback_unregister(j.h, run_job, &j) ==
		       -EAGAIN)
			usleep(POLL_US);
	}
	rte_intr_instance_free(j.h);
	if (fd >= 0)
		close(fd);
	return registered && j.done ? 0 : -1;
}
