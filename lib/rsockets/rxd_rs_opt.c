/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: options and names.  Owns rsetsockopt, rgetsockopt, rfcntl,
 * rgetpeername and rgetsockname.  Buffer and queue sizes (SO_SNDBUF,
 * SO_RCVBUF, RDMA_SQSIZE, RDMA_RQSIZE, RDMA_INLINE, RDMA_IOMAPSIZE) take
 * effect at the next connect or accept; the others are kept and
 * reported back (rsockets never delay small writes, so TCP_NODELAY is
 * always true in effect); TCP_INFO reads as a TCP connection's.
 */
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <string.h>

#include <rdma/rsocket.h>

#include "rxd_rs.h"

#define MSS 2048

static int
int_of(const void *v, socklen_t len)
{
	int i = 0;

	if (v != NULL && len >= sizeof(int))
		memcpy(&i, v, sizeof(int));
	return i;
}

static int
set_socket_opt(struct rxd_rs *rs, int name, const void *v, socklen_t len)
{
	int i = int_of(v, len);

	switch (name) {
	case SO_REUSEADDR:
		rs->opts.reuseaddr = i;
		return 0;
	case SO_KEEPALIVE:
		rs->opts.keepalive = i;
		return 0;
	case SO_OOBINLINE:
		rs->opts.oobinline = i;
		return 0;
	case SO_RCVBUF:
		if (rs->rbuf == NULL && i > 0)
			rs->tun.rbuf_size = (uint32_t)i << 1;
		return 0;
	case SO_SNDBUF:
		if (rs->sbuf == NULL && i > 0)
			rs->tun.sbuf_size = (uint32_t)i << 1;
		return 0;
	case SO_LINGER:
		if (v == NULL || len < sizeof(struct linger))
			return EINVAL;
		memcpy(&rs->opts.linger, v, sizeof(struct linger));
		return 0;
	default:
		return ENOTSUP;
	}
}

static int
set_rdma_opt(struct rxd_rs *rs, int name, const void *v, socklen_t len)
{
	int i = int_of(v, len);

	if (rs->rbuf != NULL)
		return EINVAL;           /* sizes are fixed once connected */
	switch (name) {
	case RDMA_SQSIZE:
		rs->tun.sq_size = (uint16_t)(i > RXD_RS_QP_MAX ? RXD_RS_QP_MAX : i);
		return 0;
	case RDMA_RQSIZE:
		rs->tun.rq_size = (uint16_t)(i > RXD_RS_QP_MAX ? RXD_RS_QP_MAX : i);
		return 0;
	case RDMA_INLINE:
		rs->tun.sq_inline = (uint16_t)(i > 256 ? 256 : (i < 0 ? 0 : i));
		return 0;
	case RDMA_IOMAPSIZE:
		rs->tun.iomap_size = (uint16_t)rxd_rs_scale_decode(
			rxd_rs_scale_encode(i < 0 ? 0 : (unsigned int)i));
		return 0;
	default:
		return ENOTSUP;
	}
}

static int
set_opt(struct rxd_rs *rs, int level, int name, const void *v, socklen_t len)
{
	switch (level) {
	case SOL_SOCKET:
		return set_socket_opt(rs, name, v, len);
	case IPPROTO_TCP:
		if (name == TCP_NODELAY)
			rs->opts.nodelay = int_of(v, len);
		else if (name == TCP_KEEPIDLE)
			rs->opts.keepidle = int_of(v, len);
		else if (name != TCP_MAXSEG)
			return ENOTSUP;
		return 0;
	case IPPROTO_IPV6:
		if (name != IPV6_V6ONLY)
			return ENOTSUP;
		rs->opts.v6only = int_of(v, len);
		return 0;
	case SOL_RDMA:
		return set_rdma_opt(rs, name, v, len);
	default:
		return ENOTSUP;
	}
}

int
rsetsockopt(int socket, int level, int optname, const void *optval,
	    socklen_t optlen)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	int rc;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	pthread_mutex_lock(&rs->lock);
	rc = set_opt(rs, level, optname, optval, optlen);
	pthread_mutex_unlock(&rs->lock);
	return rc == 0 ? 0 : rxd_rs_fail(rc);
}

/* The value of an int option, or -1 when unknown. */
static int
int_opt(struct rxd_rs *rs, int level, int name, bool *known)
{
	*known = true;
	if (level == SOL_SOCKET && name == SO_ERROR)
		return rs->err;
	if (level == SOL_SOCKET && name == SO_REUSEADDR)
		return rs->opts.reuseaddr;
	if (level == SOL_SOCKET && name == SO_KEEPALIVE)
		return rs->opts.keepalive;
	if (level == SOL_SOCKET && name == SO_OOBINLINE)
		return rs->opts.oobinline;
	if (level == SOL_SOCKET && name == SO_RCVBUF)
		return (int)(rs->tun.rbuf_size >> 1);
	if (level == SOL_SOCKET && name == SO_SNDBUF)
		return (int)(rs->tun.sbuf_size >> 1);
	if (level == SOL_SOCKET && name == SO_TYPE)
		return SOCK_STREAM;
	if (level == IPPROTO_TCP && name == TCP_NODELAY)
		return 1;
	if (level == IPPROTO_TCP && name == TCP_MAXSEG)
		return MSS;
	if (level == IPPROTO_TCP && name == TCP_KEEPIDLE)
		return rs->opts.keepidle;
	if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY)
		return rs->opts.v6only;
	if (level == SOL_RDMA && name == RDMA_SQSIZE)
		return rs->tun.sq_size;
	if (level == SOL_RDMA && name == RDMA_RQSIZE)
		return rs->tun.rq_size;
	if (level == SOL_RDMA && name == RDMA_INLINE)
		return rs->tun.sq_inline;
	if (level == SOL_RDMA && name == RDMA_IOMAPSIZE)
		return rs->tun.iomap_size;
	*known = false;
	return -1;
}

/*
 * TCP_INFO as a TCP socket would fill it, for tools that read it each
 * interval (iperf3): the state, our segment size, a congestion window of
 * the whole send ring and no retransmission (the transport's are its
 * own); the rest is zero.
 */
static socklen_t
tcp_info_of(const struct rxd_rs *rs, void *out, socklen_t len)
{
	struct tcp_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tcpi_state = rs->phase == RXD_RS_CONNECTED ? TCP_ESTABLISHED :
		rs->phase == RXD_RS_LISTENING ? TCP_LISTEN : TCP_CLOSE;
	ti.tcpi_snd_mss = ti.tcpi_rcv_mss = ti.tcpi_advmss = MSS;
	ti.tcpi_pmtu = MSS;
	ti.tcpi_snd_cwnd = rs->tun.sbuf_size / MSS;
	if (len > sizeof(ti))
		len = sizeof(ti);
	memcpy(out, &ti, len);
	return len;
}

int
rgetsockopt(int socket, int level, int optname, void *optval,
	    socklen_t *optlen)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	bool known;
	int v;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	if (optval == NULL || optlen == NULL)
		return rxd_rs_fail(EFAULT);
	pthread_mutex_lock(&rs->lock);
	if (level == SOL_SOCKET && optname == SO_LINGER &&
	    *optlen >= sizeof(struct linger)) {
		memcpy(optval, &rs->opts.linger, sizeof(struct linger));
		*optlen = sizeof(struct linger);
		pthread_mutex_unlock(&rs->lock);
		return 0;
	}
	if (level == IPPROTO_TCP && optname == TCP_INFO) {
		*optlen = tcp_info_of(rs, optval, *optlen);
		pthread_mutex_unlock(&rs->lock);
		return 0;
	}
	v = int_opt(rs, level, optname, &known);
	pthread_mutex_unlock(&rs->lock);
	if (!known || *optlen < sizeof(int))
		return rxd_rs_fail(known ? EINVAL : ENOTSUP);
	memcpy(optval, &v, sizeof(int));
	*optlen = sizeof(int);
	return 0;
}

int
rfcntl(int socket, int cmd, ...)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	va_list ap;
	int arg, rc = 0;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	va_start(ap, cmd);
	arg = cmd == F_SETFL ? va_arg(ap, int) : 0;
	va_end(ap);
	pthread_mutex_lock(&rs->lock);
	if (cmd == F_GETFL)
		rc = rs->fd_flags | O_RDWR;
	else if (cmd == F_SETFL)
		rs->fd_flags = arg & O_NONBLOCK;
	else
		rc = rxd_rs_fail(ENOTSUP);
	pthread_mutex_unlock(&rs->lock);
	return rc;
}

static int
copy_name(int socket, bool peer, struct sockaddr *addr, socklen_t *len)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	const struct sockaddr *sa;
	socklen_t n;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	if (addr == NULL || len == NULL)
		return rxd_rs_fail(EFAULT);
	sa = peer ? rdma_get_peer_addr(rs->id) : rdma_get_local_addr(rs->id);
	if (peer && rs->phase != RXD_RS_CONNECTED &&
	    rs->phase != RXD_RS_ACCEPTING && rs->phase != RXD_RS_CLOSED)
		return rxd_rs_fail(ENOTCONN);
	n = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
		sizeof(struct sockaddr_in);
	memcpy(addr, sa, *len < n ? *len : n);
	*len = n;
	return 0;
}

int
rgetpeername(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return copy_name(socket, true, addr, addrlen);
}

int
rgetsockname(int socket, struct sockaddr *addr, socklen_t *addrlen)
{
	return copy_name(socket, false, addr, addrlen);
}
