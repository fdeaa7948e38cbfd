/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QPs an engine reaches (see rxd_engine.h): a QPN looked up in the QP
 * table the stack lends each port binding, the keepalive sweep over the
 * engine's own QPs, and which of a port's engines owns a QPN's frames.
 */
#include "rxd_engine.h"

#define KEEPALIVE_SWEEP_TICKS 100

struct rxd_qp_core *
rxd_engine_qp(const struct rxd_engine_port *ep, uint32_t qpn)
{
	if (qpn >= ep->host.qp_table_len)
		return NULL;
	return __atomic_load_n(&ep->host.qp_table[qpn], __ATOMIC_ACQUIRE);
}

void
rxd_qp_keepalive_sweep(struct rxd_engine *e, uint64_t now)
{
	uint32_t len, n;
	unsigned int i;

	if (e->n_ports == 0)
		return;
	len = e->ports[0].host.qp_table_len;   /* every port has max_qp */
	for (n = len / KEEPALIVE_SWEEP_TICKS + 1; n > 0; n--) {
		e->keepalive_at = (e->keepalive_at + 1) % len;
		for (i = 0; i < e->n_ports; i++) {
			struct rxd_qp_core *qp = rxd_engine_qp(&e->ports[i],
							       e->keepalive_at);

			if (qp != NULL && qp->engine == e)
				rxd_transport_keepalive(qp, now);
		}
	}
}

unsigned int
rxd_qp_share(uint32_t qpn, unsigned int n)
{
	return qpn == RXD_QPN_GSI || qpn == RXD_QPN_MCAST ? 0 : qpn % n;
}
