/* SPDX-License-Identifier: BSD-3-Clause */
/* The work-request opcode table (rxd_wr_opcode.h). */
#include "rxd/rxd_flush.h"
#include "rxd_wire.h"
#include "rxd_wr_opcode.h"

#define RC RXD_WR_QPT(IBV_QPT_RC)
#define UC RXD_WR_QPT(IBV_QPT_UC)
#define UD RXD_WR_QPT(IBV_QPT_UD)

/* RC packet opcodes by position: one packet, first, middle, last. */
#define PKTS(o, f, m, l) .only = (o), .first = (f), .middle = (m), .last = (l)
/* A message of one packet kind, whatever its length. */
#define ONE(op) PKTS(op, op, op, op)

const struct rxd_wr_opcode rxd_wr_opcode_table[RXD_WR_OPCODES] = {
	[IBV_WR_SEND] = { .qp_types = RC | UC | UD,
		.wc_opcode = IBV_WC_SEND, .send_ops = IBV_QP_EX_WITH_SEND,
		PKTS(RXD_OP_RC_SEND_ONLY, RXD_OP_RC_SEND_FIRST,
		     RXD_OP_RC_SEND_MIDDLE, RXD_OP_RC_SEND_LAST) },
	[IBV_WR_SEND_WITH_IMM] = { .qp_types = RC | UC | UD,
		.wc_opcode = IBV_WC_SEND,
		.send_ops = IBV_QP_EX_WITH_SEND_WITH_IMM,
		PKTS(RXD_OP_RC_SEND_ONLY_IMM, RXD_OP_RC_SEND_FIRST,
		     RXD_OP_RC_SEND_MIDDLE, RXD_OP_RC_SEND_LAST_IMM) },
	[IBV_WR_SEND_WITH_INV] = { .qp_types = RC,
		.wc_opcode = IBV_WC_SEND,
		.send_ops = IBV_QP_EX_WITH_SEND_WITH_INV,
		PKTS(RXD_OP_RC_SEND_ONLY_INV, RXD_OP_RC_SEND_FIRST,
		     RXD_OP_RC_SEND_MIDDLE, RXD_OP_RC_SEND_LAST_INV) },
	[IBV_WR_RDMA_WRITE] = { .qp_types = RC | UC,
		.wc_opcode = IBV_WC_RDMA_WRITE,
		.send_ops = IBV_QP_EX_WITH_RDMA_WRITE,
		PKTS(RXD_OP_RC_WRITE_ONLY, RXD_OP_RC_WRITE_FIRST,
		     RXD_OP_RC_WRITE_MIDDLE, RXD_OP_RC_WRITE_LAST) },
	[IBV_WR_RDMA_WRITE_WITH_IMM] = { .qp_types = RC | UC,
		.wc_opcode = IBV_WC_RDMA_WRITE,
		.send_ops = IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
		PKTS(RXD_OP_RC_WRITE_ONLY_IMM, RXD_OP_RC_WRITE_FIRST,
		     RXD_OP_RC_WRITE_MIDDLE, RXD_OP_RC_WRITE_LAST_IMM) },
	[IBV_WR_RDMA_READ] = { .qp_types = RC,
		.flags = RXD_WRF_RESPONSE | RXD_WRF_FILLS_SGE,
		.wc_opcode = IBV_WC_RDMA_READ, .wc_len = RXD_WR_LEN_MSG,
		.send_ops = IBV_QP_EX_WITH_RDMA_READ,
		ONE(RXD_OP_RC_READ_REQ) },
	[IBV_WR_ATOMIC_CMP_AND_SWP] = { .qp_types = RC,
		.flags = RXD_WRF_RESPONSE | RXD_WRF_FILLS_SGE | RXD_WRF_ATOMIC,
		.wc_opcode = IBV_WC_COMP_SWAP, .wc_len = 8,
		.send_ops = IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
		ONE(RXD_OP_RC_CMP_SWAP) },
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = { .qp_types = RC,
		.flags = RXD_WRF_RESPONSE | RXD_WRF_FILLS_SGE | RXD_WRF_ATOMIC,
		.wc_opcode = IBV_WC_FETCH_ADD, .wc_len = 8,
		.send_ops = IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		ONE(RXD_OP_RC_FETCH_ADD) },
	[IBV_WR_ATOMIC_WRITE] = { .qp_types = RC,
		.flags = RXD_WRF_RESPONSE | RXD_WRF_PLACEMENT,
		.wc_opcode = IBV_WC_ATOMIC_WRITE, .wc_len = 8,
		.send_ops = IBV_QP_EX_WITH_ATOMIC_WRITE,
		ONE(RXD_OP_RC_ATOMIC_WRITE) },
	[RXD_WR_FLUSH] = { .qp_types = RC,
		.flags = RXD_WRF_RESPONSE | RXD_WRF_PLACEMENT |
			RXD_WRF_WR_EX_ONLY,
		.wc_opcode = RXD_WC_FLUSH, .send_ops = RXD_QP_EX_WITH_FLUSH,
		ONE(RXD_OP_RC_FLUSH) },
	[IBV_WR_BIND_MW] = { .qp_types = RC | UC, .flags = RXD_WRF_LOCAL,
		.wc_opcode = IBV_WC_BIND_MW,
		.send_ops = IBV_QP_EX_WITH_BIND_MW },
	[IBV_WR_LOCAL_INV] = { .qp_types = RC | UC, .flags = RXD_WRF_LOCAL,
		.wc_opcode = IBV_WC_LOCAL_INV,
		.send_ops = IBV_QP_EX_WITH_LOCAL_INV },
};

uint64_t
rxd_wr_send_ops(void)
{
	uint64_t ops = 0;
	unsigned int i;

	for (i = 0; i < RXD_WR_OPCODES; i++)
		ops |= rxd_wr_opcode_table[i].send_ops;
	return ops;
}
