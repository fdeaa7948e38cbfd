/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer-death: the victim.  It tells the survivor its pid, takes the
 * round's order, connects (an RC QP by hand, or through rdma_cm), checks
 * a transfer each way, and then runs its side of the workload until the
 * survivor kills it: WRITE or READ streams of 256 KiB, or atomics, four
 * in flight.  It only exits by itself when something went wrong, or
 * after the final round's clean connections.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "peer_death.h"
#include "rxd_test_pattern.h"
#include "rxd/rxd.h"
#include "rxd_test_sock.h"

#define RECV_ID 0xfffffffful

/* Our WRITE and SEND to the survivor, its WRITE and SEND to us. */
static int
check_transfer(struct pd_conn *c, const struct pd_peer *peer,
	       unsigned int round)
{
	struct ibv_wc wc;
	int i;

	rxd_test_fill(pd_dev.buf + PD_LOCAL, PD_CHECK_LEN, round * 2 + 1);
	if (pd_post(c->qp, IBV_WR_RDMA_WRITE, 1, PD_LOCAL, PD_CHECK_LEN,
		    peer, 0) ||
	    pd_post(c->qp, IBV_WR_SEND, 2, PD_LOCAL, 0, peer, 0))
		return -1;
	for (i = 0; i < 3; i++)         /* two sends, one receive */
		if (pd_wait_wc(c->cq, &wc, 15000) ||
		    wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "victim: transfer: %s\n",
				ibv_wc_status_str(wc.status));
			pd_diag("victim", c->qp->qp_num);
			return -1;
		}
	return rxd_test_holds(pd_dev.buf, PD_CHECK_LEN, round * 2 + 2) ? 0 : -1;
}

static enum ibv_wr_opcode
stream_op(enum pd_work w, uint64_t n)
{
	if (w == W_VICTIM_READ)
		return IBV_WR_RDMA_READ;
	if (w == W_VICTIM_ATOMIC)
		return n % 2 ? IBV_WR_ATOMIC_CMP_AND_SWP :
			IBV_WR_ATOMIC_FETCH_AND_ADD;
	return IBV_WR_RDMA_WRITE;
}

/* Our side of the workload, until the kill. */
static int
stream(int s, struct pd_conn *c, const struct pd_peer *peer, enum pd_work w)
{
	bool active = w == W_VICTIM_WRITE || w == W_VICTIM_READ ||
		w == W_VICTIM_ATOMIC, told = !active;
	uint64_t posted = 0, done = 0, slot;
	unsigned int spins = 0;
	struct ibv_wc wc;

	if (told && pd_sock_write(s, "g", 1))
		return -1;
	for (;;) {
		while (active && posted - done < PD_WINDOW) {
			slot = posted % PD_WINDOW;
			if (pd_post(c->qp, stream_op(w, posted), posted,
				    PD_LOCAL + slot * PD_STREAM_LEN,
				    PD_STREAM_LEN, peer, w == W_VICTIM_ATOMIC ?
				    slot * 8 : slot * PD_STREAM_LEN))
				return -1;
			posted++;
		}
		if (ibv_poll_cq(c->cq, 1, &wc) != 1) {
			pd_idle(&spins);
			continue;
		}
		spins = 0;
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "victim: %s\n",
				ibv_wc_status_str(wc.status));
			return -1;
		}
		done++;
		if (!told && pd_sock_write(s, "g", 1) == 0)
			told = true;
	}
}

static int
verbs_victim(int s, const struct pd_order *ord)
{
	struct pd_conn c = { 0 };
	struct pd_peer me, peer;
	char r;

	if (pd_conn_create(&c))
		return 1;
	me = pd_conn_self(&c);
	if (pd_sock_read(s, &peer, sizeof(peer)) ||
	    pd_sock_write(s, &me, sizeof(me)) ||
	    pd_conn_connect(&c, &peer, 1) || pd_post_recv(c.qp, RECV_ID) ||
	    pd_sock_write(s, "R", 1) || pd_sock_read(s, &r, 1))
		return 1;
	if (check_transfer(&c, &peer, ord->round) != 0) {
		(void)pd_sock_write(s, "X", 1);
		return 1;
	}
	if (pd_sock_write(s, "V", 1))
		return 1;
	if (ord->work == W_FINAL) {
		pd_conn_destroy(&c);
		return pd_cm_victim("10.0.0.1", true) ? 1 : 0;
	}
	if (pd_sock_read(s, &r, 1) || r != 'G')
		return 1;
	return stream(s, &c, &peer, (enum pd_work)ord->work) ? 1 : 0;
}

/* memif's link comes up a moment after the EAL starts; rdma_cm's
 * address resolution would give up if it came later than 2 s. */
static void
wait_link(void)
{
	struct rxd_port_info pi;
	int i;

	for (i = 0; i < 3000; i++) {
		if (rxd_port_info(0, &pi) == 0 && pi.link_up)
			return;
		usleep(10000);
	}
}

int
pd_victim(const char *sock_path)
{
	struct pd_order ord;
	int s = rxd_test_sock_open(false, sock_path), pid = getpid(), rc;

	if (s < 0 || pd_sock_write(s, &pid, sizeof(pid)) ||
	    pd_sock_read(s, &ord, sizeof(ord)) || ord.work > W_FINAL) {
		fprintf(stderr, "victim: no order from the survivor\n");
		return 1;
	}
	printf("victim %d: round %u, %s\n", pid, ord.round,
	       pd_work_name[ord.work]);
	fflush(stdout);
	wait_link();
	rc = ord.work == W_CM ? pd_cm_victim("10.0.0.1", false) :
		verbs_victim(s, &ord);
	close(s);
	return rc;
}
