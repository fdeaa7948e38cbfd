/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-perf's output (see perf_report.h).  The texts, column titles and row
 * formats are perftest's, so that scripts reading perftest read these; the
 * JSON rows carry the same numbers with names, plus the QPs' rxd transport
 * counters (rxd_qp_stats(), summed over the side's QPs); --stats adds the
 * port's and the QPs' counters after the tables.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "perf_report.h"
#include "rxd/rxd.h"

#define RULE "-----------------------------------------------------------" \
	     "----------------------------\n"
#define BW_HEAD " #bytes     #iterations    BW peak[%s]    " \
		"BW average[%s]   MsgRate[Mpps]\n"
#define BW_ROW " %-7" PRIu64 "    %-10" PRIu64 "       %-7.2lf            " \
	       "%-7.2lf\t\t   %-7.6lf\n"
#define BW_ROW_FINE " %-7" PRIu64 "    %" PRIu64 "           %-7.6lf    " \
		    "        %-7.6lf            %-7.6lf\n"
#define BW_FINE_BELOW 0.1          /* Gb/s rows below get 6 decimals */
#define LAT_HEAD " #bytes #iterations    t_min[usec]    t_max[usec]  " \
		 "t_typical[usec]    t_avg[usec]    t_stdev[usec]   " \
		 "99% percentile[usec]   99.9% percentile[usec] \n"
#define LAT_ROW " %-7" PRIu64 " %" PRIu64 "          %-7.2f        %-7.2f" \
		"      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f " \
		"\t\t%-7.2f\n"
#define LAT_DUR_HEAD " #bytes        #iterations       t_avg[usec]    " \
		     "tps average\n"
#define LAT_DUR_ROW " %-7" PRIu64 "       %" PRIu64 "            %-7.2f" \
		    "        %-7.2f\n"

/* Table output (banner, tables) is on unless quiet or --json. */
static bool
tables(const struct perf_session *s)
{
	return !s->quiet && !s->o->json;
}

static bool
is_rd(const struct perf_test *t)
{
	return t->verb == PERF_READ || t->verb == PERF_ATOMIC;
}

void
perf_report_waiting(const struct perf_session *s)
{
	if (tables(s))
		printf("\n************************************\n"
		       "* Waiting for client to connect... *\n"
		       "************************************\n");
}

static void
banner_title(const struct perf_opts *o)
{
	const char *atomic = o->test->verb != PERF_ATOMIC ? "" :
			     o->cmp_swap ? " CMP_AND_SWAP" : " FETCH_AND_ADD";

	printf(RULE "                    %s%s%s %s Test\n", o->test->title,
	       atomic, o->bidir ? " Bidirectional" : "",
	       o->test->kind == PERF_BW ? "BW" : "Latency");
}

/* TX depth for a side that posts, RX depth for one that only receives. */
static void
banner_depth(const struct perf_session *s)
{
	if (s->client || s->o->bidir)
		printf(" TX depth        : %u\n", s->res.tx_depth);
	else if (s->o->test->verb == PERF_SEND)
		printf(" RX depth        : %u\n", s->res.rx_depth);
}

void
perf_report_banner(const struct perf_session *s)
{
	const struct perf_opts *o = s->o;
	const struct perf_test *t = o->test;

	if (!tables(s))
		return;
	banner_title(o);
	printf(" Dual-port       : OFF\t\tDevice         : %s\n"
	       " Number of qps   : %u\t\tTransport type : IB\n"
	       " Connection type : %s\t\tUsing SRQ      : OFF\n"
	       " PCIe relax order: %s\n"
	       " ibv_wr* API     : OFF\n", s->res.dev_name, o->num_qps,
	       o->uc ? "UC" : "RC",
	       t->kind == PERF_LAT && t->verb == PERF_WRITE ? "OFF" : "ON");
	banner_depth(s);
	if (t->kind == PERF_BW)
		printf(" CQ Moderation   : %u\n", perf_bw_cq_moderation(s));
	printf(" Mtu             : %u[B]\n"
	       " Link type       : Ethernet\n"
	       " GID index       : %d\n", 128u << s->res.mtu, s->res.gid_index);
	if (is_rd(t))
		printf(" Outstand reads  : %u\n", s->res.out_reads);
	else
		printf(" Max inline data : %u[B]\n", o->inline_size);
	printf(" rdma_cm QPs\t : OFF\n Data ex. method : Ethernet\n" RULE);
}

void
perf_report_dest(const struct perf_session *s, const struct perf_dest *d,
		 bool local)
{
	const struct perf_test *t = s->o->test;
	unsigned int i;

	if (!tables(s))
		return;
	printf(" %s address: LID %#04x QPN %#06x PSN %#06x",
	       local ? "local" : "remote", d->lid, d->qpn, d->psn);
	if (t->verb == PERF_READ)
		printf(" OUT %#04x", d->out_reads);
	if (t->verb == PERF_READ || t->verb == PERF_WRITE)
		printf(" RKey %#08x VAddr %#016" PRIx64, d->rkey, d->vaddr);
	printf("\n GID: ");
	for (i = 0; i < 16; i++)
		printf("%02d%s", d->gid[i], i < 15 ? ":" : "\n");
}

void
perf_report_rule(const struct perf_session *s)
{
	if (tables(s))
		printf(RULE);
}

void
perf_report_header(const struct perf_session *s)
{
	const char *unit = s->o->gbits ? "Gb/sec" : "MB/sec";

	if (!tables(s))
		return;
	if (s->o->test->kind == PERF_BW)
		printf(BW_HEAD, unit, unit);
	else
		printf("%s", s->o->duration != 0 ? LAT_DUR_HEAD : LAT_HEAD);
}

/* The counters of the side's QPs, summed. */
static void
qp_sum(const struct perf_session *s, struct rxd_qp_stats *sum)
{
	struct rxd_qp_stats st;
	unsigned int i, k;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < s->res.n_qps; i++) {
		if (rxd_qp_stats(s->res.rxd_port, s->res.qp[i]->qp_num, &st))
			continue;
		sum->tx_pkts += st.tx_pkts;
		sum->rx_pkts += st.rx_pkts;
		sum->retransmits += st.retransmits;
		sum->timeouts += st.timeouts;
		sum->rnr_waits += st.rnr_waits;
		sum->duplicates += st.duplicates;
		sum->out_of_sequence += st.out_of_sequence;
		sum->acks_tx += st.acks_tx;
		sum->acks_coalesced += st.acks_coalesced;
		for (k = 0; k < RTE_DIM(st.naks_rx); k++) {
			sum->naks_rx[k] += st.naks_rx[k];
			sum->naks_tx[k] += st.naks_tx[k];
		}
	}
}

/* The JSON members every row has: test, side, QPs, transport counters. */
static void
json_common(const struct perf_session *s)
{
	struct rxd_qp_stats sum;

	qp_sum(s, &sum);
	printf("{\"test\": \"%s\", \"side\": \"%s\", \"device\": \"%s\", "
	       "\"qps\": %u, \"mtu\": %u, \"qp_stats\": {\"tx_pkts\": %"
	       PRIu64 ", \"rx_pkts\": %" PRIu64 ", \"retransmits\": %" PRIu64
	       ", \"timeouts\": %" PRIu64 ", \"rnr_waits\": %" PRIu64
	       ", \"duplicates\": %" PRIu64 ", \"out_of_sequence\": %" PRIu64
	       "}, ", s->o->test->name, s->client ? "client" : "server",
	       s->res.dev_name, s->res.n_qps, 128u << s->res.mtu, sum.tx_pkts,
	       sum.rx_pkts, sum.retransmits, sum.timeouts, sum.rnr_waits,
	       sum.duplicates, sum.out_of_sequence);
}

static uint64_t
sum_of(const uint64_t *v, unsigned int n)
{
	uint64_t t = 0;

	while (n-- > 0)
		t += v[n];
	return t;
}

void
perf_report_stats(const struct perf_session *s)
{
	struct rxd_port_counters c;
	struct rxd_qp_stats q;

	if (!s->o->stats || !tables(s) ||
	    rxd_port_counters(s->res.rxd_port, &c) != 0)
		return;
	qp_sum(s, &q);
	printf(" rxd counters of %s (%s side)\n", s->res.dev_name,
	       s->client ? "client" : "server");
	printf("  port: rx %" PRIu64 " frames %" PRIu64 " bytes, tx %" PRIu64
	       " frames %" PRIu64 " bytes, RoCE rx %" PRIu64 ", malformed "
	       "or ICRC dropped %" PRIu64 ", unknown QP %" PRIu64 ", tx full %"
	       PRIu64 ", ARP rx/tx %" PRIu64 "/%" PRIu64 "\n",
	       c.rx_pkts, c.rx_bytes, c.tx_pkts, c.tx_bytes, c.roce_rx,
	       sum_of(c.wire_err, RTE_DIM(c.wire_err)), c.roce_unknown_qp,
	       c.tx_full, c.arp_rx, c.arp_tx);
	printf("  QPs : tx %" PRIu64 " rx %" PRIu64 " packets, ACKs sent %"
	       PRIu64 " (%" PRIu64 " more coalesced), NAKs sent/received %"
	       PRIu64 "/%" PRIu64 ", retransmits %" PRIu64 ", timeouts %"
	       PRIu64 ", RNR waits %" PRIu64 ", duplicates %" PRIu64
	       ", out of sequence %" PRIu64 "\n",
	       q.tx_pkts, q.rx_pkts, q.acks_tx, q.acks_coalesced,
	       sum_of(q.naks_tx, RTE_DIM(q.naks_tx)),
	       sum_of(q.naks_rx, RTE_DIM(q.naks_rx)), q.retransmits,
	       q.timeouts, q.rnr_waits, q.duplicates, q.out_of_sequence);
	perf_report_rule(s);
}

static void
json_bw(const struct perf_session *s, const struct perf_bw_result *r,
	enum perf_source src)
{
	static const char *const names[] = { "local", "remote", "both" };

	json_common(s);
	printf("\"measured_by\": \"%s\", \"bytes\": %" PRIu64
	       ", \"iterations\": %" PRIu64 ", \"bw_unit\": \"%s\", "
	       "\"bw_peak\": %.6f, \"bw_average\": %.6f, "
	       "\"msg_rate_mpps\": %.6f}\n", names[src], r->size, r->iters,
	       s->o->gbits ? "Gb/sec" : "MB/sec", r->peak, r->avg,
	       r->msg_rate);
}

void
perf_report_bw(const struct perf_session *s, const struct perf_bw_result *r,
	       const struct perf_bw_result *peer, enum perf_source src)
{
	struct perf_bw_result row = *r;
	bool fine = s->o->gbits && r->avg < BW_FINE_BELOW;

	if (s->quiet)
		return;
	if (src == PERF_SRC_BOTH) {
		row.peak += peer->peak;
		row.avg += peer->avg;
		row.msg_rate += peer->msg_rate;
	}
	if (s->o->json)
		json_bw(s, &row, src);
	else
		printf(fine ? BW_ROW_FINE : BW_ROW, row.size, row.iters,
		       row.peak, row.avg, row.msg_rate);
	fflush(stdout);
}

static void
json_lat(const struct perf_session *s, const struct perf_lat_result *r)
{
	json_common(s);
	printf("\"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64, r->size,
	       r->iters);
	if (r->duration)
		printf(", \"t_avg_usec\": %.3f, \"tps\": %.3f}\n", r->avg,
		       r->tps);
	else
		printf(", \"t_min_usec\": %.3f, \"t_max_usec\": %.3f, "
		       "\"t_typical_usec\": %.3f, \"t_avg_usec\": %.3f, "
		       "\"t_stdev_usec\": %.3f, \"p99_usec\": %.3f, "
		       "\"p99_9_usec\": %.3f}\n", r->min, r->max, r->typical,
		       r->avg, r->stdev, r->p99, r->p999);
}

void
perf_report_lat(const struct perf_session *s, const struct perf_lat_result *r)
{
	if (s->quiet)
		return;
	if (s->o->json)
		json_lat(s, r);
	else if (r->duration)
		printf(LAT_DUR_ROW, r->size, r->iters, r->avg, r->tps);
	else
		printf(LAT_ROW, r->size, r->iters, r->min, r->max, r->typical,
		       r->avg, r->stdev, r->p99, r->p999);
	fflush(stdout);
}
