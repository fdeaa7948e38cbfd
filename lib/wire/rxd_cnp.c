/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Congestion Notification Packet of a connection (RoCEv2 annex,
 * IBTA vol. 1 A17.9): made from the header template of the connection
 * whose frames arrived CE-marked, so it goes to the peer's QP over the
 * same addresses; rxd_wire_build() adds the 16 reserved bytes and the
 * ICRC.
 */
#include "rxd_wire.h"

void
rxd_wire_make_cnp(struct rxd_pkt *pkt, uint8_t dscp, bool ect)
{
	pkt->opcode = RXD_OP_CNP;
	pkt->op = &rxd_opcode_table[RXD_OP_CNP];
	pkt->psn = 0;
	pkt->becn = true;
	pkt->fecn = false;
	pkt->se = false;
	pkt->mig = false;
	pkt->ackreq = false;
	pkt->payload_len = 0;
	pkt->tos = rxd_tos_with_ecn((uint8_t)(dscp << 2),
				    ect ? RXD_ECN_ECT0 : RXD_ECN_NOT_ECT);
}
