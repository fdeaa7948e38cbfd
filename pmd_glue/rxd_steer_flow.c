/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering by rte_flow (rxd_steer.h's flow mode): one ingress rule per
 * connection matching the peer's address, rxd's address, the peer's UDP
 * source port and UDP destination port, with a QUEUE action.  DPDK 22.11
 * has no item for the BTH, so the destination QPN itself cannot be
 * matched; the source port stands for it.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_flow.h>

#include "rxd_steer_flow.h"

/* The items of one rule, spec and mask side by side. */
struct flow_items {
	struct rte_flow_item_ipv4 v4, v4_mask;
	struct rte_flow_item_ipv6 v6, v6_mask;
	struct rte_flow_item_udp udp, udp_mask;
	struct rte_flow_item pattern[4];
	struct rte_flow_action_queue queue;
	struct rte_flow_action actions[2];
};

static void
ip_items(struct flow_items *it, const struct rxd_steer_flow *f)
{
	struct rte_flow_item *ip = &it->pattern[1];

	if (rxd_steer_flow_is_v4(f)) {
		memcpy(&it->v4.hdr.src_addr, f->src + 12, 4);
		memcpy(&it->v4.hdr.dst_addr, f->dst + 12, 4);
		it->v4_mask.hdr.src_addr = UINT32_MAX;
		it->v4_mask.hdr.dst_addr = UINT32_MAX;
		ip->type = RTE_FLOW_ITEM_TYPE_IPV4;
		ip->spec = &it->v4;
		ip->mask = &it->v4_mask;
		return;
	}
	memcpy(it->v6.hdr.src_addr, f->src, 16);
	memcpy(it->v6.hdr.dst_addr, f->dst, 16);
	memset(it->v6_mask.hdr.src_addr, 0xff, 16);
	memset(it->v6_mask.hdr.dst_addr, 0xff, 16);
	ip->type = RTE_FLOW_ITEM_TYPE_IPV6;
	ip->spec = &it->v6;
	ip->mask = &it->v6_mask;
}

static void
fill(struct flow_items *it, const struct rxd_steer_flow *f, uint16_t queue)
{
	memset(it, 0, sizeof(*it));
	it->pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	ip_items(it, f);
	it->udp.hdr.src_port = rte_cpu_to_be_16(f->sport);
	it->udp.hdr.dst_port = rte_cpu_to_be_16(f->dport);
	it->udp_mask.hdr.src_port = UINT16_MAX;
	it->udp_mask.hdr.dst_port = UINT16_MAX;
	it->pattern[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	it->pattern[2].spec = &it->udp;
	it->pattern[2].mask = &it->udp_mask;
	it->pattern[3].type = RTE_FLOW_ITEM_TYPE_END;
	it->queue.index = queue;
	it->actions[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	it->actions[0].conf = &it->queue;
	it->actions[1].type = RTE_FLOW_ACTION_TYPE_END;
}

static const struct rte_flow_attr ingress = { .ingress = 1 };

struct rte_flow *
rxd_steer_flow_create(uint16_t port_id, const struct rxd_steer_flow *f,
		      uint16_t queue)
{
	struct rte_flow_error error;
	struct flow_items it;

	fill(&it, f, queue);
	return rte_flow_create(port_id, &ingress, it.pattern, it.actions,
			       &error);
}

void
rxd_steer_flow_destroy(uint16_t port_id, struct rte_flow *flow)
{
	struct rte_flow_error error;

	rte_flow_destroy(port_id, flow, &error);
}

bool
rxd_steer_flow_works(uint16_t port_id, uint16_t queue)
{
	/* a rule no frame matches: from the documentation range to itself */
	struct rxd_steer_flow probe = {
		.src = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 },
		.dst = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 },
		.sport = 0xc000, .dport = 4791,
	};
	struct rte_flow_error error;
	struct flow_items it;
	struct rte_flow *flow;

	fill(&it, &probe, queue);
	if (rte_flow_validate(port_id, &ingress, it.pattern, it.actions,
			      &error) != 0)
		return false;
	flow = rte_flow_create(port_id, &ingress, it.pattern, it.actions,
			       &error);
	if (flow == NULL)
		return false;
	rxd_steer_flow_destroy(port_id, flow);
	return true;
}
