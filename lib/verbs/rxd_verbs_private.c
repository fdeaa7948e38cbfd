/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verbs: the IBVERBS_PRIVATE_34 symbols other than ibv_query_gid_type
 * (which rxd_verbs_device.c answers).  Owns the ibv_cmd_* family,
 * execute_ioctl, __ioctl_final_num_attrs, _verbs_init_and_alloc_context,
 * verbs_open_device, verbs_init_cq, verbs_set_ops, verbs_uninit_context,
 * verbs_register_driver_34, __verbs_log, ibv_read_ibdev_sysfs_file and
 * verbs_allow_disassociate_destroy.
 *
 * This is rdma-core's interface to its providers (mlx5, rxe, ...): the
 * ibv_cmd_* calls write commands to /dev/infiniband/uverbsN.  rxd has no
 * such device and loads no providers, so none of it can do anything; the
 * symbols exist because a program linked with BIND_NOW does not start
 * unless every symbol it imports is found.  Each fails cleanly:
 *   - ibv_cmd_* and execute_ioctl return ENOSYS (errno value, also stored
 *     in errno), except ibv_cmd_poll_cq, which like ibv_poll_cq returns -1;
 *   - calls returning a pointer return NULL with errno ENOSYS;
 *   - ibv_read_ibdev_sysfs_file returns -1 with errno ENOSYS;
 *   - void calls do nothing (a provider registered through
 *     verbs_register_driver_34 is never used);
 *   - __ioctl_final_num_attrs returns the count it is given.
 * The parameter types of most of these live in rdma-core's driver.h and
 * kern-abi.h, which Debian does not install.  The ibv_cmd_* stubs are
 * therefore defined without parameters: every Linux C ABI leaves argument
 * cleanup to the caller, so a callee that reads no argument may be called
 * with any.
 */
#include <errno.h>

#include "rxd_verbs_compat.h"

bool verbs_allow_disassociate_destroy;

static int
no_kernel(void)
{
	errno = ENOSYS;
	return ENOSYS;
}

/* Provider commands that return 0 or an errno value. */
#define RXD_CMD_STUBS(X) \
	X(ibv_cmd_advise_mr) \
	X(ibv_cmd_alloc_dm) \
	X(ibv_cmd_alloc_mw) \
	X(ibv_cmd_alloc_pd) \
	X(ibv_cmd_attach_mcast) \
	X(ibv_cmd_close_xrcd) \
	X(ibv_cmd_create_ah) \
	X(ibv_cmd_create_counters) \
	X(ibv_cmd_create_cq) \
	X(ibv_cmd_create_cq_ex) \
	X(ibv_cmd_create_flow) \
	X(ibv_cmd_create_flow_action_esp) \
	X(ibv_cmd_create_qp) \
	X(ibv_cmd_create_qp_ex) \
	X(ibv_cmd_create_qp_ex2) \
	X(ibv_cmd_create_rwq_ind_table) \
	X(ibv_cmd_create_srq) \
	X(ibv_cmd_create_srq_ex) \
	X(ibv_cmd_create_wq) \
	X(ibv_cmd_dealloc_mw) \
	X(ibv_cmd_dealloc_pd) \
	X(ibv_cmd_dereg_mr) \
	X(ibv_cmd_destroy_ah) \
	X(ibv_cmd_destroy_counters) \
	X(ibv_cmd_destroy_cq) \
	X(ibv_cmd_destroy_flow) \
	X(ibv_cmd_destroy_flow_action) \
	X(ibv_cmd_destroy_qp) \
	X(ibv_cmd_destroy_rwq_ind_table) \
	X(ibv_cmd_destroy_srq) \
	X(ibv_cmd_destroy_wq) \
	X(ibv_cmd_detach_mcast) \
	X(ibv_cmd_free_dm) \
	X(ibv_cmd_get_context) \
	X(ibv_cmd_modify_cq) \
	X(ibv_cmd_modify_flow_action_esp) \
	X(ibv_cmd_modify_qp) \
	X(ibv_cmd_modify_qp_ex) \
	X(ibv_cmd_modify_srq) \
	X(ibv_cmd_modify_wq) \
	X(ibv_cmd_open_qp) \
	X(ibv_cmd_open_xrcd) \
	X(ibv_cmd_post_recv) \
	X(ibv_cmd_post_send) \
	X(ibv_cmd_post_srq_recv) \
	X(ibv_cmd_query_context) \
	X(ibv_cmd_query_device_any) \
	X(ibv_cmd_query_mr) \
	X(ibv_cmd_query_port) \
	X(ibv_cmd_query_qp) \
	X(ibv_cmd_query_srq) \
	X(ibv_cmd_read_counters) \
	X(ibv_cmd_reg_dm_mr) \
	X(ibv_cmd_reg_dmabuf_mr) \
	X(ibv_cmd_reg_mr) \
	X(ibv_cmd_req_notify_cq) \
	X(ibv_cmd_rereg_mr) \
	X(ibv_cmd_resize_cq)

#define RXD_CMD_DEFINE(name) \
	int name(void); \
	int name(void) { return no_kernel(); }

RXD_CMD_STUBS(RXD_CMD_DEFINE)

/* Like ibv_poll_cq(3): a negative count on failure. */
int
ibv_cmd_poll_cq(void)
{
	no_kernel();
	return -1;
}

#define RXD_CMD_ENTRY(name) { #name, name },

const struct rxd_verbs_stub rxd_verbs_private_stubs[] = {
	RXD_CMD_STUBS(RXD_CMD_ENTRY)
	{ NULL, NULL },
};

int
execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd)
{
	(void)context;
	(void)cmd;
	return no_kernel();
}

/* No command buffer is ever built here, so nothing is linked to @link. */
unsigned int
__ioctl_final_num_attrs(unsigned int num_attrs,
			struct ibv_command_buffer *link)
{
	(void)link;
	return num_attrs;
}

void *
_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
			      size_t alloc_size,
			      struct verbs_context *context_offset,
			      uint32_t driver_id)
{
	(void)device;
	(void)cmd_fd;
	(void)alloc_size;
	(void)context_offset;
	(void)driver_id;
	no_kernel();
	return NULL;
}

struct ibv_context *
verbs_open_device(struct ibv_device *device, void *private_data)
{
	(void)device;
	(void)private_data;
	no_kernel();
	return NULL;
}

void
verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
	      struct ibv_comp_channel *channel, void *cq_context)
{
	(void)cq;
	(void)context;
	(void)channel;
	(void)cq_context;
}

void
verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops)
{
	(void)vctx;
	(void)ops;
}

void
verbs_uninit_context(struct verbs_context *context)
{
	(void)context;
}

void
verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	(void)ops;
}

void
__verbs_log(struct verbs_context *ctx, uint32_t level, char *format, ...)
{
	(void)ctx;
	(void)level;
	(void)format;
}

int
ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			  struct verbs_sysfs_dev *sysfs_dev,
			  const char *fnfmt, ...)
{
	(void)buf;
	(void)size;
	(void)sysfs_dev;
	(void)fnfmt;
	errno = ENOSYS;
	return -1;
}
