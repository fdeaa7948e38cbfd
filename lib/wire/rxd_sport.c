/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UDP source port of a QP's frames, as Soft-RoCE (Linux 5.x, 6.x)
 * chooses it, so that a receiver can tell the port of every frame its peer
 * will send to a QP once it knows both QPNs (RETA and rte_flow steering,
 * doc/architecture.md).  Facts, checked against tests/vectors/rxe by
 * tests/wire/test_sport.c:
 *  - a connected QP (RC, UC) sends from the port its 20-bit flow label
 *    folds to; without a flow label in the address vector, the label is
 *    computed from the product of the two QPNs, so both ends of a
 *    connection send from the same port;
 *  - a datagram QP (UD, QP1) sends from 0xC000 plus a 14-bit
 *    multiplicative hash of its own QPN.
 */
#include "rxd_wire.h"

#define SPORT_BASE 0xc000u          /* RoCEv2 entropy: 0xC000..0xFFFF */
#define SPORT_BITS 14
#define FLOW_LABEL_MASK 0xfffffu
#define GOLDEN_RATIO_32 0x61c88647u /* the multiplicative hash's factor */

uint32_t
rxd_flow_label_of_qpns(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return (uint32_t)(v & FLOW_LABEL_MASK);
}

uint16_t
rxd_sport_of_flow_label(uint32_t flow_label)
{
	uint32_t low = flow_label & ((1u << SPORT_BITS) - 1);
	uint32_t high = flow_label & FLOW_LABEL_MASK & ~((1u << SPORT_BITS) - 1);

	return (uint16_t)(SPORT_BASE | (low ^ (high >> SPORT_BITS)));
}

uint16_t
rxd_sport_connected(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn)
{
	if ((flow_label & FLOW_LABEL_MASK) == 0)
		flow_label = rxd_flow_label_of_qpns(lqpn, rqpn);
	return rxd_sport_of_flow_label(flow_label);
}

uint16_t
rxd_sport_datagram(uint32_t qpn)
{
	return (uint16_t)(SPORT_BASE +
		((qpn * GOLDEN_RATIO_32) >> (32 - SPORT_BITS)));
}
