/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets: the end of a connection.  Owns rshutdown and rclose: a
 * shutdown sends the control message rsockets use (SHUTDOWN when one
 * direction stays open, DISCONNECT when none does) and waits until every
 * posted send has completed; rclose then disconnects the CM id and frees
 * the rsocket (and, for a listener, the connections nobody accepted).
 */
#include <fcntl.h>

#include <rdma/rsocket.h>

#include "rxd_rs.h"

/* The control message @p how leaves to send, or -1 for none. */
static int
close_directions(struct rxd_rs *rs, int how)
{
	if (how == SHUT_RDWR) {
		rs->readable = rs->writable = false;
		return RXD_RS_CTRL_DISCONNECT;
	}
	if (how == SHUT_WR) {
		rs->writable = false;
		return rs->readable ? RXD_RS_CTRL_SHUTDOWN :
			RXD_RS_CTRL_DISCONNECT;
	}
	rs->readable = false;
	return rs->writable ? -1 : RXD_RS_CTRL_DISCONNECT;
}

/* Wait, whatever O_NONBLOCK says, while @p busy and still connected. */
static void
drain(struct rxd_rs *rs, bool (*done)(const struct rxd_rs *))
{
	unsigned int round = 0;

	for (;;) {
		rxd_rs_progress(rs);
		if (done(rs) || rs->phase != RXD_RS_CONNECTED)
			return;
		rxd_rs_pause(rs, round++);
	}
}

static int
shutdown_locked(struct rxd_rs *rs, int how)
{
	int ctrl, rc;

	if (rs->phase != RXD_RS_CONNECTED)
		return rs->phase == RXD_RS_CLOSED ? 0 : ENOTCONN;
	ctrl = close_directions(rs, how);
	if (ctrl >= 0) {
		drain(rs, rxd_rs_ctrl_avail);
		if (rs->phase == RXD_RS_CONNECTED && rxd_rs_ctrl_avail(rs)) {
			rs->ctrl_seqno++;
			rc = rxd_rs_post_msg(rs, rxd_rs_imm(RXD_RS_OP_CTRL,
							    (uint32_t)ctrl),
					     ctrl == RXD_RS_CTRL_DISCONNECT ?
					     RXD_RS_WR_DISCONNECT :
					     RXD_RS_WR_CTRL);
			if (rc != 0)
				rxd_rs_close_with(rs, ECONNRESET);
		}
	}
	drain(rs, rxd_rs_sends_done);
	return 0;
}

int
rshutdown(int socket, int how)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket);
	int rc;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return rxd_rs_fail(EINVAL);
	pthread_mutex_lock(&rs->lock);
	rc = shutdown_locked(rs, how);
	pthread_mutex_unlock(&rs->lock);
	return rc == 0 ? 0 : rxd_rs_fail(rc);
}

int
rclose(int socket)
{
	struct rxd_rs *rs = rxd_rs_lookup(socket), *c;

	if (rs == NULL)
		return rxd_rs_fail(EBADF);
	pthread_mutex_lock(&rs->lock);
	if (rs->phase == RXD_RS_CONNECTED)
		shutdown_locked(rs, SHUT_RDWR);
	if (rs->phase == RXD_RS_CLOSED || rs->phase == RXD_RS_ACCEPTING)
		rdma_disconnect(rs->id);
	while ((c = rs->accept_head) != NULL) {
		rs->accept_head = c->accept_next;
		rxd_rs_free(c);
	}
	pthread_mutex_unlock(&rs->lock);
	rxd_rs_free(rs);
	return 0;
}
