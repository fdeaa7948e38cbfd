/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibv_attach_mcast and ibv_detach_mcast: a UD QP joins or leaves a RoCE
 * multicast group, an IPv4-mapped (224.0.0.0/4) or IPv6 (ff00::/8) GID;
 * the LID is not used on RoCE.  Errors as the kernel's uverbs gives them
 * (the man pages say only "the value of errno"): EINVAL for a QP that is
 * not UD, a GID that is not multicast, or a detach of a group the QP is
 * not attached to; ENOMEM past max_mcast_grp or max_mcast_qp_attach.
 * Attaching twice succeeds once.  A QP with attachments is not destroyed
 * (EBUSY).  The engine holds the table (lib/engine/rxd_mcast.c).
 */
#include <errno.h>

#include "rxd_mcast.h"
#include "rxd_qp.h"

static int
fail(int err)
{
	errno = err;
	return err;
}

static int
check(const struct ibv_qp *qp, const union ibv_gid *gid)
{
	if (qp == NULL || gid == NULL || qp->qp_type != IBV_QPT_UD ||
	    !rxd_gid_is_mcast(gid->raw))
		return EINVAL;
	return 0;
}

int
ibv_attach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid, uint16_t lid)
{
	struct rxd_qp *qp = rxd_qp(ibqp);
	int rc = check(ibqp, gid);

	(void)lid;
	if (rc != 0)
		return fail(rc);
	rc = rxd_mcast_attach(&qp->core, gid->raw);
	if (rc == -EALREADY)
		return 0;
	if (rc != 0)
		return fail(rc == -ENODEV ? ENODEV :
			    rc == -EOPNOTSUPP ? EOPNOTSUPP : ENOMEM);
	__atomic_add_fetch(&qp->mcast_attached, 1, __ATOMIC_RELAXED);
	return 0;
}

int
ibv_detach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid, uint16_t lid)
{
	struct rxd_qp *qp = rxd_qp(ibqp);
	int rc = check(ibqp, gid);

	(void)lid;
	if (rc != 0)
		return fail(rc);
	rc = rxd_mcast_detach(&qp->core, gid->raw);
	if (rc != 0)
		return fail(rc == -ENODEV ? ENODEV : EINVAL);
	__atomic_sub_fetch(&qp->mcast_attached, 1, __ATOMIC_RELAXED);
	return 0;
}
