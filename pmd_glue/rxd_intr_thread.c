/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_intr_thread_run (see rxd_intr_thread.h): an eventfd of our own is
 * registered as an interrupt source and written to; its callback runs the
 * function on EAL's interrupt thread and says so; the source is then
 * unregistered, so that rte_eal_cleanup() finds none of ours.  A thread
 * that does not answer within WAIT_MS (stuck in some PMD's callback) loses
 * the job: whichever side claims it first runs it, never both.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_interrupts.h>

#include "rxd_intr_thread.h"

#define POLL_US 100
#define WAIT_MS 5000

enum job_state { JOB_PENDING, JOB_TAKEN, JOB_DONE, JOB_CANCELLED };

struct intr_job {
	struct rte_intr_handle *h;
	void (*fn)(void *);
	void *arg;
	int state;                  /* enum job_state */
};

static bool
claim(struct intr_job *j, int to)
{
	int pending = JOB_PENDING;

	return __atomic_compare_exchange_n(&j->state, &pending, to, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void
run_job(void *arg)
{
	struct intr_job *j = arg;
	uint64_t v;

	if (read(rte_intr_fd_get(j->h), &v, sizeof(v)) != sizeof(v) ||
	    !claim(j, JOB_TAKEN))
		return;
	j->fn(j->arg);
	__atomic_store_n(&j->state, JOB_DONE, __ATOMIC_RELEASE);
}

/* Write the eventfd and wait: @return true once the job ran there. */
static bool
kick_and_wait(struct intr_job *j, int fd)
{
	uint64_t one = 1;
	long waited_us = 0;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		return false;
	for (;;) {
		switch (__atomic_load_n(&j->state, __ATOMIC_ACQUIRE)) {
		case JOB_DONE:
			return true;
		case JOB_PENDING:
			if (waited_us >= WAIT_MS * 1000L && claim(j, JOB_CANCELLED))
				return false;
			break;
		default:
			break;
		}
		usleep(POLL_US);
		waited_us += POLL_US;
	}
}

int
rxd_intr_thread_run(void (*fn)(void *), void *arg)
{
	struct intr_job j = { .fn = fn, .arg = arg, .state = JOB_PENDING };
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	bool ran = false;

	j.h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (j.h != NULL && fd >= 0 && rte_intr_fd_set(j.h, fd) == 0 &&
	    rte_intr_type_set(j.h, RTE_INTR_HANDLE_EXT) == 0 &&
	    rte_intr_callback_register(j.h, run_job, &j) == 0) {
		ran = kick_and_wait(&j, fd);
		while (rte_intr_callback_unregister(j.h, run_job, &j) ==
		       -EAGAIN)
			usleep(POLL_US);
	}
	rte_intr_instance_free(j.h);
	if (fd >= 0)
		close(fd);
	return ran ? 0 : -1;
}
