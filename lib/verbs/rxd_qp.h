/* SPDX-License-Identifier: BSD-3-Clause */
/* Queue pairs and address handles of lib/verbs. */
#ifndef RXD_QP_H
#define RXD_QP_H

#include "rxd_cq.h"
#include "rxd_qp_attr.h"
#include "rxd_qp_engine.h"
#include "rxd_wr_opcode.h"

struct wr_batch;

/** A QP: verbs handle (extended form), verbs-side state, engine core. */
struct rxd_qp {
	struct ibv_qp_ex qpx;         /**< starts with struct ibv_qp */
	/** ibv_wr_flush(): right after qpx, as in struct rxd_qp_ex_flush */
	void (*wr_flush)(struct ibv_qp_ex *qp, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level);
	struct rxd_qp_core core;
	struct rxd_qp_state st;       /**< attributes, for modify/query */
	struct ibv_qp_cap cap;        /**< what create granted */
	pthread_spinlock_t sq_lock;   /**< ibv_post_send is thread-safe */
	pthread_spinlock_t rq_lock;
	uint32_t sq_outstanding;      /**< posted, completion not polled */
	uint64_t send_ops_flags;      /**< IBV_QP_EX_WITH_* (ibv_wr_*) */
	struct wr_batch *wr_batch;    /**< WQEs between wr_start/complete */
	struct rxd_context *ctx;
	uint32_t events_delivered;    /**< affiliated async events */
	uint32_t mcast_attached;      /**< groups (ibv_attach_mcast) */
};

static inline struct rxd_qp *
rxd_qp(struct ibv_qp *qp)
{
	return (struct rxd_qp *)qp;
}

/** An address handle: where a UD send goes. */
struct rxd_ah {
	struct ibv_ah ibah;
	struct ibv_ah_attr attr;
};

/** verbs_context create_qp_ex operation. */
struct ibv_qp *rxd_verbs_create_qp_ex(struct ibv_context *context,
				      struct ibv_qp_init_attr_ex *attr);

/** ibv_context_ops post_send and post_recv operations. */
int rxd_verbs_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr);
int rxd_verbs_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);

/** Check one send WR against the QP; on success fill the WQE. */
int rxd_verbs_send_wqe(struct rxd_qp *qp, const struct ibv_send_wr *wr,
		       struct rxd_send_wqe *w);

/** Posting to the send queue needs RTS or later (ERR flushes). */
bool rxd_verbs_sq_open(const struct rxd_qp *qp);

/** Queue a built send WQE (caller holds sq_lock). @return 0 or ENOMEM. */
int rxd_verbs_sq_push(struct rxd_qp *qp, const struct rxd_send_wqe *w);

/**
 * Queue a built send WQE, applying a window bind or invalidation first
 * (caller holds sq_lock).  @return 0, ENOMEM or the bind's error.
 */
int rxd_verbs_sq_post(struct rxd_qp *qp, const struct rxd_send_wqe *w);

/**
 * Apply a BIND_MW or LOCAL_INV WQE (rxd_verbs_mw.c); 0 for other opcodes.
 * @return 0 or the errno value that refuses the work request.
 */
int rxd_verbs_mw_apply(struct rxd_qp *qp, const struct rxd_send_wqe *w);

/** Install ibv_alloc_mw, ibv_dealloc_mw and ibv_bind_mw. */
void rxd_verbs_mw_set_ops(struct ibv_context_ops *o);

/**
 * The QP is being destroyed: the type 2 windows bound through it are
 * invalidated, so that a QP made later at the same address gains none.
 */
void rxd_verbs_mw_qp_gone(const struct rxd_qp_core *qp);

/** A memory window is bound to mr (ibv_dereg_mr then fails EBUSY). */
bool rxd_verbs_mr_has_windows(const struct ibv_mr *mr);

/** Install the ibv_wr_* operations on an extended QP (rxd_verbs_qp_ex.c). */
int rxd_verbs_qp_ex_init(struct rxd_qp *qp);

/** Bytes of the ibv_wr_* staging area of an extended QP. */
size_t rxd_verbs_wr_batch_size(uint32_t max_send_wr);

/**
 * Check and copy a list of receive WRs into a ring (QP or SRQ); the first
 * refused one goes to bad_wr.  @return 0, EINVAL or ENOMEM.
 */
int rxd_verbs_recv_push(struct rte_ring *ring, uint32_t max_sge,
			struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);

/** ibv_context_ops post_srq_recv operation. */
int rxd_verbs_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr);

/** A QP starts or stops using an SRQ. */
struct rxd_srq_core *rxd_verbs_srq_attach(struct ibv_srq *srq);
void rxd_verbs_srq_detach(struct ibv_srq *srq);

#endif /* RXD_QP_H */
