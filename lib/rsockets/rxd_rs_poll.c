/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: rpoll and rselect over a mix of rsockets and ordinary
 * descriptors.  rsockets are polled (their CQ and CM events driven);
 * ordinary descriptors go to ppoll(2), which is also where rpoll sleeps
 * between rounds, with a back-off that grows from a yield to about a
 * millisecond so an idle wait costs little CPU.
 */
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

#include <rdma/rsocket.h>

#include "rxd_rs.h"

#define SLICE_MAX_NS 1000000L

static short
connected_events(struct rxd_rs *rs)
{
	short rev = 0;
	bool up = rs->phase == RXD_RS_ACCEPTING;

	if (rxd_rs_have_data(rs) || (!up && !rs->readable))
		rev |= POLLIN;
	if (rxd_rs_can_send(rs) || (!up && !rs->writable))
		rev |= POLLOUT;
	/* hang-up (and its error) once the data that came before is read */
	if (rs->phase == RXD_RS_CLOSED && !rxd_rs_have_data(rs))
		rev |= rs->err != 0 ? POLLHUP | POLLERR : POLLHUP;
	return rev;
}

/* The events of one rsocket now (drives it first). */
static short
rsocket_events(struct rxd_rs *rs, short events)
{
	short rev = 0;

	pthread_mutex_lock(&rs->lock);
	if (rs->phase == RXD_RS_LISTENING) {
		rxd_rs_listen_progress(rs);
		rev = rs->accept_head != NULL ? POLLIN : 0;
	} else if (rs->phase != RXD_RS_IDLE && rs->phase != RXD_RS_BOUND) {
		rxd_rs_progress(rs);
		if (rs->phase == RXD_RS_CONNECT_ERROR)
			rev = POLLOUT | POLLIN | POLLERR;
		else if (rs->phase != RXD_RS_RESOLVING &&
			 rs->phase != RXD_RS_CONNECTING)
			rev = connected_events(rs);
	}
	pthread_mutex_unlock(&rs->lock);
	return rev & (events | POLLERR | POLLHUP);
}

/* One round: rsockets' events, ordinary ones within @p wait_ns. */
static int
poll_round(struct pollfd *fds, nfds_t nfds, struct pollfd *os, long wait_ns)
{
	struct timespec ts = { wait_ns / 1000000000L, wait_ns % 1000000000L };
	nfds_t i, n_os = 0;
	int ready = 0;
	struct rxd_rs *rs;

	for (i = 0; i < nfds; i++) {
		rs = rxd_rs_lookup(fds[i].fd);
		fds[i].revents = 0;
		if (rs != NULL) {
			fds[i].revents = rsocket_events(rs, fds[i].events);
			ready += fds[i].revents != 0;
			continue;
		}
		os[n_os] = fds[i];
		os[n_os++].revents = 0;
	}
	if (ready > 0)
		ts.tv_sec = ts.tv_nsec = 0;
	if (ppoll(n_os ? os : NULL, n_os, &ts, NULL) < 0)
		return -1;
	for (i = 0, n_os = 0; i < nfds; i++) {
		if (rxd_rs_lookup(fds[i].fd) != NULL)
			continue;
		fds[i].revents = os[n_os++].revents;
		ready += fds[i].revents != 0;
	}
	return ready;
}

static uint64_t
deadline_of(int timeout)
{
	return timeout < 0 ? UINT64_MAX :
		rxd_rs_now_ns() + (uint64_t)timeout * 1000000ull;
}

int
rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	uint64_t deadline = deadline_of(timeout), now;
	struct pollfd *os = calloc(nfds ? nfds : 1, sizeof(*os));
	long slice = 0;
	int ready;

	if (os == NULL)
		return rxd_rs_fail(ENOMEM);
	for (;;) {
		now = rxd_rs_now_ns();
		if (now >= deadline)
			slice = 0;
		else if (deadline - now < (uint64_t)slice)
			slice = (long)(deadline - now);
		ready = poll_round(fds, nfds, os, slice);
		if (ready != 0 || rxd_rs_now_ns() >= deadline)
			break;
		if (slice == 0)
			sched_yield();
		slice = slice == 0 ? 10000 :
			(slice * 2 > SLICE_MAX_NS ? SLICE_MAX_NS : slice * 2);
	}
	free(os);
	return ready;
}

static void
fds_from_sets(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
	      struct pollfd *p, nfds_t *n)
{
	int fd;

	*n = 0;
	for (fd = 0; fd < nfds; fd++) {
		short ev = 0;

		if (rd != NULL && FD_ISSET(fd, rd))
			ev |= POLLIN;
		if (wr != NULL && FD_ISSET(fd, wr))
			ev |= POLLOUT;
		if (ex != NULL && FD_ISSET(fd, ex))
			ev |= POLLPRI;
		if (ev != 0) {
			p[*n].fd = fd;
			p[(*n)++].events = ev;
		}
	}
}

static int
sets_from_fds(const struct pollfd *p, nfds_t n, fd_set *rd, fd_set *wr,
	      fd_set *ex)
{
	int count = 0;
	nfds_t i;

	if (rd != NULL)
		FD_ZERO(rd);
	if (wr != NULL)
		FD_ZERO(wr);
	if (ex != NULL)
		FD_ZERO(ex);
	for (i = 0; i < n; i++) {
		if (rd != NULL && (p[i].revents & (POLLIN | POLLHUP | POLLERR))) {
			FD_SET(p[i].fd, rd);
			count++;
		}
		if (wr != NULL && (p[i].revents & (POLLOUT | POLLERR))) {
			FD_SET(p[i].fd, wr);
			count++;
		}
		if (ex != NULL && (p[i].revents & POLLPRI)) {
			FD_SET(p[i].fd, ex);
			count++;
		}
	}
	return count;
}

int
rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
	struct timeval *timeout)
{
	struct pollfd *p;
	nfds_t n;
	int rc, ms = -1;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return rxd_rs_fail(EINVAL);
	p = calloc(nfds ? (size_t)nfds : 1, sizeof(*p));
	if (p == NULL)
		return rxd_rs_fail(ENOMEM);
	if (timeout != NULL)
		ms = (int)(timeout->tv_sec * 1000 + (timeout->tv_usec + 999) / 1000);
	fds_from_sets(nfds, readfds, writefds, exceptfds, p, &n);
	rc = rpoll(p, n, ms);
	if (rc >= 0)
		rc = sets_from_fds(p, n, readfds, writefds, exceptfds);
	free(p);
	return rc;
}
