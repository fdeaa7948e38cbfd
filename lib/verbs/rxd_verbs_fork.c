/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verbs: fork support.  Owns ibv_fork_init, ibv_is_fork_initialized,
 * ibv_dontfork_range and ibv_dofork_range.
 *
 * With a kernel verbs driver, fork() is a hazard because the adapter keeps
 * DMA-ing into the physical pages pinned at registration while
 * copy-on-write may hand those pages to the child; ibv_fork_init (or
 * RDMAV_FORK_SAFE / IBV_FORK_SAFE) makes registration madvise(MADV_DONTFORK)
 * the regions.  rxd has no device DMA: its engines are threads of the
 * registering process and reach a memory region through the process's own
 * page tables, so after fork() they keep writing the parent's pages as any
 * other thread would.  Nothing needs preparing, hence the answer
 * IBV_FORK_UNNEEDED (the man page's "a call to ibv_fork_init() is
 * unneeded"), ibv_fork_init() returning 0 at any time (also after memory
 * was registered: there is no EINVAL case) and the two range calls doing
 * nothing.  RDMAV_FORK_SAFE and IBV_FORK_SAFE are accepted and ignored.
 * The child of a fork cannot use rxd objects of its parent (the engine
 * threads do not exist there); that is the rdma-core rule too.  rxd also
 * cannot start a second stack in such a child (EAL starts once per
 * process), so the lazy start (rxd_verbs_start.c) refuses there.
 */
#include "rxd_verbs_compat.h"

int
ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int
ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

int
ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}
