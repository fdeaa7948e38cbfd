/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What rxd_transport_init() allocates for one QP, for rxd_qp_memory():
 * the RC state, its send window (one entry per send WR) and the responder
 * resources kept for duplicate READs and atomics.
 */
#include "rxd_rc.h"

void
rxd_transport_memory(uint32_t sq_size, struct rxd_qp_memory *m)
{
	uint32_t win = sq_size ? sq_size : 1;

	m->transport = sizeof(struct rxd_rc);
	m->window_entry = sizeof(struct rxd_swqe);
	m->send_window = win * sizeof(struct rxd_swqe);
	m->responder_entries = RXD_MAX_RD_ATOMIC;
	m->responder = RXD_MAX_RD_ATOMIC * sizeof(struct rxd_res);
}
