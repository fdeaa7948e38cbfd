/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The work-request opcode table (lib/qp/rxd_wr_opcode.c) against the
 * packet opcode table of lib/wire: every packet opcode a row names exists
 * in each transport that may post it, and the flags agree with each other
 * (what is answered takes one request packet, what is done at post sends
 * nothing).
 */
#include <criterion/criterion.h>

#include "rxd_wire.h"
#include "rxd_wr_opcode.h"

/* A packet opcode of this service exists. */
static bool
exists(unsigned int op, enum rxd_service svc)
{
	return op < 256 && rxd_opcode_table[op].name != NULL &&
		rxd_opcode_table[op].service == svc;
}

/* The row's packet opcodes exist in the range of svc, at base. */
static void
check_family(unsigned int wr, const struct rxd_wr_opcode *o,
	     unsigned int base, enum rxd_service svc)
{
	cr_expect(exists(o->only + base, svc), "WR opcode %u: ONLY", wr);
	if (svc == RXD_SVC_UD)
		return;                 /* a UD message is one packet */
	cr_expect(exists(o->first + base, svc), "WR opcode %u: FIRST", wr);
	cr_expect(exists(o->middle + base, svc), "WR opcode %u: MIDDLE", wr);
	cr_expect(exists(o->last + base, svc), "WR opcode %u: LAST", wr);
}

Test(wr_opcode, packet_opcodes_exist_in_each_transport_that_posts_them)
{
	unsigned int wr;

	for (wr = 0; wr < RXD_WR_OPCODES; wr++) {
		const struct rxd_wr_opcode *o = rxd_wr_opcode((uint8_t)wr);

		if (o->qp_types == 0 || (o->flags & RXD_WRF_LOCAL))
			continue;
		if (o->qp_types & RXD_WR_QPT(IBV_QPT_RC))
			check_family(wr, o, 0, RXD_SVC_RC);
		if (o->qp_types & RXD_WR_QPT(IBV_QPT_UC))
			check_family(wr, o, RXD_OP_UC_SEND_FIRST, RXD_SVC_UC);
		if (o->qp_types & RXD_WR_QPT(IBV_QPT_UD))
			check_family(wr, o, RXD_OP_UD_SEND_ONLY -
				     RXD_OP_RC_SEND_ONLY, RXD_SVC_UD);
	}
}

Test(wr_opcode, flags_agree)
{
	unsigned int wr;

	for (wr = 0; wr < RXD_WR_OPCODES; wr++) {
		const struct rxd_wr_opcode *o = rxd_wr_opcode((uint8_t)wr);
		unsigned int f = o->flags;

		if (f & (RXD_WRF_FILLS_SGE | RXD_WRF_ATOMIC |
			 RXD_WRF_PLACEMENT))
			cr_expect(f & RXD_WRF_RESPONSE, "WR opcode %u", wr);
		if (f & RXD_WRF_RESPONSE)
			cr_expect(o->only == o->first && o->only == o->last &&
				  o->only == o->middle &&
				  o->qp_types == RXD_WR_QPT(IBV_QPT_RC),
				  "WR opcode %u: one RC request packet", wr);
		if (f & RXD_WRF_ATOMIC)
			cr_expect(f & RXD_WRF_FILLS_SGE, "WR opcode %u", wr);
		if (f & RXD_WRF_PLACEMENT)
			cr_expect(!(f & RXD_WRF_FILLS_SGE), "WR opcode %u", wr);
		if (o->qp_types != 0)
			cr_expect(o->send_ops != 0, "WR opcode %u: ibv_wr_*", wr);
		if (f & RXD_WRF_LOCAL)
			cr_expect(f == RXD_WRF_LOCAL && o->wc_len == 0,
				  "WR opcode %u: done at post", wr);
	}
}

Test(wr_opcode, posting_rules)
{
	cr_expect(rxd_wr_allowed(IBV_QPT_UD, IBV_WR_SEND_WITH_IMM));
	cr_expect(!rxd_wr_allowed(IBV_QPT_UD, IBV_WR_RDMA_WRITE));
	cr_expect(!rxd_wr_allowed(IBV_QPT_UC, IBV_WR_RDMA_READ));
	cr_expect(!rxd_wr_allowed(IBV_QPT_RC, IBV_WR_TSO));
	cr_expect(!rxd_wr_allowed(IBV_QPT_RC, (enum ibv_wr_opcode)99));
	cr_expect(!rxd_wr_allowed((enum ibv_qp_type)200, IBV_WR_SEND));
	cr_expect_eq(rxd_wr_send_ops() & (IBV_QP_EX_WITH_SEND |
		IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_TSO),
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_ATOMIC_WRITE);
}
