/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MADs QP1's send queue had no room for: a storm of thousands of
 * connections posts REQs (or DREQs) faster than the CM thread polls the
 * send completions that free the queue's slots.  They wait here, in
 * order, and go out when the CM thread has drained QP1's completions,
 * instead of being lost and resent a response timeout later.  Callers
 * hold rxd_cm.lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxd_cm_priv.h"

/** One MAD waiting for a send queue slot. */
struct rxd_cm_pending {
	struct rxd_cm_pending *next;
	uint8_t sgid_index;
	uint8_t dgid[16];
	uint8_t mad[RXD_MAD_LEN];
};

size_t
rxd_cm_backlog_entry_bytes(void)
{
	return sizeof(struct rxd_cm_pending);
}

int
rxd_cm_backlog_add(struct rxd_cm_dev *dev, uint8_t sgid_index,
		   const uint8_t dgid[16], const uint8_t mad[RXD_MAD_LEN])
{
	struct rxd_cm_pending *p = malloc(sizeof(*p));

	if (p == NULL)
		return ENOMEM;
	rxd_cm.n_backlog++;
	p->next = NULL;
	p->sgid_index = sgid_index;
	memcpy(p->dgid, dgid, 16);
	memcpy(p->mad, mad, RXD_MAD_LEN);
	if (dev->backlog_tail != NULL)
		dev->backlog_tail->next = p;
	else
		dev->backlog = p;
	dev->backlog_tail = p;
	return 0;
}

void
rxd_cm_backlog_flush(struct rxd_cm_dev *dev)
{
	struct rxd_cm_pending *p;

	while ((p = dev->backlog) != NULL &&
	       rxd_cm_gsi_post(dev, p->sgid_index, p->dgid, p->mad) != ENOMEM) {
		dev->backlog = p->next;
		if (dev->backlog == NULL)
			dev->backlog_tail = NULL;
		free(p);
		rxd_cm.n_backlog--;
	}
}
