/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's list of QPs with a running timer (struct rxd_timers): a QP
 * joins it when its retransmission timer or RNR wait is armed and leaves
 * when neither runs.  Only RC QPs arm them (UC and UD have no timeout).
 */
#include "rxd_rc.h"

void
rxd_timer_unlink(struct rxd_tqp *t)
{
	struct rxd_tqp **pp;

	for (pp = &t->timers->head; *pp != NULL; pp = &(*pp)->next_timer)
		if (*pp == t) {
			*pp = t->next_timer;
			break;
		}
	t->on_timer_list = false;
}

void
rxd_timer_arm(struct rxd_tqp *t, uint64_t deadline)
{
	t->deadline = deadline;
	if (t->on_timer_list || t->timers == NULL)
		return;
	t->next_timer = t->timers->head;
	t->timers->head = t;
	t->on_timer_list = true;
}

void
rxd_transport_timers(struct rxd_timers *list, uint64_t now)
{
	struct rxd_tqp *t = list->head, *next;

	for (; t != NULL; t = next) {
		next = t->next_timer;
		if (t->rnr_until && now >= t->rnr_until) {
			t->rnr_until = 0;
			if (t->rto)
				t->deadline = now + t->rto;
			rxd_qp_doorbell(t->qp);
		}
		if (t->deadline && now >= t->deadline)
			rxd_comp_timeout(rxd_rc_of(t), now);
		if (!t->rnr_until && !t->deadline)
			rxd_timer_unlink(t);
	}
}
