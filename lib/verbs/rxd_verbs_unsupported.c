/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verbs: the exported (not static inline) verbs that rxd does not
 * offer.  Owns ibv_import_device,
 * ibv_import_pd, ibv_import_mr, ibv_import_dm, ibv_unimport_pd,
 * ibv_unimport_mr, ibv_unimport_dm, ibv_reg_dmabuf_mr, ibv_set_ece,
 * ibv_query_ece, ibv_query_qp_data_in_order and
 * ibv_resolve_eth_l2_from_gid.
 *
 * Each fails the way its man page reports failure: a call returning a
 * pointer gives NULL with errno set, a call returning int gives the errno
 * value (and stores it in errno too).  "Not supported" is EOPNOTSUPP,
 * the code libibverbs itself uses when a provider lacks an operation.  The
 * static inline
 * verbs of <infiniband/verbs.h> (XRC, WQ, RSS tables, flows, counters,
 * DM, MW, parent domains, TD, ...) need no symbol: they report EOPNOTSUPP
 * themselves when the verbs_context operation is NULL.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* Set errno to EOPNOTSUPP and give the NULL a failed creation returns. */
static void *
unsupported_ptr(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

/* Store @err in errno as well, for callers that look there. */
static int
unsupported_int(int err)
{
	errno = err;
	return err;
}

/*
 * Import and unimport share objects between processes through the kernel
 * command FD and object handles; rxd objects live in one process.  No
 * import succeeds, so an unimport can only see an object that was not
 * imported and leaves it alone.
 */
struct ibv_context *
ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	return unsupported_ptr();
}

struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	(void)context;
	(void)pd_handle;
	return unsupported_ptr();
}

struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	return unsupported_ptr();
}

struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	(void)context;
	(void)dm_handle;
	return unsupported_ptr();
}

void
ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

void
ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

void
ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

/* dma-buf regions are device memory exported by a GPU/NIC driver. */
struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
		  uint64_t iova, int fd, int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	return unsupported_ptr();
}

/*
 * Enhanced Connection Establishment: no vendor options to negotiate.
 * librdmacm calls both on every connection and goes on when they fail,
 * except that a failed ibv_set_ece with errno ECONNREFUSED rejects the
 * connection; errno is therefore set too, to EOPNOTSUPP.
 */
int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return unsupported_int(EOPNOTSUPP);
}

int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return unsupported_int(EOPNOTSUPP);
}

/*
 * No in-order guarantee is given: the engines place payloads with memcpy,
 * whose stores other CPUs may observe in any order within a message.  0 is
 * the man page's "not guaranteed", also the answer for unknown flags.
 */
int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			   uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;
}

/*
 * Neighbour resolution for providers building RoCE address vectors from
 * the kernel's tables.  rxd resolves MACs in its own network layer, not
 * through this call.  Like the rdma-core one on its failure paths, it
 * returns a negative errno value; errno is set as well.
 */
int
ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
			    struct ibv_ah_attr *attr,
			    uint8_t eth_mac[ETHERNET_LL_SIZE], uint16_t *vid)
{
	(void)context;
	(void)attr;
	(void)eth_mac;
	(void)vid;
	return -unsupported_int(EOPNOTSUPP);
}
