/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What rxd_transport_init() allocates for a QP of each type, and that
 * share of rxd_qp_memory(): the state (struct rxd_rc for RC and UC, a bare
 * struct rxd_tqp for UD), the send window (RC: one entry per send WR, as
 * a WQE stays until answered; UC and UD: the one WQE being sent) and the
 * responder resources kept for duplicate READs and atomics (RC only).
 */
#include "rxd_rc.h"

void
rxd_tqp_sizes(enum ibv_qp_type type, uint32_t sq_size,
	      struct rxd_tqp_sizes *s)
{
	bool rc = type == IBV_QPT_RC;

	s->state = type == IBV_QPT_UD ? sizeof(struct rxd_tqp) :
		sizeof(struct rxd_rc);
	s->win = rc && sq_size ? sq_size : 1;
	s->res = rc ? RXD_MAX_RD_ATOMIC : 0;
}

void
rxd_transport_memory(enum ibv_qp_type type, uint32_t sq_size,
		     struct rxd_qp_memory *m)
{
	struct rxd_tqp_sizes s;

	rxd_tqp_sizes(type, sq_size, &s);
	m->transport = s.state;
	m->window_entry = sizeof(struct rxd_swqe);
	m->send_window = s.win * sizeof(struct rxd_swqe);
	m->responder_entries = s.res;
	m->responder = s.res * sizeof(struct rxd_res);
}
