/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The functions of the compat libibverbs.so.1 ABI that no installed header
 * declares: rdma-core keeps their prototypes in its private marshall.h,
 * sysfs.h, driver.h and kern-abi.h, which Debian does not install.  Their
 * definitions in lib/verbs and the unit test that calls them
 * (tests/verbs/test_verbs_leaf.c) include this one header, so the two
 * cannot drift apart.  const on the kernel-structure sources does not
 * change the ABI.
 */
#ifndef RXD_VERBS_COMPAT_H
#define RXD_VERBS_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/sa.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_sa.h>
#include <rdma/ib_user_verbs.h>

/* rxd_verbs_sysfs.c */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);

/* rxd_verbs_kern.c */
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				const struct ib_uverbs_ah_attr *src);
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				const struct ib_uverbs_qp_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 const struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       const struct ibv_sa_path_rec *src);

/* rxd_verbs_fork.c */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/*
 * rxd_verbs_private.c: IBVERBS_PRIVATE_34, rdma-core's interface to its
 * providers.  The ibv_cmd_* stubs take no parameters (see there) and are
 * listed in rxd_verbs_private_stubs for the unit test.
 */
struct ibv_command_buffer;
struct verbs_device_ops;
struct verbs_context_ops;
struct verbs_sysfs_dev;

/** A parameterless stub and its name. */
struct rxd_verbs_stub {
	const char *name;
	int (*fn)(void);
};

/** Every ibv_cmd_* stub returning ENOSYS, NULL-terminated. */
extern const struct rxd_verbs_stub rxd_verbs_private_stubs[];

/** rdma-core's switch for destroying objects of a disassociated device. */
extern bool verbs_allow_disassociate_destroy;

int ibv_cmd_poll_cq(void);
int execute_ioctl(struct ibv_context *context,
		  struct ibv_command_buffer *cmd);
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
				     struct ibv_command_buffer *link);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
struct ibv_context *verbs_open_device(struct ibv_device *device,
				      void *private_data);
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);
void verbs_uninit_context(struct verbs_context *context);
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 char *format, ...);
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...);

#endif /* RXD_VERBS_COMPAT_H */
