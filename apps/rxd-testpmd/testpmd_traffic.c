/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The traffic commands: start (checked against the buffer layout), stop,
 * wait for counted runs or for received messages; and what the worker and
 * the commands share (times, slot sizes, the report of a run).
 *
 * A connection's buffer (TP_BUF_SIZE, the same layout on both sides):
 *   [0, TP_TX_AREA)            send and write sources, read targets:
 *                              DEPTH slots of SIZE rounded up to 64
 *   [TP_RECV_OFF, +32 x 256K)  the receives, kept posted
 *   [TP_WRITE_OFF, +32 MiB)    where the peer writes (and reads from)
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "testpmd.h"

#define STOP_DRAIN_S 10

static const char *const op_names[] = {
	[TP_OP_SEND] = "send", [TP_OP_WRITE] = "write", [TP_OP_READ] = "read",
};

const char *
tp_op_name(enum tp_op op)
{
	return op_names[op];
}

uint64_t
tp_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

uint64_t
tp_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint32_t
tp_slot_size(uint32_t size)
{
	return RTE_ALIGN_CEIL(size ? size : 1, TP_SLOT_ALIGN);
}

uint32_t
tp_write_slots(uint32_t size)
{
	return TP_WRITE_AREA / tp_slot_size(size);
}

void
tp_report_run(const struct tp_conn *c, const char *how)
{
	const struct tp_flow *f = &c->flow;
	double secs = (tp_now_ns() - f->run_start_ns) / 1e9;
	uint64_t n = tp_load(&f->completed);

	printf("qp 0x%06x: traffic %s: %" PRIu64 " %s of %u B in %.3f s, "
	       "%.1f Mbit/s\n", c->qp->qp_num, how, n, tp_op_name(f->cfg.op),
	       f->cfg.size, secs, secs > 0 ? n * f->cfg.size * 8 / secs / 1e6
	       : 0.0);
}

/* Why cfg cannot run, or NULL. */
static const char *
check_cfg(const struct tp_flow_cfg *cfg)
{
	if (cfg->depth == 0 || cfg->depth > TP_SQ_DEPTH)
		return "DEPTH must be 1..256";
	if ((uint64_t)cfg->depth * tp_slot_size(cfg->size) > TP_TX_AREA)
		return "SIZE x DEPTH exceeds the 16 MiB send area";
	if (cfg->op == TP_OP_SEND && cfg->size > TP_RECV_SLOT)
		return "send SIZE is at most 262144 (the peer's receives)";
	if (cfg->op == TP_OP_WRITE && cfg->size < TP_HEADER_LEN)
		return "write SIZE must be at least 16 (the message header)";
	if (cfg->op == TP_OP_WRITE &&
	    tp_write_slots(cfg->size) < TP_RECV_DEPTH + cfg->depth)
		return "write SIZE too large for DEPTH: the peer's 32 MiB "
			"must hold DEPTH + 32 messages";
	if (cfg->op == TP_OP_READ && cfg->size > TP_WRITE_AREA)
		return "read SIZE is at most 32 MiB";
	return NULL;
}

static bool
flow_idle(const struct tp_flow *f)
{
	return !__atomic_load_n(&f->active, __ATOMIC_ACQUIRE) &&
		tp_load(&f->outstanding) == 0;
}

/* Every connection can start a run; else print which cannot. */
static bool
all_ready(const char *what)
{
	unsigned int i;
	struct tp_conn *c;

	if (tp_conn_count() == 0) {
		fprintf(stderr, "%s: no QPs (listen or connect first)\n", what);
		return false;
	}
	for (i = 0; i < tp_conn_count(); i++) {
		c = tp_conn_get(i);
		if (__atomic_load_n(&c->flow.broken, __ATOMIC_ACQUIRE)) {
			fprintf(stderr, "%s: qp 0x%06x has failed\n", what,
				c->qp->qp_num);
			return false;
		}
		if (!flow_idle(&c->flow)) {
			fprintf(stderr, "%s: traffic is running on qp 0x%06x "
				"(stop traffic first)\n", what, c->qp->qp_num);
			return false;
		}
	}
	return true;
}

int
tp_start_traffic(const struct tp_args *a)
{
	struct tp_flow_cfg cfg = { .size = a->size, .depth = a->depth,
				   .count = a->count };
	const char *why;
	struct tp_flow *f;
	unsigned int i;

	for (cfg.op = TP_OP_SEND; strcmp(op_names[cfg.op], a->word[2]) != 0;
	     cfg.op++)
		;
	why = check_cfg(&cfg);
	if (why != NULL) {
		fprintf(stderr, "start traffic: %s\n", why);
		return -1;
	}
	if (!all_ready("start traffic"))
		return -1;
	for (i = 0; i < tp_conn_count(); i++) {
		f = &tp_conn_get(i)->flow;
		f->cfg = cfg;
		__atomic_store_n(&f->posted, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&f->completed, 0, __ATOMIC_RELAXED);
		f->run_start_ns = tp_now_ns();
		__atomic_store_n(&f->active, 1, __ATOMIC_RELEASE);
	}
	printf("traffic started on %u QP(s): %s %u B, depth %u, %s\n",
	       tp_conn_count(), tp_op_name(cfg.op), cfg.size, cfg.depth,
	       cfg.count ? "counted" : "until stopped");
	return 0;
}

int
tp_stop_traffic(const struct tp_args *a)
{
	bool was[TP_MAX_CONNS];
	unsigned int i, ms;
	struct tp_conn *c;

	(void)a;
	for (i = 0; i < tp_conn_count(); i++)
		was[i] = __atomic_exchange_n(&tp_conn_get(i)->flow.active, 0,
					     __ATOMIC_ACQ_REL);
	for (i = 0; i < tp_conn_count(); i++) {
		c = tp_conn_get(i);
		for (ms = 0; !flow_idle(&c->flow) &&
		     ms < STOP_DRAIN_S * 1000; ms += 10)
			tp_sleep_ms(10);
		if (!flow_idle(&c->flow))
			printf("qp 0x%06x: %" PRIu64 " WRs still outstanding\n",
			       c->qp->qp_num, tp_load(&c->flow.outstanding));
		else if (was[i])
			tp_report_run(c, "stopped");
	}
	return 0;
}

int
tp_wait_traffic(const struct tp_args *a)
{
	unsigned int i, busy = 0, ms;
	struct tp_conn *c;

	if (tp_conn_count() == 0) {
		fprintf(stderr, "wait traffic: no QPs\n");
		return -1;
	}
	for (ms = 0; ms <= a->seconds * 1000u; ms += 10) {
		for (i = 0, busy = 0; i < tp_conn_count(); i++) {
			c = tp_conn_get(i);
			if (__atomic_load_n(&c->flow.broken, __ATOMIC_ACQUIRE)) {
				fprintf(stderr, "wait traffic: qp 0x%06x "
					"failed\n", c->qp->qp_num);
				return -1;
			}
			busy += !flow_idle(&c->flow);
		}
		if (busy == 0 || !tp_sleep_ms(10))
			break;
	}
	if (busy == 0)
		return 0;
	fprintf(stderr, "wait traffic: %u QP(s) still busy after %u s\n",
		busy, a->seconds);
	return -1;
}

int
tp_wait_rx(const struct tp_args *a)
{
	unsigned int i, ms;
	uint64_t got = 0;

	for (ms = 0; ms <= a->seconds * 1000u; ms += 10) {
		for (i = 0, got = 0; i < tp_conn_count(); i++)
			got += tp_load(&tp_conn_get(i)->flow.cnt.msgs_rx);
		if (got >= a->count) {
			printf("received %" PRIu64 " messages\n", got);
			return 0;
		}
		if (!tp_sleep_ms(10))
			break;
	}
	fprintf(stderr, "wait rx: %" PRIu64 " of %" PRIu64 " messages "
		"received after %u s\n", got, a->count, a->seconds);
	return -1;
}
