/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verbs: the libibverbs API and ABI over rxd.  This header owns the
 * provider-side objects behind the verbs handles (device, context, PD, MR,
 * CQ, QP) and the helpers the rxd_verbs_*.c files share.  Applications see
 * only <infiniband/verbs.h>.
 */
#ifndef RXD_VERBS_H
#define RXD_VERBS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rxd/rxd.h"
#include "rxd_wq.h"

/*
 * The vendor's IEEE OUI (IBTA vendor information).  rxd has none and
 * reports 0xFFFFFF, as Linux Soft-RoCE (rdma_rxe) does (kernel 6.1;
 * older kernels gave 0): programs that key on the vendor (SPDK, the
 * rdma-core tests, perftest) take the software-RoCE path rxd matches,
 * never an mlx5 or EFA one, and 0, which the rdma-core tests read as
 * "no vendor", is gone.
 */
#define RXD_VENDOR_ID 0xFFFFFF
#define RXD_VENDOR_PART_ID 0x7278    /* "rx" */
#define RXD_MAX_PD (1u << 20)
#define RXD_MAX_AH (1u << 20)
#define RXD_MAX_MSG_SZ 0x80000000u
#define RXD_LOCAL_ACK_DELAY 15
#define RXD_GID_TBL_LEN 16
#define RXD_PKEY_TBL_LEN 1

/** One verbs device per rxd port: rxd0, rxd1, ... */
struct rxd_device {
	struct ibv_device ibdev;
	unsigned int port;          /**< rxd port index */
	uint64_t guid;              /**< EUI-64 of the port MAC, big-endian */
};

/** Asynchronous event waiting for ibv_get_async_event(). */
struct rxd_async_event {
	struct ibv_async_event ev;
	struct rxd_async_event *next;
};

/** An opened device. The verbs_context must come first. */
struct rxd_context {
	struct verbs_context vctx;
	struct rxd_device *dev;
	uint32_t ib_mtu;            /**< active IB MTU in bytes (UD limit) */
	pthread_mutex_t async_lock;
	struct rxd_async_event *async_head, *async_tail;
	unsigned int n_pd, n_mr, n_cq, n_qp, n_srq, n_ah;
	struct rxd_context *next;   /**< in rxd_verbs.contexts */
};

struct rxd_pd {
	struct ibv_pd ibpd;
	unsigned int users;         /**< MRs, QPs, SRQs, AHs on it */
};

/** Everything lib/verbs knows of the running device set. */
struct rxd_verbs {
	pthread_mutex_t lock;
	unsigned int n_devices;
	struct rxd_device *devices;
	struct rxd_conf conf;       /**< limits advertised by query_device */
	struct rxd_context *contexts; /**< open contexts, for port events */
};

extern struct rxd_verbs rxd_verbs;

static inline struct rxd_context *
rxd_ctx(struct ibv_context *c)
{
	return (struct rxd_context *)((char *)c -
		__builtin_offsetof(struct rxd_context, vctx.context));
}

static inline struct rxd_pd *
rxd_pd(struct ibv_pd *pd)
{
	return (struct rxd_pd *)pd;
}

/**
 * Make sure rxd runs: start EAL from RXD_EAL_ARGS if the program has not
 * started it, then rxd from RXD_CONFIG/RXD_* (lazy start for unmodified
 * verbs programs).  @return 0 or an errno value.
 */
int rxd_verbs_start(void);

/**
 * Give an EAL command line (in a buffer of len bytes) that names no
 * --file-prefix and no --in-memory a prefix of its own, "rxd-PID", removed
 * again by rxd_eal_prefix_remove().  @return 0, or E2BIG.
 */
int rxd_eal_args_own_prefix(char *args, size_t len);

/**
 * Before EAL starts from args: wait, at most wait_ms, for a process that
 * still holds the named file prefix or listens on a memif server socket
 * of args; remove such a socket file when nobody listens on it.
 */
void rxd_eal_args_wait_predecessor(const char *args, long wait_ms);

/** After rte_eal_cleanup(): remove the runtime directory of an own prefix. */
void rxd_eal_prefix_remove(void);

/**
 * True in the child of a fork() made after rxd started in the parent:
 * rxd's engines are threads of the parent and the child has none.
 */
bool rxd_verbs_fork_child(void);

/** Fill attributes that query_device and query_device_ex share. */
void rxd_verbs_device_attr(struct rxd_context *ctx,
			   struct ibv_device_attr *attr);

/** Queue an asynchronous event for ibv_get_async_event(). */
void rxd_verbs_async_push(struct rxd_context *ctx,
			  const struct ibv_async_event *ev);

/** Drop the queued (not yet delivered) events of a QP being destroyed. */
void rxd_verbs_async_forget_qp(struct rxd_context *ctx, struct ibv_qp *qp);

/** verbs_context query_port operation (also behind ibv_query_port). */
int rxd_verbs_query_port(struct ibv_context *context, uint8_t port_num,
			 struct ibv_port_attr *port_attr, size_t port_attr_len);

/** verbs_context query_device_ex operation. */
int rxd_verbs_query_device_ex(struct ibv_context *context,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr, size_t attr_size);

/** Take the wall-clock anchor of completion timestamps (once). */
void rxd_verbs_clock_init(void);

/** A completion's TSC stamp as CLOCK_REALTIME nanoseconds. */
uint64_t rxd_verbs_wallclock_ns(uint64_t tsc);

/** verbs_context query_rt_values operation: the TSC as raw clock. */
int rxd_verbs_query_rt_values(struct ibv_context *context,
			      struct ibv_values_ex *values);

/**
 * The access flags an MR keeps.  RXD_ACCESS_FLUSH_PERSISTENT is not among
 * them: rxd's memory is not persistent, so it is refused with EINVAL, as
 * Soft-RoCE refuses it for memory that is not persistent.
 */
#define RXD_MR_ACCESS_KNOWN (IBV_ACCESS_LOCAL_WRITE | \
	IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
	IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | \
	IBV_ACCESS_RELAXED_ORDERING | RXD_ACCESS_FLUSH_GLOBAL)

/**
 * Why an MR may not have these access flags (EINVAL: unknown flag, or a
 * remote write or atomic right without local write), or 0.
 */
int rxd_verbs_mr_access_error(unsigned int access);

/** Install the verbs_context operations (rxd_verbs_ops.c). */
void rxd_verbs_set_ops(struct rxd_context *ctx);

/**
 * An SP/SC ring of entries (at least 1) elements of esize bytes, for a
 * work queue or a CQ, in rte_malloc memory (rxd_verbs_ring.c); kind names
 * it ("sq", "rq", "srq", "cq").  NULL when memory is short.
 */
struct rte_ring *rxd_verbs_ring(const char *kind, uint32_t entries,
				size_t esize);

/**
 * A ring for a CQ or an SRQ of a port: rxd_verbs_ring()'s, except that
 * when several engines share the port (rxd_port_engines()) a CQ's takes
 * completions from all of them (multi-producer) and an SRQ's gives them
 * receive WQEs (multi-consumer).
 */
struct rte_ring *rxd_verbs_ring_shared(const char *kind, unsigned int port,
				       uint32_t entries, size_t esize);

/** Free a ring of rxd_verbs_ring() (NULL is fine). */
void rxd_verbs_ring_free(struct rte_ring *r);

#endif /* RXD_VERBS_H */
