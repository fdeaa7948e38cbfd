/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_pdump in the primary process, so that dpdk-dumpcap and dpdk-pdump
 * (secondary processes) capture rxd's ports as they do any DPDK
 * application's, beside rxd's own capture.  Their callbacks run inside
 * ethdev's receive and transmit bursts only while a capture is on.  A
 * secondary process needs the primary's shared configuration: hugepages,
 * and EAL without --no-shconf or --in-memory (doc/user-guide.md).
 */
#include <stdbool.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_pdump.h>

#include "rxd_observe.h"
#include "rxd_stack.h"

static bool pdump_ours;

void
rxd_pdump_open(void)
{
	if (pdump_ours || rte_eal_process_type() != RTE_PROC_PRIMARY)
		return;
	if (rte_pdump_init() == 0) {
		pdump_ours = true;
		return;
	}
	rte_log(RTE_LOG_INFO, rxd_logtype_stack, "rxd: rte_pdump not "
		"enabled by rxd (%s): the application's own, or none\n",
		rte_strerror(rte_errno));
}

void
rxd_pdump_close(void)
{
	if (!pdump_ours)
		return;
	rte_pdump_uninit();
	pdump_ours = false;
}
