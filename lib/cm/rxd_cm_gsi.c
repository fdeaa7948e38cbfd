/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP1 of every rxd port and the CM thread: the CM starts once per process
 * (opens every rxd device, makes a default PD and the GSI QP with Q_Key
 * 0x80010000, posts receive buffers), sends MADs as inline UD sends to
 * QP1 of a GID, and runs one thread that sleeps in poll() on the GSI
 * completion channels and a wake eventfd until a MAD arrives or a timer
 * is due, then hands MADs to the state machine (rxd_cm_id.c).
 */
#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rxd/rxd.h"
#include "rxd_cm_priv.h"
#include "rxd_verbs_gsi.h"

#define SLOT_LEN (RXD_CM_GRH_LEN + RXD_MAD_LEN)
#define SEND_DEPTH 1024        /**< MADs posted, completions not yet polled */

struct rxd_cm rxd_cm = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake_fd = -1 };

uint64_t
rxd_cm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
post_recv(struct rxd_cm_dev *d, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(d->rx_buf + (size_t)slot * SLOT_LEN),
		.length = SLOT_LEN, .lkey = d->rx_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(d->gsi_qp, &wr, &bad);
}

static int
gsi_ready(struct rxd_cm_dev *d)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = RXD_CM_QKEY };
	unsigned int i;

	if (ibv_modify_qp(d->gsi_qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY) != 0)
		return errno ? errno : EIO;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(d->gsi_qp, &a, IBV_QP_STATE) != 0)
		return EIO;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(d->gsi_qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0)
		return EIO;
	for (i = 0; i < d->rx_depth; i++)
		if (post_recv(d, i) != 0)
			return ENOMEM;
	return 0;
}

/* QP1 and its CQ, channel and buffers on an opened device. */
static int
gsi_create(struct rxd_cm_dev *d)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = d->tx_depth,
			 .max_recv_wr = d->rx_depth,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = RXD_MAD_LEN },
		.sq_sig_all = 1,
	};

	d->gsi_ch = ibv_create_comp_channel(d->verbs);
	if (d->gsi_ch == NULL)
		return errno;
	d->gsi_cq = rxd_verbs_create_gsi_cq(d->verbs, (int)d->cqe, d->gsi_ch);
	if (d->gsi_cq == NULL)
		return ENOMEM;
	qa.send_cq = d->gsi_cq;
	qa.recv_cq = d->gsi_cq;
	d->gsi_qp = rxd_verbs_create_gsi_qp(d->pd, &qa);
	if (d->gsi_qp == NULL)
		return errno ? errno : ENOMEM;
	d->rx_buf = calloc(d->rx_depth, SLOT_LEN);
	d->rx_mr = d->rx_buf ? ibv_reg_mr(d->pd, d->rx_buf,
					  (size_t)d->rx_depth * SLOT_LEN,
					  IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (d->rx_mr == NULL)
		return ENOMEM;
	if (ibv_req_notify_cq(d->gsi_cq, 0) != 0)
		return EIO;
	return gsi_ready(d);
}

static int
dev_open(struct rxd_cm_dev *d, struct ibv_device *ibdev, unsigned int port)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;

	static_assert(SEND_DEPTH <= RXD_GSI_MAX_WR &&
		      RXD_CM_GSI_DEPTH <= RXD_GSI_MAX_WR &&
		      SEND_DEPTH + RXD_CM_GSI_DEPTH <= RXD_GSI_MAX_CQE,
		      "QP1's queues within its own limits");

	d->port = port;
	d->verbs = ibv_open_device(ibdev);
	if (d->verbs == NULL)
		return errno ? errno : ENODEV;
	if (ibv_query_device(d->verbs, &da) != 0 ||
	    ibv_query_port(d->verbs, 1, &pa) != 0)
		return EIO;
	d->guid = be64toh(da.node_guid);
	d->mtu = pa.active_mtu;
	d->tx_depth = SEND_DEPTH;
	d->rx_depth = RXD_CM_GSI_DEPTH;
	d->cqe = d->tx_depth + d->rx_depth;
	d->pd = ibv_alloc_pd(d->verbs);
	if (d->pd == NULL)
		return ENOMEM;
	return gsi_create(d);
}

static void
mad_received(struct rxd_cm_dev *d, const struct ibv_wc *wc)
{
	const uint8_t *slot = d->rx_buf + wc->wr_id * SLOT_LEN;
	uint8_t sgid[16];
	struct rxd_cm_msg m;

	if (wc->status != IBV_WC_SUCCESS || wc->src_qp != 1 ||
	    wc->byte_len < SLOT_LEN ||
	    rxd_cm_mad_decode(slot + RXD_CM_GRH_LEN,
			      wc->byte_len - RXD_CM_GRH_LEN, &m) != 0) {
		pthread_mutex_lock(&rxd_cm.lock);
		rxd_cm.count.drop_malformed++;
		pthread_mutex_unlock(&rxd_cm.lock);
		return;
	}
	if (slot[20] >> 4 == 4) {       /* IPv4 header in bytes 20..39 */
		memset(sgid, 0, 10);
		sgid[10] = sgid[11] = 0xff;
		memcpy(sgid + 12, slot + 20 + 12, 4);
	} else {
		memcpy(sgid, slot + 8, 16);
	}
	pthread_mutex_lock(&rxd_cm.lock);
	rxd_cm.count.mads_rx++;
	rxd_cm_id_input(d, sgid, &m);
	pthread_mutex_unlock(&rxd_cm.lock);
}

/* Say when QP1 lost MADs: each costs its sender a response timeout. */
static void
report_drops(struct rxd_cm_dev *d)
{
	struct rxd_qp_stats s;

	if (rxd_qp_stats(d->port, d->gsi_qp->qp_num, &s) != 0 ||
	    s.dropped == d->rx_dropped)
		return;
	fprintf(stderr, "rxd cm: QP1 of port %u dropped %" PRIu64 " MADs "
		"(no receive buffer of %u free, or a wrong Q_Key)\n", d->port,
		s.dropped - d->rx_dropped, d->rx_depth);
	d->rx_dropped = s.dropped;
}

static void
gsi_drain(struct rxd_cm_dev *d)
{
	struct ibv_cq *cq;
	struct ibv_wc wc[16];
	void *ctx;
	int n, i;

	if (ibv_get_cq_event(d->gsi_ch, &cq, &ctx) == 0) {
		ibv_ack_cq_events(cq, 1);
		ibv_req_notify_cq(cq, 0);
	}
	while ((n = ibv_poll_cq(d->gsi_cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (!(wc[i].opcode & IBV_WC_RECV))
				continue;
			mad_received(d, &wc[i]);
			if (post_recv(d, (unsigned int)wc[i].wr_id) != 0)
				fprintf(stderr, "rxd cm: QP1 receive repost "
					"failed on port %u\n", d->port);
		}
	}
	report_drops(d);
	pthread_mutex_lock(&rxd_cm.lock);
	rxd_cm_backlog_flush(d);
	pthread_mutex_unlock(&rxd_cm.lock);
}

static void *
cm_thread(void *arg)
{
	struct pollfd pfd[RXD_CM_MAX_DEVS + 1];
	unsigned int i, wait;
	uint64_t v;

	(void)arg;
	pfd[0].fd = rxd_cm.wake_fd;
	for (i = 0; i < rxd_cm.n_dev; i++)
		pfd[i + 1].fd = rxd_cm.dev[i].gsi_ch->fd;
	for (i = 0; i <= rxd_cm.n_dev; i++)
		pfd[i].events = POLLIN;
	while (!__atomic_load_n(&rxd_cm.stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&rxd_cm.lock);
		wait = rxd_cm_id_timers(rxd_cm_now_ms());
		pthread_mutex_unlock(&rxd_cm.lock);
		if (poll(pfd, rxd_cm.n_dev + 1, (int)wait) <= 0)
			continue;
		if (pfd[0].revents & POLLIN)
			(void)!read(rxd_cm.wake_fd, &v, sizeof(v));
		for (i = 0; i < rxd_cm.n_dev; i++)
			if (pfd[i + 1].revents & POLLIN)
				gsi_drain(&rxd_cm.dev[i]);
	}
	return NULL;
}

void
rxd_cm_wake(void)
{
	uint64_t one = 1;

	if (rxd_cm.wake_fd >= 0)
		(void)!write(rxd_cm.wake_fd, &one, sizeof(one));
}

/* Before rxd stops at exit (atexit runs in reverse order). */
static void
stop_at_exit(void)
{
	__atomic_store_n(&rxd_cm.stop, true, __ATOMIC_RELEASE);
	rxd_cm_wake();
	pthread_join(rxd_cm.thread, NULL);
	if (getenv("RXD_CM_STATS") != NULL)
		rxd_cm_counters_print(stderr);
}

static int
open_devices(void)
{
	struct ibv_device **list;
	int n, i, rc = 0;

	list = ibv_get_device_list(&n);
	if (list == NULL)
		return errno ? errno : ENODEV;
	if (n == 0)
		rc = ENODEV;
	for (i = 0; rc == 0 && i < n && i < RXD_CM_MAX_DEVS; i++) {
		rc = dev_open(&rxd_cm.dev[i], list[i], (unsigned int)i);
		if (rc != 0)
			fprintf(stderr, "rxd cm: cannot set up QP1 on %s: "
				"%s\n", ibv_get_device_name(list[i]),
				strerror(rc));
		else
			rxd_cm.n_dev++;
	}
	ibv_free_device_list(list);
	return rc;
}

int
rxd_cm_start(void)
{
	int rc = 0;

	pthread_mutex_lock(&rxd_cm.lock);
	if (rxd_cm.started)
		goto out;
	rc = open_devices();
	if (rc != 0)
		goto out;
	rxd_cm.tid_next = (uint64_t)(getpid() & 0xffff) << 32 |
		(uint64_t)rxd_cm_now_ms() << 8;
	rxd_cm.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (rxd_cm.wake_fd < 0) {
		rc = errno;
		goto out;
	}
	rc = pthread_create(&rxd_cm.thread, NULL, cm_thread, NULL);
	if (rc != 0)
		goto out;
	atexit(stop_at_exit);
	rxd_cm.started = true;
out:
	pthread_mutex_unlock(&rxd_cm.lock);
	return rc;
}

int
rxd_cm_gsi_post(struct rxd_cm_dev *dev, uint8_t sgid_index,
		const uint8_t dgid[16], const uint8_t mad[RXD_MAD_LEN])
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_sge sge = { .addr = (uintptr_t)mad, .length = RXD_MAD_LEN };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_ah *ah;
	int rc;

	memcpy(aa.grh.dgid.raw, dgid, 16);
	aa.grh.sgid_index = sgid_index;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(dev->pd, &aa);
	if (ah == NULL)
		return errno ? errno : ENOMEM;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 1;
	wr.wr.ud.remote_qkey = RXD_CM_QKEY;
	rc = ibv_post_send(dev->gsi_qp, &wr, &bad);
	ibv_destroy_ah(ah);   /* the WQE holds a copy of the address */
	if (rc == 0)
		rxd_cm.count.mads_tx++;
	return rc;
}

int
rxd_cm_gsi_send(struct rxd_cm_dev *dev, uint8_t sgid_index,
		const uint8_t dgid[16], const uint8_t mad[RXD_MAD_LEN])
{
	int rc;

	if (dev->backlog == NULL) {
		rc = rxd_cm_gsi_post(dev, sgid_index, dgid, mad);
		if (rc != ENOMEM)
			return rc;
	}
	rxd_cm.count.backlogged++;
	return rxd_cm_backlog_add(dev, sgid_index, dgid, mad);
}
