/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_rereg_mr: change an MR's translation (address and length), its
 * protection domain and its access rights, in any combination.
 *
 * Return codes follow ibv_rereg_mr(3) as libibverbs and a provider give
 * them: what libibverbs itself checks (unknown flag, a translation
 * without address or length, access flags without CHANGE_ACCESS) is
 * IBV_REREG_MR_ERR_INPUT; what the provider or kernel refuses (no flag,
 * bad access rights or range, no PD, memory windows bound, no memory) is
 * IBV_REREG_MR_ERR_CMD; errno says why.  rxd changes nothing before every
 * check has passed, so after any failure the MR is still registered as
 * before and usable (the man page promises that only for ERR_INPUT).
 *
 * The keys never change.  The new registration is a new key-table entry
 * put in the place of the old one (rxd_mr_replace()): an engine sees the
 * old or the new one whole.  rereg returns after every engine has passed
 * (rxd_sync_engines()), so from then on nothing touches the old range.
 * A remote message already under way goes on with the new entry only if
 * that maps the rest of it to the same bytes with the same right (an
 * access or PD change that keeps them); otherwise its later packets are
 * refused with a remote access error (WRITE) or not answered (READ):
 * a message never lands partly in the old range and partly in the new.
 */
#include <errno.h>
#include <stdlib.h>

#include "rxd/rxd_flush.h"
#include "rxd_mr.h"
#include "rxd_qp.h"
#include "rxd_verbs.h"

/* What libibverbs refuses before asking the provider (an errno or 0). */
static int
input_error(int flags, const void *addr, size_t length, int access)
{
	if (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED)
		return EINVAL;
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
	    (addr == NULL || length == 0))
		return EINVAL;
	if (access && !(flags & IBV_REREG_MR_CHANGE_ACCESS))
		return EINVAL;
	return 0;
}

/* What the provider refuses (an errno or 0). */
static int
command_error(const struct rxd_mr *mr, int flags, const struct ibv_pd *pd,
	      const void *addr, size_t length, int access)
{
	if (flags == 0)
		return EINVAL;
	if ((flags & IBV_REREG_MR_CHANGE_ACCESS) &&
	    rxd_verbs_mr_access_error((unsigned int)access) != 0)
		return EINVAL;
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) &&
	    (uintptr_t)addr + length < length)
		return EINVAL;
	if ((flags & IBV_REREG_MR_CHANGE_PD) &&
	    (pd == NULL || pd->context != mr->ibmr.context))
		return EINVAL;
	if (rxd_verbs_mr_has_windows(&mr->ibmr))
		return EBUSY;
	return 0;
}

/* The registration after the change (not yet published). */
static struct rxd_mr *
changed(const struct rxd_mr *mr, int flags, struct ibv_pd *pd, void *addr,
	size_t length, int access)
{
	struct rxd_mr *next = malloc(sizeof(*next));

	if (next == NULL)
		return NULL;
	*next = *mr;
	next->current = NULL;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		next->ibmr.addr = addr;
		next->ibmr.length = length;
		next->iova = (uintptr_t)addr;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		next->ibmr.pd = pd;
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		next->access = (unsigned int)access & RXD_MR_ACCESS_KNOWN;
	return next;
}

/* The handle the application holds takes the new registration's values
 * (it is out of the key table once the first rereg has returned). */
static void
adopt(struct rxd_mr *mr, struct rxd_mr *next)
{
	struct ibv_pd *old_pd = mr->ibmr.pd;

	if (next->ibmr.pd != old_pd) {
		__atomic_add_fetch(&rxd_pd(next->ibmr.pd)->users, 1,
				   __ATOMIC_RELEASE);
		__atomic_sub_fetch(&rxd_pd(old_pd)->users, 1,
				   __ATOMIC_RELEASE);
	}
	mr->ibmr.addr = next->ibmr.addr;
	mr->ibmr.length = next->ibmr.length;
	mr->ibmr.pd = next->ibmr.pd;
	mr->iova = next->iova;
	mr->access = next->access;
	mr->current = next;
}

int
ibv_rereg_mr(struct ibv_mr *ibmr, int flags, struct ibv_pd *pd, void *addr,
	     size_t length, int access)
{
	struct rxd_mr *mr = (struct rxd_mr *)ibmr, *prev, *next;
	int err = input_error(flags, addr, length, access);

	if (err != 0) {
		errno = err;
		return IBV_REREG_MR_ERR_INPUT;
	}
	err = command_error(mr, flags, pd, addr, length, access);
	if (err == 0 &&
	    (next = changed(mr, flags, pd, addr, length, access)) == NULL)
		err = ENOMEM;
	if (err != 0) {
		errno = err;
		return IBV_REREG_MR_ERR_CMD;
	}
	prev = mr->current;
	rxd_mr_replace(prev, next);
	rxd_sync_engines();
	if (prev != mr)
		free(prev);
	adopt(mr, next);
	return 0;
}
