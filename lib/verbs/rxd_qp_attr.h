/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP attributes and the QP state machine as ibv_modify_qp() sees them: the
 * table of legal transitions with the required and optional attribute masks
 * per QP type (IBTA vol. 1 11.2.5, the same table Linux's ib_modify_qp_is_ok
 * and therefore Soft-RoCE apply), the range check of every attribute value,
 * and applying a checked request to the attributes the QP keeps (and
 * ibv_query_qp() returns).  Pure logic over the verbs header types: no
 * locking, no engine, no DPDK.
 *
 * Supported QP types: IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD.  Not supported, so
 * refused with EINVAL: alternate paths (no automatic path migration),
 * IBV_QP_CAP (no resizing of a QP's queues), IBV_QP_RATE_LIMIT.
 */
#ifndef RXD_QP_ATTR_H
#define RXD_QP_ATTR_H

#include <stdint.h>

#include <infiniband/verbs.h>

/** PSNs are 24 bits; wider values are masked, not refused (Soft-RoCE). */
#define RXD_QP_PSN_MASK 0xffffffu

/** Largest QP number (24 bits). */
#define RXD_QP_QPN_MAX 0xffffffu

/** Limits of the device/port the QP lives on. */
struct rxd_qp_limits {
	enum ibv_mtu max_mtu;        /**< largest path MTU (IBV_MTU_4096) */
	uint32_t gid_tbl_len;        /**< entries in the port's GID table */
	uint16_t pkey_tbl_len;       /**< entries in the P_Key table (1) */
	uint8_t phys_port_cnt;       /**< ports of the device (1) */
	uint8_t max_rd_atomic;       /**< max_qp_rd_atom (e.g. 16) */
	uint8_t max_dest_rd_atomic;  /**< max_qp_init_rd_atom */
	uint32_t max_send_wr;        /**< limits of ibv_create_qp() ... */
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;    /**< ... not used by modify (no resize) */
};

/** What the QP keeps of its attributes (returned by ibv_query_qp()). */
struct rxd_qp_state {
	enum ibv_qp_type type;  /**< IBV_QPT_RC, IBV_QPT_UC or IBV_QPT_UD */
	/**
	 * Current values; attr.qp_state (and attr.cur_qp_state, kept equal to
	 * it) is the current state.  attr.cap is set by create and never
	 * changed here; attr.sq_draining belongs to whoever drains the SQ.
	 */
	struct ibv_qp_attr attr;
};

/**
 * Initialise a QP's state in RESET for its type: every attribute zero
 * (attr.cap too: the caller sets it from ibv_create_qp()'s result).
 *
 * @param qp    the state to initialise
 * @param type  the QP type
 */
void rxd_qp_state_init(struct rxd_qp_state *qp, enum ibv_qp_type type);

/**
 * Look up a transition in the table.
 *
 * @param type  QP type
 * @param from  current state
 * @param to    requested state (equal to from when IBV_QP_STATE is absent)
 * @param req   if not NULL and the transition is legal: the attributes it
 *              requires (IBV_QP_STATE not included)
 * @param opt   if not NULL and the transition is legal: the attributes it
 *              also allows (IBV_QP_STATE, always allowed, not included)
 * @return 0 if the transition is legal for the type, EINVAL if not (also
 *         for an unsupported type or a state outside RESET..ERR)
 */
int rxd_qp_transition_masks(enum ibv_qp_type type, enum ibv_qp_state from,
			    enum ibv_qp_state to, int *req, int *opt);

/**
 * Check an ibv_modify_qp() request against the current state: the transition
 * (current state to attr->qp_state, or to the current state when attr_mask
 * lacks IBV_QP_STATE) must be legal for the QP type, attr_mask must contain
 * every required attribute and nothing outside required|optional|STATE for
 * that transition, IBV_QP_CUR_STATE (where the table allows it) must name the
 * current state, and every masked value must be in range for lim.
 *
 * @return 0, or EINVAL for everything the man page calls invalid (including
 *         alternate paths, IBV_QP_CAP and an unsupported QP type)
 */
int rxd_qp_attr_check(const struct rxd_qp_state *qp,
		      const struct ibv_qp_attr *attr, int attr_mask,
		      const struct rxd_qp_limits *lim);

/**
 * Apply a request rxd_qp_attr_check() accepted: copy the masked attributes
 * into qp->attr, mask the PSNs to 24 bits, set the new state.  Moving to
 * RESET restores the defaults (every attribute zero, attr.cap kept); moving
 * to ERR keeps the attributes.
 */
void rxd_qp_attr_apply(struct rxd_qp_state *qp,
		       const struct ibv_qp_attr *attr, int attr_mask);

/**
 * Name of an attribute for error messages (e.g. the missing or the extra
 * attributes of a refused request).
 *
 * @param mask_bit  an attribute mask; its lowest set bit is named
 * @return "IBV_QP_PATH_MTU" etc., "(none)" for 0, "IBV_QP_<unknown>" for a
 *         bit libibverbs does not define; a static string
 */
const char *rxd_qp_attr_name(int mask_bit);

#endif /* RXD_QP_ATTR_H */
