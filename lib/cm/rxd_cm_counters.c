/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM's counters (include/rxd/rxd_cm.h): a copy of what the CM counts
 * as it goes, QP1's drops from the port's QP statistics, the memory its
 * ids, events, waiting MADs and indexes hold; printed at exit with
 * RXD_CM_STATS set, one "rxd cm: NAME VALUE" line each.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "rxd/rxd.h"
#include "rxd_cm_priv.h"

#define CC(f) { #f, offsetof(struct rxd_cm_counters, f) }
static const struct {
	const char *name;
	size_t off;
} fields[] = {
	CC(mads_tx), CC(mads_rx), CC(resent), CC(timeouts), CC(backlogged),
	CC(drop_qp1), CC(drop_malformed), CC(drop_unmatched), CC(drop_tx),
	CC(rej_no_listener), CC(ids), CC(ids_peak), CC(events), CC(mem_bytes),
};

int
rxd_cm_counters(struct rxd_cm_counters *c)
{
	struct rxd_qp_stats s;
	unsigned int i;

	pthread_mutex_lock(&rxd_cm.lock);
	*c = rxd_cm.count;
	c->drop_qp1 = 0;
	for (i = 0; i < rxd_cm.n_dev; i++)
		if (rxd_qp_stats(rxd_cm.dev[i].port,
				 rxd_cm.dev[i].gsi_qp->qp_num, &s) == 0)
			c->drop_qp1 += s.dropped;
	c->events = rxd_cm.n_events;
	c->mem_bytes = c->ids * sizeof(struct rxd_cm_id) +
		rxd_cm.n_events * sizeof(struct rxd_cm_event) +
		rxd_cm.n_backlog * rxd_cm_backlog_entry_bytes() +
		rxd_cm_index_bytes();
	pthread_mutex_unlock(&rxd_cm.lock);
	return 0;
}

void
rxd_cm_counters_print(FILE *f)
{
	struct rxd_cm_counters c;
	unsigned int i;

	rxd_cm_counters(&c);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		fprintf(f, "rxd cm: %s %" PRIu64 "\n", fields[i].name,
			*(const uint64_t *)((const char *)&c + fields[i].off));
}
