/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters: "show stats" prints every port's counters (rxd_port_counters)
 * and, per QP, rxd's transport counters (rxd_qp_stats) and this tool's
 * own (messages, bytes, data errors), one "WHERE NAME VALUE" line each,
 * from one table per structure.  Also the periodic traffic line.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include <rte_common.h>

#include "testpmd.h"

struct counter {
	const char *name;
	size_t off;
};

#define PC(f) { #f, offsetof(struct rxd_port_counters, f) }
static const struct counter port_counters[] = {
	PC(rx_pkts), PC(rx_bytes), PC(tx_pkts), PC(tx_bytes), PC(tx_full),
	PC(burst_faults), PC(tx_waited),
	PC(roce_rx), PC(roce_not_local), PC(roce_unknown_qp),
	PC(roce_bad_peer), PC(roce_bad_cnp), PC(roce_ce), PC(qkey_viol), PC(other_dropped),
	PC(arp_rx), PC(arp_tx), PC(nd_rx), PC(nd_tx), PC(echo_answered), PC(echo_replies),
	PC(not_for_us), PC(malformed), PC(resolve_failed), PC(held_dropped),
	PC(no_route), PC(fault_rx_dropped), PC(fault_rx_duplicated),
	PC(fault_rx_reordered), PC(fault_rx_corrupted), PC(fault_rx_cut),
	PC(fault_rx_opcode), PC(fault_tx_dropped), PC(fault_tx_duplicated),
	PC(fault_tx_reordered), PC(fault_tx_corrupted), PC(fault_tx_cut),
	PC(fault_tx_opcode), PC(capture_written), PC(capture_lost),
	PC(icmp_rx), PC(icmp6_rx), PC(arp_answered), PC(nd_answered),
	PC(neigh_confirmed), PC(neigh_ignored), PC(neigh_evicted),
	PC(reply_failed), PC(net_other_dropped), PC(mbufs_in_use),
	PC(arp_conflicts),
};

/* NAK codes of the AETH, in the order of rxd_qp_stats.naks_rx/naks_tx. */
#define QC(f) { #f, offsetof(struct rxd_qp_stats, f) }
#define NAKS(dir) \
	{ "naks_" #dir "_psn_seq", offsetof(struct rxd_qp_stats, naks_##dir[0]) }, \
	{ "naks_" #dir "_inv_req", offsetof(struct rxd_qp_stats, naks_##dir[1]) }, \
	{ "naks_" #dir "_rem_access", offsetof(struct rxd_qp_stats, naks_##dir[2]) }, \
	{ "naks_" #dir "_rem_op", offsetof(struct rxd_qp_stats, naks_##dir[3]) }, \
	{ "naks_" #dir "_inv_rd", offsetof(struct rxd_qp_stats, naks_##dir[4]) }
static const struct counter qp_counters[] = {
	QC(tx_pkts), QC(rx_pkts), QC(retransmits), QC(timeouts),
	QC(rnr_waits), NAKS(rx), NAKS(tx), QC(rnr_naks_tx), QC(duplicates),
	QC(out_of_sequence), QC(bad_addr), QC(dropped), QC(too_big),
	QC(acks_tx), QC(acks_coalesced), QC(ce_rx), QC(cnp_tx), QC(cnp_rx),
	QC(rate_cuts), QC(rate_kbps), QC(rtt_us), QC(rtt_samples),
	QC(keepalives),
};

#define TC(f) { #f, offsetof(struct tp_counts, f) }
static const struct counter tool_counters[] = {
	TC(msgs_done), TC(bytes_done), TC(msgs_rx), TC(bytes_rx),
	TC(data_errors), TC(wc_errors),
};

static void
print_counters(const char *where, const struct counter *t, unsigned int n,
	       const void *base)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		printf("%s %-22s %" PRIu64 "\n", where, t[i].name,
		       tp_load((const uint64_t *)((const char *)base +
						  t[i].off)));
}

static int
show_port(unsigned int p)
{
	struct rxd_port_counters c;
	char where[32];
	unsigned int i;

	if (rxd_port_counters(p, &c) != 0) {
		fprintf(stderr, "show stats: port %u: %s\n", p,
			rxd_last_error());
		return -1;
	}
	snprintf(where, sizeof(where), "port %u", p);
	print_counters(where, port_counters, RTE_DIM(port_counters), &c);
	for (i = 0; i < RTE_DIM(c.wire_err); i++)
		if (c.wire_err[i] != 0)
			printf("%s dropped %" PRIu64 ": %s\n", where,
			       c.wire_err[i], rxd_wire_err_name(i));
	return 0;
}

static int
show_qp(const struct tp_conn *c)
{
	struct rxd_qp_stats s;
	char where[32];

	snprintf(where, sizeof(where), "qp 0x%06x", c->qp->qp_num);
	if (rxd_qp_stats(c->port, c->qp->qp_num, &s) != 0) {
		fprintf(stderr, "show stats: %s: %s\n", where,
			rxd_last_error());
		return -1;
	}
	print_counters(where, qp_counters, RTE_DIM(qp_counters), &s);
	print_counters(where, tool_counters, RTE_DIM(tool_counters),
		       &c->flow.cnt);
	return 0;
}

int
tp_show_stats(const struct tp_args *a)
{
	unsigned int i;
	int rc = 0;

	(void)a;
	for (i = 0; i < rxd_port_count(); i++)
		rc |= show_port(i);
	for (i = 0; i < tp_conn_count(); i++)
		rc |= show_qp(tp_conn_get(i));
	return rc;
}

int
tp_set_stats_period(const struct tp_args *a)
{
	__atomic_store_n(&tp.stats_period, a->seconds, __ATOMIC_RELEASE);
	return 0;
}

void
tp_stats_line(const struct tp_conn *c, double secs,
	      const struct tp_counts *prev)
{
	const struct tp_counts *n = &c->flow.cnt;
	uint64_t done = tp_load(&n->msgs_done) - prev->msgs_done;
	uint64_t bytes = tp_load(&n->bytes_done) - prev->bytes_done;
	uint64_t rx = tp_load(&n->msgs_rx) - prev->msgs_rx;

	printf("qp 0x%06x: %s %.0f msg/s %.1f Mbit/s, received %.0f msg/s, "
	       "done %" PRIu64 ", data errors %" PRIu64 "\n", c->qp->qp_num,
	       tp_op_name(c->flow.cfg.op), done / secs,
	       bytes * 8 / secs / 1e6, rx / secs, tp_load(&n->msgs_done),
	       tp_load(&n->data_errors));
}
