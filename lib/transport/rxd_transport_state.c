/* SPDX-License-Identifier: BSD-3-Clause */
/* The observers' copy of a QP's transport state (rxd_transport_state.h). */
#include "rxd_rc.h"
#include "rxd_transport_state.h"

void
rxd_transport_state(const struct rxd_qp_core *qp,
		    struct rxd_transport_state *s)
{
	const struct rxd_rc *rc = rxd_rc(qp);

	s->sq_psn = rc->npsn;
	s->una = rc->una;
	s->snd_nxt = rc->snd_nxt;
	s->rq_psn = rc->epsn;
	s->msn = rc->msn;
	s->window_used = rc->tail - rc->head;
	s->window_unsent = rc->tail - rc->cur;
	s->window_size = rc->win_size;
	s->retry_left = rc->retry_left;
	s->rnr_left = rc->rnr_left;
	s->timer_armed = rc->deadline != 0;
	s->rnr_waiting = rc->rnr_until != 0;
	s->cnt = rc->cnt;
}
