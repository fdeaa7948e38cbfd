/* SPDX-License-Identifier: BSD-3-Clause */
/* The observers' copy of a QP's transport state (rxd_transport_state.h). */
#include <string.h>

#include "rxd_rc.h"
#include "rxd_transport_state.h"

/* What only a connected QP has: the peer's acknowledgements, the
 * responder's PSN and MSN, the retry budgets. */
static void
connection_state(const struct rxd_rc *rc, struct rxd_transport_state *s)
{
	s->una = rc->una;
	s->rq_psn = rc->epsn;
	s->msn = rc->msn;
	s->retry_left = rc->retry_left;
	s->rnr_left = rc->rnr_left;
}

void
rxd_transport_state(const struct rxd_qp_core *qp,
		    struct rxd_transport_state *s)
{
	const struct rxd_tqp *t = rxd_tqp(qp);

	memset(s, 0, sizeof(*s));
	if (rxd_qp_connected(qp))
		connection_state(rxd_rc(qp), s);
	s->sq_psn = t->npsn;
	s->snd_nxt = t->snd_nxt;
	s->window_used = t->tail - t->head;
	s->window_unsent = t->tail - t->cur;
	s->window_size = t->win_size;
	s->timer_armed = t->deadline != 0;
	s->rnr_waiting = t->rnr_until != 0;
	s->cnt = t->cnt;
}
