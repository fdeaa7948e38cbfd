/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The show commands about state: ports (with the data path's CPU
 * features, ICRC and copy implementations), GIDs, the neighbour cache, the QPs
 * this tool created, and the memory a QP takes (rxd_qp_memory()).  The
 * counters are in testpmd_stats.c.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "testpmd.h"
#include "wire/rxd_copy.h"
#include "wire/rxd_cpu.h"
#include "wire/rxd_icrc.h"

#define MAX_NEIGH 64

static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

void
tp_gid_str(const uint8_t gid[16], char *buf, size_t len)
{
	inet_ntop(AF_INET6, gid, buf, (socklen_t)len);
}

/* An IP address: dotted IPv4 for an IPv4-mapped one. */
static void
addr_str(const uint8_t ip[16], char *buf, size_t len)
{
	if (memcmp(ip, v4_mapped, sizeof(v4_mapped)) == 0)
		inet_ntop(AF_INET, ip + 12, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, ip, buf, (socklen_t)len);
}

static void
mac_str(const uint8_t m[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
		 m[3], m[4], m[5]);
}

/* What the data path runs on this CPU (RXD_CPU_FEATURES_OFF applied). */
static void
show_data_path(void)
{
	char cpu[128];

	printf("data path: ICRC %s, copy %s; CPU features %s\n",
	       rxd_crc32_impl_name(rxd_crc32_get_impl()),
	       rxd_copy_impl_name(rxd_copy_get_impl()),
	       rxd_cpu_describe(cpu, sizeof(cpu)));
}

/* Link state and speed; a PMD may not know the speed (net_virtio). */
static void
print_link(const struct rxd_port_info *info)
{
	const char *state = info->link_up ? "up" : "down";

	if (info->link_speed == UINT32_MAX || info->link_speed == 0)
		printf("  link %s, speed %s\n", state,
		       info->link_speed ? "unknown" : "none");
	else
		printf("  link %s, %u Mbit/s\n", state, info->link_speed);
}

/* RFC 5227: a station claiming rxd's IPv4 address. */
static void
print_conflicts(const struct rxd_port_info *info)
{
	const uint8_t *ip = info->conflict_ip;
	char mac[32];

	if (info->arp_conflicts == 0) {
		printf("  address conflicts: none%s\n",
		       info->probing ? " (probing)" : "");
		return;
	}
	mac_str(info->conflict_mac, mac, sizeof(mac));
	printf("  address conflicts: %lu ARP frames; last: %u.%u.%u.%u "
	       "claimed by %s%s\n", (unsigned long)info->arp_conflicts,
	       ip[0], ip[1], ip[2], ip[3], mac,
	       info->conflict_probing ? " while rxd probed" : "");
}

int
tp_show_ports(const struct tp_args *a)
{
	struct rxd_port_info info;
	char mac[32];
	unsigned int p;

	(void)a;
	show_data_path();
	for (p = 0; p < rxd_port_count(); p++) {
		if (rxd_port_info(p, &info) != 0) {
			fprintf(stderr, "show ports: port %u: %s\n", p,
				rxd_last_error());
			return -1;
		}
		mac_str(info.mac, mac, sizeof(mac));
		printf("port %u: %s (driver %s, DPDK port %u, engine %u)\n", p,
		       info.name, info.driver, info.dpdk_port, info.engine);
		print_link(&info);
		printf("  mac %s, mtu %u, ib_mtu %u, gids %u\n", mac, info.mtu,
		       info.ib_mtu, info.n_gids);
		printf("  queues: rx %u (all polled), tx %u\n",
		       info.rx_queues, info.tx_queues);
		printf("  offloads: %s\n",
		       info.offloads[0] ? info.offloads : "none");
		printf("  steering: %s, steered %" PRIu64 " (now %" PRIu64
		       "), collisions %" PRIu64 ", refused %" PRIu64 "\n",
		       info.steering, info.steered, info.steered_active,
		       info.steer_collisions, info.steer_failed);
		print_conflicts(&info);
	}
	return 0;
}

int
tp_show_gids(const struct tp_args *a)
{
	char buf[INET6_ADDRSTRLEN];
	uint8_t gid[16];
	unsigned int p, i;

	(void)a;
	for (p = 0; p < rxd_port_count(); p++)
		for (i = 0; rxd_query_gid(p, i, gid) == 0; i++) {
			tp_gid_str(gid, buf, sizeof(buf));
			printf("port %u gid %u %s\n", p, i, buf);
		}
	return 0;
}

int
tp_show_neigh(const struct tp_args *a)
{
	struct rxd_neigh_info nb[MAX_NEIGH];
	char ip[INET6_ADDRSTRLEN], mac[32];
	unsigned int p;
	int n, i;

	(void)a;
	for (p = 0; p < rxd_port_count(); p++) {
		n = rxd_neigh_list(p, nb, MAX_NEIGH);
		if (n < 0) {
			fprintf(stderr, "show neigh: port %u: %s\n", p,
				rxd_last_error());
			return -1;
		}
		if (n == 0)
			printf("port %u: no neighbours\n", p);
		for (i = 0; i < n; i++) {
			addr_str(nb[i].ip, ip, sizeof(ip));
			mac_str(nb[i].mac, mac, sizeof(mac));
			printf("port %u neigh %s %s %s held %u\n", p, ip, mac,
			       nb[i].state, nb[i].held);
		}
	}
	return 0;
}

static const char *const qp_state_names[] = {
	[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
	[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS", [IBV_QPS_SQD] = "SQD",
	[IBV_QPS_SQE] = "SQE", [IBV_QPS_ERR] = "ERR",
};

static const char *
qp_state_name(enum ibv_qp_state s)
{
	return (unsigned int)s < RTE_DIM(qp_state_names) &&
		qp_state_names[s] != NULL ? qp_state_names[s] : "?";
}

static void
show_qp(const struct tp_conn *c)
{
	const struct tp_flow *f = &c->flow;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	char peer[INET6_ADDRSTRLEN];
	const char *state = "?";

	if (ibv_query_qp(c->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN |
			 IBV_QP_RQ_PSN, &init) == 0)
		state = qp_state_name(attr.qp_state);
	addr_str(c->remote.gid, peer, sizeof(peer));
	printf("qp 0x%06x port %u RC %s sq_psn 0x%06x rq_psn 0x%06x mtu %u "
	       "peer %s qp 0x%06x\n", c->qp->qp_num, c->port, state,
	       c->local.psn, c->remote.psn, tp_conn_mtu(c), peer,
	       c->remote.qpn);
	printf("  traffic %s %s %u B depth %u count %" PRIu64 ", posted %"
	       PRIu64 " completed %" PRIu64 " outstanding %" PRIu64 "%s\n",
	       __atomic_load_n(&f->active, __ATOMIC_ACQUIRE) ? "running" :
	       "idle", tp_op_name(f->cfg.op), f->cfg.size, f->cfg.depth,
	       f->cfg.count, tp_load(&f->posted), tp_load(&f->completed),
	       tp_load(&f->outstanding),
	       __atomic_load_n(&f->broken, __ATOMIC_ACQUIRE) ?
	       ", QP failed" : "");
}

int
tp_show_qps(const struct tp_args *a)
{
	unsigned int i, n = tp_conn_count();

	(void)a;
	if (n == 0)
		printf("no QPs (listen or connect first)\n");
	for (i = 0; i < n; i++)
		show_qp(tp_conn_get(i));
	return 0;
}

/* The rows of "show mem": the parts of struct rxd_qp_memory. */
static const struct mem_row {
	const char *label;
	size_t off;
} mem_rows[] = {
	{ "verbs QP object", offsetof(struct rxd_qp_memory, verbs_qp) },
	{ "transport state", offsetof(struct rxd_qp_memory, transport) },
	{ "send window", offsetof(struct rxd_qp_memory, send_window) },
	{ "responder resources", offsetof(struct rxd_qp_memory, responder) },
	{ "send ring", offsetof(struct rxd_qp_memory, sq_ring) },
	{ "receive ring", offsetof(struct rxd_qp_memory, rq_ring) },
	{ "total", offsetof(struct rxd_qp_memory, total) },
};

static size_t
mem_field(const struct rxd_qp_memory *m, size_t off)
{
	return *(const size_t *)((const char *)m + off);
}

int
tp_show_mem(const struct tp_args *a)
{
	const struct rxd_conf *conf = rxd_config();
	struct rxd_qp_memory ours, lim, ud, ours_ex, lim_ex, ud_ex;
	unsigned int i;

	(void)a;
	rxd_qp_memory(IBV_QPT_RC, TP_SQ_DEPTH, TP_RECV_DEPTH, false, &ours);
	rxd_qp_memory(IBV_QPT_RC, TP_SQ_DEPTH, TP_RECV_DEPTH, true, &ours_ex);
	rxd_qp_memory(IBV_QPT_RC, conf->sq_depth, conf->rq_depth, false, &lim);
	rxd_qp_memory(IBV_QPT_RC, conf->sq_depth, conf->rq_depth, true,
		      &lim_ex);
	rxd_qp_memory(IBV_QPT_UD, conf->sq_depth, conf->rq_depth, false, &ud);
	rxd_qp_memory(IBV_QPT_UD, conf->sq_depth, conf->rq_depth, true,
		      &ud_ex);
	printf("QP memory in bytes     %14s %14s %14s\n", "this tool (RC)",
	       "limits (RC)", "limits (UD)");
	printf("  %-22s %7u/%-4u %9u/%-4u %9u/%-4u\n", "send/receive WRs",
	       TP_SQ_DEPTH, TP_RECV_DEPTH, conf->sq_depth, conf->rq_depth,
	       conf->sq_depth, conf->rq_depth);
	printf("  %-22s %7u/%-4u %9u/%-4u %9u/%-4u\n", "ring slots",
	       ours.sq_slots, ours.rq_slots, lim.sq_slots, lim.rq_slots,
	       ud.sq_slots, ud.rq_slots);
	for (i = 0; i < RTE_DIM(mem_rows); i++)
		printf("  %-22s %12zu %14zu %14zu\n", mem_rows[i].label,
		       mem_field(&ours, mem_rows[i].off),
		       mem_field(&lim, mem_rows[i].off),
		       mem_field(&ud, mem_rows[i].off));
	printf("  %-22s %12zu %14zu %14zu\n", "ibv_wr_* QPs add",
	       ours_ex.wr_batch, lim_ex.wr_batch, ud_ex.wr_batch);
	printf("per send WQE: %zu (ring slot) + %zu (window entry) = %zu\n",
	       ours.send_wqe, ours.window_entry,
	       ours.send_wqe + ours.window_entry);
	printf("per receive WQE: %zu, per CQE: %zu, responder resources: "
	       "%u x %zu\n", ours.recv_wqe, ours.cqe, ours.responder_entries,
	       ours.responder / ours.responder_entries);
	return 0;
}
