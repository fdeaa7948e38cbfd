/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The work-request opcode table: one row per enum ibv_wr_opcode rxd
 * supports, with what posting (lib/verbs), the requester and the
 * completer (lib/transport) need to know of it: the QP types that may
 * post it, the packet opcodes its messages are made of, what answers it,
 * and the work completion it ends in.  The packet side of each opcode is
 * lib/wire's table (rxd_opcode.c); this one is the work-request side, as
 * rxe keeps rxe_wr_opcode_info beside rxe_opcode_info.
 *
 * A new work-request opcode is a row here plus the functions that act on
 * what is new about it (doc/architecture.md, "Two common changes").
 */
#ifndef RXD_WR_OPCODE_H
#define RXD_WR_OPCODE_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/** Rows of the table: enum ibv_wr_opcode up to IBV_WR_ATOMIC_WRITE. */
#define RXD_WR_OPCODES 16

/** The QP type bit of rxd_wr_opcode.qp_types. */
#define RXD_WR_QPT(t) (1u << (t))

/** rxd_wr_opcode.wc_len: the completion's byte_len is the WR's length. */
#define RXD_WR_LEN_MSG 0xff

/** What a work request is (rxd_wr_opcode.flags). */
enum rxd_wr_flag {
	/** Answered by response packets, not just ACKed: one request
	 *  packet, and limited by max_rd_atomic. */
	RXD_WRF_RESPONSE = 1u << 0,
	/** The response lands in the WR's SGEs (READ, atomics): its SGEs
	 *  need local write access and it may not be inline. */
	RXD_WRF_FILLS_SGE = 1u << 1,
	/** An atomic: 8 bytes, AtomicETH, answered by an ATOMIC ACK. */
	RXD_WRF_ATOMIC = 1u << 2,
	/** IBTA 1.5 memory placement (ATOMIC WRITE, FLUSH): one PSN,
	 *  answered by a READ RESPONSE ONLY without payload. */
	RXD_WRF_PLACEMENT = 1u << 3,
	/** Done when posted (lib/verbs applies it): no packet, no PSN; it
	 *  completes in send-queue order. */
	RXD_WRF_LOCAL = 1u << 4,
	/** Posted through the ibv_wr_* interface only: no place in
	 *  struct ibv_send_wr. */
	RXD_WRF_WR_EX_ONLY = 1u << 5,
};

/** One row: a work-request opcode as posting and the transport see it. */
struct rxd_wr_opcode {
	uint8_t qp_types;          /**< RXD_WR_QPT() of each type that may
				    *   post it; 0: not supported */
	uint8_t flags;             /**< enum rxd_wr_flag */
	uint8_t wc_opcode;         /**< enum ibv_wc_opcode it completes as */
	uint8_t wc_len;            /**< byte_len of its completion, or
				    *   RXD_WR_LEN_MSG */
	/** RC packet opcodes (enum rxd_opcode) of a message of one packet
	 *  and of the first, middle and last packet of a longer one; UC's
	 *  and UD's are the same in their transport's opcode range. */
	uint8_t only, first, middle, last;
	uint16_t send_ops;         /**< its IBV_QP_EX_WITH_* bit (ibv_wr_*) */
};

/** The single work-request opcode table, indexed by enum ibv_wr_opcode. */
extern const struct rxd_wr_opcode rxd_wr_opcode_table[RXD_WR_OPCODES];

/** The row of a WQE's opcode (one a QP accepted: rxd_wr_allowed()). */
static inline const struct rxd_wr_opcode *
rxd_wr_opcode(uint8_t opcode)
{
	return &rxd_wr_opcode_table[opcode];
}

/** Whether opcode has any of @p flags (enum rxd_wr_flag). */
static inline bool
rxd_wr_is(uint8_t opcode, unsigned int flags)
{
	return (rxd_wr_opcode(opcode)->flags & flags) != 0;
}

/** The IBV_QP_EX_WITH_* bits of every supported opcode. */
uint64_t rxd_wr_send_ops(void);

/** Whether a QP of type @p type may post opcode @p op. */
static inline bool
rxd_wr_allowed(enum ibv_qp_type type, enum ibv_wr_opcode op)
{
	return (unsigned int)op < RXD_WR_OPCODES && (unsigned int)type < 8 &&
		(rxd_wr_opcode_table[op].qp_types & RXD_WR_QPT(type));
}

#endif /* RXD_WR_OPCODE_H */
