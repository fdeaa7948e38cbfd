/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm calls rxd does not implement, failing cleanly with ENOSYS:
 * ECE (enhanced connection establishment).  rdma_notify
 * succeeds: rxd learns of early data itself (rxd_cm_id.c).
 */
#include <errno.h>

#include <rdma/rdma_cma.h>

int
rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	(void)id; (void)event;
	return 0;
}

int
rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id; (void)ece;
	errno = ENOSYS;
	return -1;
}

int
rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id; (void)ece;
	errno = ENOSYS;
	return -1;
}
