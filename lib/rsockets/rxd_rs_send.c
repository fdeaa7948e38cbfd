/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: sending.  Owns rsend, rsendto, rsendmsg, rwrite and rwritev:
 * each write goes to the peer's current target SGL slot as an RDMA WRITE
 * WITH IMMEDIATE (op DATA, its length), starting at 2 KiB and doubling to
 * 64 KiB so the first bytes leave early, bounded by the credits the peer
 * granted (sequence numbers and buffer space) and by our send ring.
 */
#include <fcntl.h>
#include <string.h>

#include <rdma/rsocket.h>

#include "rxd_rs.h"

/* Copy @p len bytes from the iov cursor to @p dst. */
static void
copy_from_iov(uint8_t *dst, const struct iovec **iov, size_t *off,
	      uint32_t len)
{
	while (len > 0) {
		size_t n = (*iov)->iov_len - *off;

		if (n > len)
			n = len;
		memcpy(dst, (const uint8_t *)(*iov)->iov_base + *off, n);
		dst += n;
		len -= (uint32_t)n;
		*off += n;
		if (*off == (*iov)->iov_len) {
			(*iov)++;
			*off = 0;
		}
	}
}

int
rxd_rs_write_iov(struct rxd_rs *rs, const struct iovec **iov, size_t *off,
		 uint32_t len, const struct rxd_rs_dest *d)
{
	struct ibv_sge sge[2];
	uint32_t first = rs->tun.sbuf_size - rs->sbuf_head;
	int nsge = 1;

	rs->sqe_avail--;
	rs->sbuf_avail -= len;
	if (len <= rs->tun.sq_inline && (*iov)->iov_len - *off >= len) {
		sge[0].addr = (uintptr_t)(*iov)->iov_base + *off;
		sge[0].length = len;
		sge[0].lkey = 0;
		*off += len;
		if (*off == (*iov)->iov_len) {
			(*iov)++;
			*off = 0;
		}
		return rxd_rs_post_write(rs, sge, 1, true, d->addr, d->rkey,
					 d->with_imm, d->imm, d->kind, len);
	}
	if (first > len)
		first = len;
	sge[0].addr = (uintptr_t)rs->sbuf + rs->sbuf_head;
	sge[0].length = first;
	sge[0].lkey = rs->smr->lkey;
	copy_from_iov(rs->sbuf + rs->sbuf_head, iov, off, first);
	if (len > first) {
		sge[1].addr = (uintptr_t)rs->sbuf;
		sge[1].length = len - first;
		sge[1].lkey = rs->smr->lkey;
		copy_from_iov(rs->sbuf, iov, off, len - first);
		nsge = 2;
	}
	rs->sbuf_head = (rs->sbuf_head + len) % rs->tun.sbuf_size;
	return rxd_rs_post_write(rs, sge, nsge, false, d->addr, d->rkey,
				 d->with_imm, d->imm, d->kind, len);
}

int
rxd_rs_wait_send(struct rxd_rs *rs, bool nonblock)
{
	unsigned int round = 0;

	for (;;) {
		rxd_rs_progress(rs);
		if (rxd_rs_can_send(rs))
			return 0;
		if (rs->phase != RXD_RS_ACCEPTING &&
		    (rs->phase != RXD_RS_CONNECTED || !rs->writable))
			return rxd_rs_fail(rs->err ? rs->err : ECONNRESET);
		if (nonblock)
			return rxd_rs_fail(EAGAIN);
		rxd_rs_pause(rs, round++);
	}
}

/* Take @p len bytes of the current target slot: where they go. */
static struct rxd_rs_dest
take_target(struct rxd_rs *rs, uint32_t len)
{
	uint8_t *slot = rs->target + rs->target_sge * RXD_RS_SGE_LEN;
	struct rxd_rs_sge s;
	struct rxd_rs_dest d;

	rxd_rs_sge_unpack(slot, false, &s);
	d.addr = s.addr;
	d.rkey = s.key;
	d.with_imm = true;
	d.imm = rxd_rs_imm(RXD_RS_OP_DATA, len);
	d.kind = RXD_RS_WR_DATA;
	s.addr += len;
	s.length -= len;
	rxd_rs_sge_pack(&s, false, slot);
	if (s.length == 0)
		rs->target_sge = (rs->target_sge + 1) % RXD_RS_SGL_SIZE;
	rs->sseq_no++;
	return d;
}

static uint32_t
target_room(const struct rxd_rs *rs)
{
	struct rxd_rs_sge s;

	rxd_rs_sge_unpack(rs->target + rs->target_sge * RXD_RS_SGE_LEN,
			  false, &s);
	return s.length;
}

static ssize_t
send_locked(struct rxd_rs *rs, const struct iovec *iov, int iovcnt,
	    bool nonblock)
{
	size_t total = 0, left, off = 0;
	uint32_t olen = RXD_RS_XFER_START, xfer;
	struct rxd_rs_dest d;
	int i, rc;

	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	while (iovcnt > 0 && iov->iov_len == 0) {
		iov++;
		iovcnt--;
	}
	if (rs->iomaps != NULL && rxd_rs_iomap_flush(rs, nonblock) != 0)
		return -1;
	for (left = total; left > 0; left -= xfer) {
		if (rxd_rs_wait_send(rs, nonblock) != 0)
			break;
		xfer = left < olen ? (uint32_t)left : olen;
		if (olen < RXD_RS_XFER_MAX)
			olen <<= 1;
		if (xfer > rs->sbuf_avail)
			xfer = rs->sbuf_avail;
		if (xfer > target_room(rs))
			xfer = target_room(rs);
		d = take_target(rs, xfer);
		rc = rxd_rs_write_iov(rs, &iov, &off, xfer, &d);
		if (rc != 0) {
			rxd_rs_close_with(rs, ECONNRESET);
			errno = rc;
			break;
		}
	}
	if (left == total && total > 0)
		return -1;
	return (ssize_t)(total - left);
}

static bool
opening(const struct rxd_rs *rs)
{
	return rs->phase == RXD_RS_RESOLVING || rs->phase == RXD_RS_CONNECTING;
}

static ssize_t
send_iov(int socket, const struct iovec *iov, int iovcnt, int flags)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	ssize_t n;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	pthread_mutex_lock(&rs->lock);
	if (opening(rs) && rxd_rs_connect_step(rs) != 0) {
		if (errno == EINPROGRESS)
			errno = EAGAIN;
		n = -1;
	} else if (rs->phase == RXD_RS_IDLE || rs->phase == RXD_RS_BOUND ||
		   rs->phase == RXD_RS_LISTENING) {
		n = rxd_rs_fail(ENOTCONN);
	} else {
		n = send_locked(rs, iov, iovcnt,
				(rs->fd_flags & O_NONBLOCK) ||
				(flags & MSG_DONTWAIT));
	}
	pthread_mutex_unlock(&rs->lock);
	return n;
}

ssize_t
rsend(int socket, const void *buf, size_t len, int flags)
{
	struct iovec v = { .iov_base = (void *)buf, .iov_len = len };

	return send_iov(socket, &v, 1, flags);
}

ssize_t
rsendto(int socket, const void *buf, size_t len, int flags,
	const struct sockaddr *dest_addr, socklen_t addrlen)
{
	if (dest_addr != NULL || addrlen != 0)
		return rxd_rs_fail(EISCONN);
	return rsend(socket, buf, len, flags);
}

ssize_t
rsendmsg(int socket, const struct msghdr *msg, int flags)
{
	if (msg->msg_control != NULL && msg->msg_controllen != 0)
		return rxd_rs_fail(ENOTSUP);
	return send_iov(socket, msg->msg_iov, (int)msg->msg_iovlen, flags);
}

ssize_t
rwrite(int socket, const void *buf, size_t count)
{
	return rsend(socket, buf, count, 0);
}

ssize_t
rwritev(int socket, const struct iovec *iov, int iovcnt)
{
	return send_iov(socket, iov, iovcnt, 0);
}
