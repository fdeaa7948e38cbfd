/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The opcode table: everything rxd knows about a BTH opcode (service,
 * position in a message, extension headers, payload, who sends it).
 * Parser, builder, transport and tests all read this one table.
 */
#include "rxd_wire.h"

#define F RXD_OPF_FIRST
#define M RXD_OPF_MIDDLE
#define L RXD_OPF_LAST
#define P RXD_OPF_PAYLOAD
#define Q (RXD_OPF_REQ | RXD_OPF_WANT_ACK)
#define U RXD_OPF_REQ
#define R RXD_OPF_RESP

#define H_RETH RXD_HDR_RETH
#define H_AETH RXD_HDR_AETH
#define H_IMM RXD_HDR_IMMDT

/* Send and write rows are the same for RC and UC but for WANT_ACK. */
#define SEND_ROWS(base, svc, pre, req)                                        \
	[base + 0x00] = { pre "SEND_FIRST", svc, 0, 0,                        \
		req | F | P | RXD_OPF_SEND | RXD_OPF_RECV },                 \
	[base + 0x01] = { pre "SEND_MIDDLE", svc, 0, 0,                       \
		req | M | P | RXD_OPF_SEND | RXD_OPF_RECV },                 \
	[base + 0x02] = { pre "SEND_LAST", svc, 0, 0,                         \
		req | L | P | RXD_OPF_SEND | RXD_OPF_RECV },                 \
	[base + 0x03] = { pre "SEND_LAST_WITH_IMMEDIATE", svc,               \
		RXD_IMMDT_LEN, H_IMM,                                         \
		req | L | P | RXD_OPF_SEND | RXD_OPF_RECV | RXD_OPF_IMM },   \
	[base + 0x04] = { pre "SEND_ONLY", svc, 0, 0,                         \
		req | F | L | P | RXD_OPF_SEND | RXD_OPF_RECV },             \
	[base + 0x05] = { pre "SEND_ONLY_WITH_IMMEDIATE", svc,               \
		RXD_IMMDT_LEN, H_IMM,                                         \
		req | F | L | P | RXD_OPF_SEND | RXD_OPF_RECV | RXD_OPF_IMM }, \
	[base + 0x06] = { pre "RDMA_WRITE_FIRST", svc, RXD_RETH_LEN, H_RETH,  \
		req | F | P | RXD_OPF_WRITE },                                \
	[base + 0x07] = { pre "RDMA_WRITE_MIDDLE", svc, 0, 0,                 \
		req | M | P | RXD_OPF_WRITE },                                \
	[base + 0x08] = { pre "RDMA_WRITE_LAST", svc, 0, 0,                   \
		req | L | P | RXD_OPF_WRITE },                                \
	[base + 0x09] = { pre "RDMA_WRITE_LAST_WITH_IMMEDIATE", svc,         \
		RXD_IMMDT_LEN, H_IMM,                                         \
		req | L | P | RXD_OPF_WRITE | RXD_OPF_IMM | RXD_OPF_RECV },  \
	[base + 0x0a] = { pre "RDMA_WRITE_ONLY", svc, RXD_RETH_LEN, H_RETH,   \
		req | F | L | P | RXD_OPF_WRITE },                            \
	[base + 0x0b] = { pre "RDMA_WRITE_ONLY_WITH_IMMEDIATE", svc,         \
		RXD_RETH_LEN + RXD_IMMDT_LEN, H_RETH | H_IMM,                 \
		req | F | L | P | RXD_OPF_WRITE | RXD_OPF_IMM | RXD_OPF_RECV }

const struct rxd_opcode_info rxd_opcode_table[256] = {
	SEND_ROWS(0x00, RXD_SVC_RC, "RC_", Q),
	[RXD_OP_RC_READ_REQ] = { "RC_RDMA_READ_REQUEST", RXD_SVC_RC,
		RXD_RETH_LEN, H_RETH, Q | F | L | RXD_OPF_READ },
	[RXD_OP_RC_READ_RESP_FIRST] = { "RC_RDMA_READ_RESPONSE_FIRST",
		RXD_SVC_RC, RXD_AETH_LEN, H_AETH, R | F | P | RXD_OPF_READ },
	[RXD_OP_RC_READ_RESP_MIDDLE] = { "RC_RDMA_READ_RESPONSE_MIDDLE",
		RXD_SVC_RC, 0, 0, R | M | P | RXD_OPF_READ },
	[RXD_OP_RC_READ_RESP_LAST] = { "RC_RDMA_READ_RESPONSE_LAST",
		RXD_SVC_RC, RXD_AETH_LEN, H_AETH, R | L | P | RXD_OPF_READ },
	[RXD_OP_RC_READ_RESP_ONLY] = { "RC_RDMA_READ_RESPONSE_ONLY",
		RXD_SVC_RC, RXD_AETH_LEN, H_AETH,
		R | F | L | P | RXD_OPF_READ },
	[RXD_OP_RC_ACK] = { "RC_ACKNOWLEDGE", RXD_SVC_RC, RXD_AETH_LEN,
		H_AETH, R | F | L | RXD_OPF_ACK },
	[RXD_OP_RC_ATOMIC_ACK] = { "RC_ATOMIC_ACKNOWLEDGE", RXD_SVC_RC,
		RXD_AETH_LEN + RXD_ATMACK_LEN, H_AETH | RXD_HDR_ATMACK,
		R | F | L | RXD_OPF_ATOMIC },
	[RXD_OP_RC_CMP_SWAP] = { "RC_CMP_SWAP", RXD_SVC_RC, RXD_ATMETH_LEN,
		RXD_HDR_ATMETH, Q | F | L | RXD_OPF_ATOMIC },
	[RXD_OP_RC_FETCH_ADD] = { "RC_FETCH_ADD", RXD_SVC_RC,
		RXD_ATMETH_LEN, RXD_HDR_ATMETH, Q | F | L | RXD_OPF_ATOMIC },
	[RXD_OP_RC_SEND_LAST_INV] = { "RC_SEND_LAST_WITH_INVALIDATE",
		RXD_SVC_RC, RXD_IETH_LEN, RXD_HDR_IETH,
		Q | L | P | RXD_OPF_SEND | RXD_OPF_RECV | RXD_OPF_INV },
	[RXD_OP_RC_SEND_ONLY_INV] = { "RC_SEND_ONLY_WITH_INVALIDATE",
		RXD_SVC_RC, RXD_IETH_LEN, RXD_HDR_IETH,
		Q | F | L | P | RXD_OPF_SEND | RXD_OPF_RECV | RXD_OPF_INV },
	/* IBTA 1.5 memory placement: answered by an empty READ RESPONSE */
	[RXD_OP_RC_FLUSH] = { "RC_FLUSH", RXD_SVC_RC,
		RXD_FETH_LEN + RXD_RETH_LEN, RXD_HDR_FETH | H_RETH,
		Q | F | L | RXD_OPF_FLUSH },
	[RXD_OP_RC_ATOMIC_WRITE] = { "RC_ATOMIC_WRITE", RXD_SVC_RC,
		RXD_RETH_LEN, H_RETH, Q | F | L | P | RXD_OPF_ATOMIC_WRITE },
	SEND_ROWS(0x20, RXD_SVC_UC, "UC_", U),
	[RXD_OP_UD_SEND_ONLY] = { "UD_SEND_ONLY", RXD_SVC_UD, RXD_DETH_LEN,
		RXD_HDR_DETH,
		U | F | L | P | RXD_OPF_SEND | RXD_OPF_RECV },
	[RXD_OP_UD_SEND_ONLY_IMM] = { "UD_SEND_ONLY_WITH_IMMEDIATE",
		RXD_SVC_UD, RXD_DETH_LEN + RXD_IMMDT_LEN,
		RXD_HDR_DETH | H_IMM,
		U | F | L | P | RXD_OPF_SEND | RXD_OPF_RECV | RXD_OPF_IMM },
	[RXD_OP_CNP] = { "CNP", RXD_SVC_CNP, RXD_CNP_PAD_LEN, RXD_HDR_CNP,
		F | L },
};
