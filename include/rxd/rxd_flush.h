/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The verbs values of FLUSH (IBTA 1.5 memory placement) that Debian 12's
 * libibverbs 44.0 headers lack (rdma-core added them in v45), with the
 * numbers rdma-core gives them, so that rxd and programs built against
 * 44.0 can use FLUSH and programs built against newer headers work
 * unchanged.  ATOMIC WRITE is in 44.0 already (IBV_WR_ATOMIC_WRITE,
 * IBV_WC_ATOMIC_WRITE, IBV_QP_EX_WITH_ATOMIC_WRITE, ibv_wr_atomic_write()).
 *
 * The names carry rxd's prefix: a newer <infiniband/verbs.h> defines the
 * IBV_ ones as enumerators, which a macro of the same name would break.
 */
#ifndef RXD_FLUSH_H
#define RXD_FLUSH_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/** enum ibv_wr_opcode: IBV_WR_FLUSH. */
#define RXD_WR_FLUSH 14
/** enum ibv_wc_opcode: IBV_WC_FLUSH. */
#define RXD_WC_FLUSH 8
/** enum ibv_access_flags: IBV_ACCESS_FLUSH_GLOBAL (FLUSH for visibility). */
#define RXD_ACCESS_FLUSH_GLOBAL (1 << 8)
/** enum ibv_access_flags: IBV_ACCESS_FLUSH_PERSISTENT (for persistence). */
#define RXD_ACCESS_FLUSH_PERSISTENT (1 << 9)
/** enum ibv_qp_create_send_ops_flags: IBV_QP_EX_WITH_FLUSH. */
#define RXD_QP_EX_WITH_FLUSH (1ull << 11)
/** device_cap_flags_ex: IB_UVERBS_DEVICE_FLUSH_GLOBAL. */
#define RXD_DEVICE_FLUSH_GLOBAL (1ull << 38)
/** device_cap_flags_ex: IB_UVERBS_DEVICE_FLUSH_PERSISTENT. */
#define RXD_DEVICE_FLUSH_PERSISTENT (1ull << 39)
/** device_cap_flags_ex: IB_UVERBS_DEVICE_ATOMIC_WRITE. */
#define RXD_DEVICE_ATOMIC_WRITE (1ull << 40)

/** ibv_wr_flush() type: IBV_FLUSH_GLOBAL, IBV_FLUSH_PERSISTENT (a mask). */
#define RXD_FLUSH_GLOBAL 1
#define RXD_FLUSH_PERSISTENT 2
/** ibv_wr_flush() level: IBV_FLUSH_RANGE (the range), IBV_FLUSH_MR (all). */
#define RXD_FLUSH_RANGE 0
#define RXD_FLUSH_MR 1

/**
 * struct ibv_qp_ex as rdma-core v45 extends it: wr_flush follows
 * wr_atomic_write.  rxd's extended QPs have this layout, so
 * rxd_wr_flush() (and a newer header's ibv_wr_flush()) reaches it.
 */
struct rxd_qp_ex_flush {
	struct ibv_qp_ex qpx;
	/** ibv_wr_flush(): a FLUSH of [remote_addr, +len) (level RANGE) or
	 *  of the whole MR of rkey (level MR), for placement type(s) type. */
	void (*wr_flush)(struct ibv_qp_ex *qp, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level);
};

/** ibv_wr_flush() for programs built against libibverbs 44.0 headers. */
static inline void
rxd_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
	     size_t len, uint8_t type, uint8_t level)
{
	((struct rxd_qp_ex_flush *)qp)->wr_flush(qp, rkey, remote_addr, len,
						 type, level);
}

#ifdef __cplusplus
}
#endif

#endif /* RXD_FLUSH_H */
