/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The contract between application threads and engines for the data path:
 * the work queue entries copied into a QP's send and receive rings at post
 * time, the completion entries an engine puts in a CQ ring, and the CQ's
 * engine-side state (arming, overrun).  Rings are rte_ring, single
 * producer / single consumer, with fixed-size elements.
 *
 * Verbs types (struct ibv_wc, ibv_sge, opcodes) are the API's own, so the
 * same values travel from ibv_post_send to the wire and back to ibv_poll_cq.
 */
#ifndef RXD_WQ_H
#define RXD_WQ_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rte_atomic.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#define RXD_MAX_SGE 16
#define RXD_MAX_INLINE 256
/** READ/atomic depth either way (Soft-RoCE's 128: perftest passes the
 * peer's value as max_rd_atomic). */
#define RXD_MAX_RD_ATOMIC 128

/** A send work request as the engine sees it. */
struct rxd_send_wqe {
	uint64_t wr_id;
	uint8_t opcode;             /**< enum ibv_wr_opcode */
	uint8_t num_sge;            /**< 0 when inline */
	uint16_t flags;             /**< enum ibv_send_flags */
	uint32_t length;            /**< total bytes (inline or SGEs) */
	uint32_t imm_or_rkey;       /**< imm_data (network order) or invalidate rkey */
	uint32_t rkey;              /**< RDMA / atomic remote key */
	uint64_t remote_addr;
	uint64_t compare_add;
	uint64_t swap;
	uint8_t flush_type;         /**< FLUSH: placement type (RXD_FLUSH_*) */
	uint8_t flush_level;        /**< FLUSH: RXD_FLUSH_RANGE or _MR */
	struct {                    /**< UD destination */
		uint8_t dgid[16];
		uint8_t sgid_index;
		uint8_t hop_limit;
		uint8_t traffic_class;
		uint32_t flow_label;
		uint32_t remote_qpn;
		uint32_t remote_qkey;
	} ud;
	union {
		struct ibv_sge sge[RXD_MAX_SGE];
		uint8_t inline_data[RXD_MAX_INLINE];
		struct {            /**< BIND_MW: lib/verbs applies it at post */
			struct ibv_mw *mw;
			struct ibv_mw_bind_info info;
		} bind;
	};
};

/** A receive work request. */
struct rxd_recv_wqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t length;            /**< sum of the SGE lengths */
	struct ibv_sge sge[RXD_MAX_SGE];
};

/** A completion: the verbs work completion plus the extended fields. */
struct rxd_cqe {
	struct ibv_wc wc;
	uint64_t ts;                /**< TSC at completion */
	uint32_t sq_retired;        /**< send slots this completion frees */
	uint32_t pad;
};

/** Why a CQ wakes its owner (the verbs layer). */
enum rxd_cq_event {
	RXD_CQ_EV_COMP,            /**< armed CQ got a completion */
	RXD_CQ_EV_OVERRUN,         /**< ring full: IBV_EVENT_CQ_ERR */
};

/** Engine-facing part of a CQ. */
struct rxd_cq_core {
	struct rte_ring *ring;      /**< of struct rxd_cqe */
	uint32_t armed;             /**< 0, or 1 + solicited_only */
	bool overrun;               /**< an overrun was reported */
	/** the owner reads completion timestamps: each completion is
	 *  stamped by a TSC read of its own, never earlier than its WR was
	 *  posted (else the engine's clock of the pass does) */
	bool stamped;
	void (*event)(struct rxd_cq_core *cq, enum rxd_cq_event ev);
};

/** Engine-facing part of a shared receive queue. */
struct rxd_srq_core {
	struct rte_ring *ring;      /**< of struct rxd_recv_wqe */
	uint32_t limit;             /**< armed limit, 0 = not armed */
	void (*event)(struct rxd_srq_core *srq, enum ibv_event_type ev);
};

/**
 * Arm a CQ for its next completion (owner side).  The owner polls the CQ
 * after arming: a completion either is seen by that poll or finds the CQ
 * armed (the fence pairs with the one in rxd_cq_complete()).
 */
static inline void
rxd_cq_arm(struct rxd_cq_core *cq, bool solicited_only)
{
	__atomic_store_n(&cq->armed, solicited_only ? 2u : 1u,
			 __ATOMIC_RELEASE);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/**
 * Deliver a completion to a CQ (engine side).  Wakes an armed CQ (any
 * completion, or only a solicited one / an error when armed for solicited).
 * @return 0, or -ENOSPC if the CQ ring is full (reported once as overrun).
 */
static inline int
rxd_cq_complete(struct rxd_cq_core *cq, const struct rxd_cqe *cqe,
		bool solicited)
{
	uint32_t armed;

	if (rte_ring_enqueue_elem(cq->ring, (void *)(uintptr_t)cqe,
				     sizeof(*cqe)) != 0) {
		if (!cq->overrun) {
			cq->overrun = true;
			cq->event(cq, RXD_CQ_EV_OVERRUN);
		}
		return -ENOSPC;
	}
	/* Dekker with rxd_cq_arm(): the CQE is visible before armed is
	 * read, so an owner that arms and then polls cannot miss both. */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	armed = __atomic_load_n(&cq->armed, __ATOMIC_ACQUIRE);
	if (armed == 0)
		return 0;
	if (armed == 2 && !solicited && cqe->wc.status == IBV_WC_SUCCESS)
		return 0;
	if (__atomic_exchange_n(&cq->armed, 0, __ATOMIC_ACQ_REL) != 0)
		cq->event(cq, RXD_CQ_EV_COMP);
	return 0;
}

#endif /* RXD_WQ_H */
