/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter/gather lists against registered memory: copying bytes of a
 * WQE's SGEs to or from a buffer, and finding bytes that lie in one SGE.
 * Every SGE used must name an MR of the QP's protection domain.
 */
#include "rxd_copy.h"
#include "rxd_tqp.h"

/* Walk the SGEs from byte off and copy len bytes to or from buf; every
 * SGE used must name an MR of protection domain pd. */
bool
rxd_sge_copy(const struct ibv_pd *pd, const struct ibv_sge *sge,
	     uint32_t num_sge, uint32_t off, uint8_t *buf, uint32_t len,
	     bool to_sge)
{
	unsigned int need = to_sge ? IBV_ACCESS_LOCAL_WRITE : 0;
	uint32_t i, n;

	for (i = 0; i < num_sge && len > 0; i++) {
		const struct rxd_mr *mr;
		uint8_t *p;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - off < len ? sge[i].length - off : len;
		mr = rxd_mr_find_in(sge[i].lkey, pd);
		if (mr == NULL ||
		    !rxd_mr_allows(mr, sge[i].addr + off, n, need))
			return false;
		p = rxd_mr_addr(mr, sge[i].addr + off);
		if (to_sge)
			rxd_copy(p, buf, n);
		else
			rxd_copy(buf, p, n);
		buf += n;
		len -= n;
		off = 0;
	}
	return len == 0;
}

/*
 * Where bytes off..off+len of the SGEs are, when they lie in one SGE whose
 * MR is of protection domain pd and allows need (0 for reading,
 * IBV_ACCESS_LOCAL_WRITE for writing);
 * NULL otherwise (rxd_sge_copy then gathers or scatters them, or
 * finds the fault).
 */
uint8_t *
rxd_sge_span(const struct ibv_pd *pd, const struct ibv_sge *sge,
	     uint32_t num_sge, uint32_t off, uint32_t len, unsigned int need)
{
	const struct rxd_mr *mr;
	uint32_t i;

	for (i = 0; i < num_sge && off >= sge[i].length; i++)
		off -= sge[i].length;
	if (i == num_sge || sge[i].length - off < len)
		return NULL;
	mr = rxd_mr_find_in(sge[i].lkey, pd);
	if (mr == NULL || !rxd_mr_allows(mr, sge[i].addr + off, len, need))
		return NULL;
	return rxd_mr_addr(mr, sge[i].addr + off);
}
