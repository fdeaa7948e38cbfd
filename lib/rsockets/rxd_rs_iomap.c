/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: direct data placement.  Owns riomap, riounmap and riowrite.
 * riomap registers a buffer and, when it may be written (PROT_WRITE),
 * sends its record (offset, address, rkey, length) into a slot of the
 * peer's iomap table with an RDMA WRITE WITH IMMEDIATE (op IOMAP_SGL,
 * slot) before our next data.  riowrite RDMA-writes (no immediate, no
 * receive consumed) into whichever of the peer's mapped buffers holds
 * the offset, as the peer's records in our own table say.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>
#include <rdma/rsocket.h>

#include "rxd_rs.h"

static bool
slot_taken(const struct rxd_rs *rs, int slot)
{
	const struct rxd_rs_iomr *m;

	for (m = rs->iomaps; m != NULL; m = m->next)
		if (m->slot == slot)
			return true;
	return false;
}

static int
free_slot(const struct rxd_rs *rs)
{
	int i;

	for (i = 0; i < (int)rs->remote_iomap.length; i++)
		if (!slot_taken(rs, i))
			return i;
	return -1;
}

off_t
riomap(int socket, void *buf, size_t len, int prot, int flags, off_t offset)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	int access = IBV_ACCESS_LOCAL_WRITE;
	struct rxd_rs_iomr *m;

	(void)flags;
	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	if (prot & ~(PROT_WRITE | PROT_NONE))
		return rxd_rs_fail(EINVAL);
	pthread_mutex_lock(&rs->lock);
	m = calloc(1, sizeof(*m));
	if (m == NULL || rs->id->qp == NULL)
		goto fail;
	m->slot = -1;
	if (prot & PROT_WRITE) {
		m->slot = free_slot(rs);
		access |= IBV_ACCESS_REMOTE_WRITE;
		if (m->slot < 0)
			goto fail;
	}
	m->mr = ibv_reg_mr(rs->id->qp->pd, buf, len, access);
	if (m->mr == NULL)
		goto fail;
	m->offset = offset == -1 ? (uint64_t)(uintptr_t)buf : (uint64_t)offset;
	m->sent = m->slot < 0;
	m->next = rs->iomaps;
	rs->iomaps = m;
	pthread_mutex_unlock(&rs->lock);
	return (off_t)m->offset;
fail:
	pthread_mutex_unlock(&rs->lock);
	free(m);
	return rxd_rs_fail(rs->id->qp == NULL ? ENOTCONN : ENOMEM);
}

int
riounmap(int socket, void *buf, size_t len)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	struct rxd_rs_iomr **p, *m;
	int rc = EINVAL;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	pthread_mutex_lock(&rs->lock);
	for (p = &rs->iomaps; (m = *p) != NULL; p = &m->next) {
		if (m->mr->addr != buf || m->mr->length != len)
			continue;
		*p = m->next;
		ibv_dereg_mr(m->mr);
		free(m);
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&rs->lock);
	return rc == 0 ? 0 : rxd_rs_fail(rc);
}

void
rxd_rs_iomap_free(struct rxd_rs *rs)
{
	struct rxd_rs_iomr *m;

	while ((m = rs->iomaps) != NULL) {
		rs->iomaps = m->next;
		ibv_dereg_mr(m->mr);
		free(m);
	}
}

static int
send_record(struct rxd_rs *rs, struct rxd_rs_iomr *m)
{
	struct rxd_rs_iomap rec = {
		.offset = m->offset,
		.sge = { (uintptr_t)m->mr->addr, m->mr->rkey,
			 (uint32_t)m->mr->length },
	};
	uint8_t wire[RXD_RS_IOMAP_LEN];
	struct ibv_sge sge = { (uintptr_t)wire, sizeof(wire), 0 };

	rxd_rs_iomap_pack(&rec, rs->swap, wire);
	rs->sseq_no++;
	rs->sqe_avail--;
	return rxd_rs_post_write(rs, &sge, 1, true, rs->remote_iomap.addr +
				 (uint64_t)m->slot * RXD_RS_IOMAP_LEN,
				 rs->remote_iomap.key, true,
				 rxd_rs_imm(RXD_RS_OP_IOMAP_SGL, (uint32_t)m->slot),
				 RXD_RS_WR_IOMAP, 0);
}

int
rxd_rs_iomap_flush(struct rxd_rs *rs, bool nonblock)
{
	struct rxd_rs_iomr *m;
	int rc;

	for (m = rs->iomaps; m != NULL; m = m->next) {
		if (m->sent)
			continue;
		if (rxd_rs_wait_send(rs, nonblock) != 0)
			return -1;
		rc = send_record(rs, m);
		if (rc != 0) {
			rxd_rs_close_with(rs, ECONNRESET);
			return rxd_rs_fail(rc);
		}
		m->sent = true;
	}
	return 0;
}

/* The peer's mapping holding @p offset, from our iomap table. */
static bool
find_map(const struct rxd_rs *rs, uint64_t offset, struct rxd_rs_iomap *out)
{
	const uint8_t *table = rs->target + RXD_RS_SGL_SIZE * RXD_RS_SGE_LEN;
	unsigned int i;

	for (i = 0; i < rs->tun.iomap_size; i++) {
		rxd_rs_iomap_unpack(table + i * RXD_RS_IOMAP_LEN, false, out);
		if (out->sge.length != 0 && offset >= out->offset &&
		    offset < out->offset + out->sge.length)
			return true;
	}
	return false;
}

static ssize_t
iowrite_locked(struct rxd_rs *rs, const void *buf, size_t count,
	       uint64_t offset, bool nonblock)
{
	struct iovec v = { (void *)buf, count }, *iov = &v;
	const struct iovec *cur = iov;
	uint32_t olen = RXD_RS_XFER_START, xfer;
	size_t left = count, off = 0;
	struct rxd_rs_iomap map;
	struct rxd_rs_dest d;
	int rc;

	if (rxd_rs_iomap_flush(rs, nonblock) != 0)
		return -1;
	for (; left > 0; left -= xfer, offset += xfer) {
		if (!find_map(rs, offset, &map)) {
			errno = EINVAL;
			break;
		}
		if (rxd_rs_wait_send(rs, nonblock) != 0)
			break;
		xfer = left < olen ? (uint32_t)left : olen;
		if (olen < RXD_RS_XFER_MAX)
			olen <<= 1;
		if (xfer > rs->sbuf_avail)
			xfer = rs->sbuf_avail;
		if (xfer > map.offset + map.sge.length - offset)
			xfer = (uint32_t)(map.offset + map.sge.length - offset);
		d.addr = map.sge.addr + (offset - map.offset);
		d.rkey = map.sge.key;
		d.with_imm = false;
		d.imm = 0;
		d.kind = RXD_RS_WR_DIRECT;
		rc = rxd_rs_write_iov(rs, &cur, &off, xfer, &d);
		if (rc != 0) {
			rxd_rs_close_with(rs, ECONNRESET);
			errno = rc;
			break;
		}
	}
	if (left == count && count > 0)
		return -1;
	return (ssize_t)(count - left);
}

size_t
riowrite(int socket, const void *buf, size_t count, off_t offset, int flags)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	ssize_t n;

	if (rs == NULL)
		return (size_t)rxd_rs_fail(EBADF);
	pthread_mutex_lock(&rs->lock);
	if (rs->rmsg == NULL)
		n = rxd_rs_fail(ENOTCONN);
	else
		n = iowrite_locked(rs, buf, count, (uint64_t)offset,
				   (rs->fd_flags & O_NONBLOCK) ||
				   (flags & MSG_DONTWAIT));
	pthread_mutex_unlock(&rs->lock);
	return (size_t)n;
}
