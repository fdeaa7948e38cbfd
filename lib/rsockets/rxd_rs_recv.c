/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: receiving.  Owns rrecv, rrecvfrom, rrecvmsg, rread and
 * rreadv: data messages the peer wrote into our receive buffer are
 * copied out in order; each message taken whole returns a sequence
 * credit, each byte returns buffer space (rxd_rs_progress grants them).
 * Queued data is still delivered after the peer has gone; then 0 for an
 * orderly close, or the error that ended the connection.
 */
#include <fcntl.h>
#include <string.h>

#include <rdma/rsocket.h>

#include "rxd_rs.h"

/* Copy @p n bytes of rbuf from @p at (wrapping) to @p dst. */
static void
copy_rbuf(const struct rxd_rs *rs, uint32_t at, uint8_t *dst, uint32_t n)
{
	uint32_t end = rs->tun.rbuf_size - at;

	if (n > end) {
		memcpy(dst, rs->rbuf + at, end);
		memcpy(dst + end, rs->rbuf, n - end);
	} else {
		memcpy(dst, rs->rbuf + at, n);
	}
}

static size_t
peek(const struct rxd_rs *rs, uint8_t *buf, size_t len)
{
	unsigned int head = rs->rmsg_head;
	uint32_t at = rs->rbuf_offset, n;
	size_t done = 0;

	while (done < len && head != rs->rmsg_tail) {
		n = rs->rmsg[head];
		if (n > len - done)
			n = (uint32_t)(len - done);
		copy_rbuf(rs, at, buf + done, n);
		at = (at + n) % rs->tun.rbuf_size;
		done += n;
		head = (head + 1) % (rs->tun.rq_size + 1u);
	}
	return done;
}

static size_t
consume(struct rxd_rs *rs, uint8_t *buf, size_t len)
{
	size_t done = 0;
	uint32_t n;

	while (done < len && rxd_rs_have_data(rs)) {
		n = rs->rmsg[rs->rmsg_head];
		if (n > len - done) {
			n = (uint32_t)(len - done);
			rs->rmsg[rs->rmsg_head] -= n;
		} else {
			rs->rseq_no++;
			rs->rmsg_head = (rs->rmsg_head + 1) %
				(rs->tun.rq_size + 1u);
		}
		copy_rbuf(rs, rs->rbuf_offset, buf + done, n);
		rs->rbuf_offset = (rs->rbuf_offset + n) % rs->tun.rbuf_size;
		rs->rbuf_avail += n;
		done += n;
	}
	return done;
}

/* Wait for data or its end: 1 data queued, 0 end of stream, -1 errno. */
static int
wait_data(struct rxd_rs *rs, bool nonblock)
{
	unsigned int round = 0;

	for (;;) {
		rxd_rs_progress(rs);
		if (rxd_rs_have_data(rs))
			return 1;
		if (!rs->readable && rs->phase != RXD_RS_ACCEPTING)
			return rs->err ? rxd_rs_fail(rs->err) : 0;
		if (nonblock)
			return rxd_rs_fail(EAGAIN);
		rxd_rs_pause(rs, round++);
	}
}

static ssize_t
recv_locked(struct rxd_rs *rs, uint8_t *buf, size_t len, int flags)
{
	bool nonblock = (rs->fd_flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
	size_t done = 0;
	int rc;

	if (len == 0)
		return 0;
	do {
		rc = wait_data(rs, nonblock);
		if (rc <= 0)
			break;
		if (flags & MSG_PEEK)
			return (ssize_t)peek(rs, buf, len);
		done += consume(rs, buf + done, len - done);
	} while (done < len && (flags & MSG_WAITALL));
	if (done == 0 && rc < 0)
		return -1;
	rxd_rs_progress(rs);     /* credits for what was taken */
	return (ssize_t)done;
}

ssize_t
rrecv(int socket, void *buf, size_t len, int flags)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	ssize_t n;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	pthread_mutex_lock(&rs->lock);
	if ((rs->phase == RXD_RS_RESOLVING || rs->phase == RXD_RS_CONNECTING) &&
	    rxd_rs_connect_step(rs) != 0) {
		if (errno == EINPROGRESS)
			errno = EAGAIN;
		n = -1;
	} else if (rs->rmsg == NULL) {
		n = rxd_rs_fail(ENOTCONN);
	} else {
		n = recv_locked(rs, buf, len, flags);
	}
	pthread_mutex_unlock(&rs->lock);
	return n;
}

ssize_t
rrecvfrom(int socket, void *buf, size_t len, int flags,
	  struct sockaddr *src_addr, socklen_t *addrlen)
{
	ssize_t n = rrecv(socket, buf, len, flags);

	if (n > 0 && src_addr != NULL && addrlen != NULL)
		rgetpeername(socket, src_addr, addrlen);
	return n;
}

/* Fill the vectors in order; stops early when no more data is queued. */
static ssize_t
recv_iov(int socket, const struct iovec *iov, int iovcnt, int flags)
{
	ssize_t total = 0, n;
	int i;

	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len == 0)
			continue;
		n = rrecv(socket, iov[i].iov_base, iov[i].iov_len,
			  total > 0 ? flags | MSG_DONTWAIT : flags);
		if (n < 0)
			return total > 0 ? total : n;
		total += n;
		if ((size_t)n < iov[i].iov_len)
			break;
	}
	return total;
}

ssize_t
rrecvmsg(int socket, struct msghdr *msg, int flags)
{
	if (msg->msg_control != NULL && msg->msg_controllen != 0)
		return rxd_rs_fail(ENOTSUP);
	return recv_iov(socket, msg->msg_iov, (int)msg->msg_iovlen, flags);
}

ssize_t
rread(int socket, void *buf, size_t count)
{
	return rrecv(socket, buf, count, 0);
}

ssize_t
rreadv(int socket, const struct iovec *iov, int iovcnt)
{
	return recv_iov(socket, iov, iovcnt, 0);
}
