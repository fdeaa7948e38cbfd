/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd_qp_memory(): the memory one QP takes, computed from the structures
 * and allocations of rxd_verbs_create_qp_ex(): the verbs object, the send
 * and receive rings (rte_ring, RING_F_EXACT_SZ), the ibv_wr_* staging of
 * extended QPs, and the transport's share (rxd_qp_transport_memory()).
 */
#include <string.h>

#include <rte_common.h>

#include "rxd_qp.h"

/* Slots of an RING_F_EXACT_SZ ring asked for n entries (at least 1). */
static unsigned int
ring_slots(uint32_t n)
{
	return rte_align32pow2((n ? n : 1) + 1);
}

static size_t
ring_bytes(size_t esize, unsigned int slots)
{
	ssize_t n = rte_ring_get_memsize_elem((unsigned int)esize, slots);

	return n > 0 ? (size_t)n : 0;
}

void
rxd_qp_memory(int qp_type, uint32_t max_send_wr, uint32_t max_recv_wr,
	      bool extended, struct rxd_qp_memory *m)
{
	memset(m, 0, sizeof(*m));
	rxd_qp_transport_memory((enum ibv_qp_type)qp_type, max_send_wr, m);
	m->verbs_qp = sizeof(struct rxd_qp);
	m->send_wqe = sizeof(struct rxd_send_wqe);
	m->recv_wqe = sizeof(struct rxd_recv_wqe);
	m->cqe = sizeof(struct rxd_cqe);
	m->sq_slots = ring_slots(max_send_wr);
	m->rq_slots = ring_slots(max_recv_wr);
	m->sq_ring = ring_bytes(m->send_wqe, m->sq_slots);
	m->rq_ring = ring_bytes(m->recv_wqe, m->rq_slots);
	if (extended)
		m->wr_batch = rxd_verbs_wr_batch_size(max_send_wr);
	m->total = m->verbs_qp + m->transport + m->send_window +
		m->responder + m->sq_ring + m->rq_ring + m->wr_batch;
}
