/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What each received CM MAD does: REQ and SIDR_REQ against the listeners,
 * the others against the id they name (one handler per attribute in a
 * table), duplicates answered from the id's state.  Callers hold
 * rxd_cm.lock.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rxd/rxd.h"
#include "rxd_cm_priv.h"

static void
reply_rej(struct rxd_cm_dev *dev, const uint8_t sgid[16],
	  const uint8_t dst[16], const struct rxd_cm_msg *req, uint16_t why)
{
	struct rxd_cm_msg m;

	rxd_cm_msg_init(&m, RXD_CM_REJ, req->tid);
	m.f[RXD_CMF_REMOTE_COMM_ID] = req->f[RXD_CMF_LOCAL_COMM_ID];
	m.f[RXD_CMF_MSG_REJECTED] = 0;
	m.f[RXD_CMF_REASON] = why;
	rxd_cm_send_to(dev, rxd_cm_sgid_index(dev, dst), sgid, &m, NULL);
}

static void
send_mra(struct rxd_cm_id *c, unsigned int what)
{
	struct rxd_cm_msg m;

	rxd_cm_msg_init(&m, RXD_CM_MRA, c->tid);
	m.f[RXD_CMF_LOCAL_COMM_ID] = c->local_comm_id;
	m.f[RXD_CMF_REMOTE_COMM_ID] = c->remote_comm_id;
	m.f[RXD_CMF_MSG_MRAED] = what;
	m.f[RXD_CMF_SERVICE_TIMEOUT] = RXD_CM_RESP_TIMEOUT;
	rxd_cm_send(c, &m);
}

static void
req_input(struct rxd_cm_dev *dev, const uint8_t sgid[16],
	  const struct rxd_cm_msg *m)
{
	struct rxd_cm_id *c = rxd_cm_id_by_peer((uint32_t)m->f[RXD_CMF_LOCAL_COMM_ID],
				      sgid), *l;
	struct rxd_cm_ip_hdr h;
	struct rdma_cm_event *ev;

	if (c != NULL) {        /* a resent REQ: our answer was lost */
		if (c->state == RXD_CMS_REQ_RCVD)
			send_mra(c, 0);
		else if (c->state == RXD_CMS_REP_SENT)
			rxd_cm_gsi_send(dev, c->sgid_index, c->dgid,
					c->retry.mad);
		return;
	}
	if (rxd_cm_ip_hdr_decode(m->pdata, &h) != 0) {
		fprintf(stderr, "rxd cm: REQ without an RDMA CM IP header "
			"ignored\n");
		return;
	}
	l = rxd_cm_listener(dev, m->f[RXD_CMF_SERVICE_ID], h.dst);
	if (l == NULL || l->id.ps == RDMA_PS_UDP) {
		rxd_cm.count.rej_no_listener++;
		reply_rej(dev, sgid, h.dst, m, RXD_CM_REJ_INVALID_SID);
		return;
	}
	c = rxd_cm_id_child(l, dev, sgid, &h);
	if (c == NULL)
		return;
	c->state = RXD_CMS_REQ_RCVD;
	c->tid = m->tid;
	rxd_cm_index_peer(c, (uint32_t)m->f[RXD_CMF_LOCAL_COMM_ID]);
	c->remote_qpn = (uint32_t)m->f[RXD_CMF_LOCAL_QPN];
	c->remote_psn = (uint32_t)m->f[RXD_CMF_START_PSN];
	c->retry_cnt = (uint8_t)m->f[RXD_CMF_RETRY_CNT];
	c->rnr_retry = (uint8_t)m->f[RXD_CMF_RNR_RETRY];
	c->ack_timeout = (uint8_t)m->f[RXD_CMF_P_ACK_TIMEOUT];
	c->flow_label = (uint32_t)m->f[RXD_CMF_P_FLOW_LABEL];
	c->resp_res = (uint8_t)m->f[RXD_CMF_INIT_DEPTH];
	c->init_depth = (uint8_t)m->f[RXD_CMF_RESP_RES];
	if (m->f[RXD_CMF_PATH_MTU] < (uint64_t)c->mtu)
		c->mtu = (enum ibv_mtu)m->f[RXD_CMF_PATH_MTU];
	c->id.qp_type = m->f[RXD_CMF_TRANSPORT] == 1 ? IBV_QPT_UC :
		IBV_QPT_RC;
	ev = rxd_cm_event_push(c, l, RDMA_CM_EVENT_CONNECT_REQUEST, 0,
			       m->pdata + RXD_CM_IP_HDR_LEN, RXD_CM_REQ_PDATA_MAX);
	rxd_cm_conn_params(ev, m);
}

static void
rep_input(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	if (c->state == RXD_CMS_ESTABLISHED) {  /* our RTU was lost */
		rxd_cm_send_rtu(c);
		return;
	}
	if (c->state != RXD_CMS_REQ_SENT)
		return;
	rxd_cm_disarm(c);
	c->remote_comm_id = (uint32_t)m->f[RXD_CMF_LOCAL_COMM_ID];
	c->remote_qpn = (uint32_t)m->f[RXD_CMF_LOCAL_QPN];
	c->remote_psn = (uint32_t)m->f[RXD_CMF_START_PSN];
	c->rnr_retry = (uint8_t)m->f[RXD_CMF_RNR_RETRY];
	if (m->f[RXD_CMF_RESP_RES] < c->init_depth)
		c->init_depth = (uint8_t)m->f[RXD_CMF_RESP_RES];
	if (c->id.qp == NULL) {
		c->state = RXD_CMS_REP_RCVD;
		rxd_cm_conn_params(rxd_cm_event_push(c, NULL,
			RDMA_CM_EVENT_CONNECT_RESPONSE, 0, m->pdata,
			m->pdata_len), m);
		return;
	}
	if (rxd_cm_qp_ready(c) != 0) {
		reply_rej(c->dev, c->dgid, c->sgid, m, RXD_CM_REJ_CONSUMER);
		rxd_cm_fail(c, RDMA_CM_EVENT_CONNECT_ERROR, -EIO, NULL);
		return;
	}
	rxd_cm_send_rtu(c);
	rxd_cm_established(c, m);
}

static void
rtu_input(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	if (c->state == RXD_CMS_REP_SENT)
		rxd_cm_established(c, m);
}

static void
mra_input(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	if (c->state != RXD_CMS_REQ_SENT && c->state != RXD_CMS_REP_SENT)
		return;
	c->retry.deadline_ms = rxd_cm_now_ms() + 2 * rxd_cm_time_ms(RXD_CM_PKT_LIFE)
		+ rxd_cm_time_ms((unsigned int)m->f[RXD_CMF_SERVICE_TIMEOUT]);
	rxd_cm_schedule(c);
}

static void
rej_input(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	if (c->state == RXD_CMS_REQ_SENT || c->state == RXD_CMS_REP_SENT ||
	    c->state == RXD_CMS_REP_RCVD)
		rxd_cm_fail(c, RDMA_CM_EVENT_REJECTED, (int)m->f[RXD_CMF_REASON], m);
}

static void
send_drep(struct rxd_cm_dev *dev, uint8_t sgid_index, const uint8_t dgid[16],
	  const struct rxd_cm_msg *dreq)
{
	struct rxd_cm_msg m;

	rxd_cm_msg_init(&m, RXD_CM_DREP, dreq->tid);
	m.f[RXD_CMF_LOCAL_COMM_ID] = dreq->f[RXD_CMF_REMOTE_COMM_ID];
	m.f[RXD_CMF_REMOTE_COMM_ID] = dreq->f[RXD_CMF_LOCAL_COMM_ID];
	rxd_cm_send_to(dev, sgid_index, dgid, &m, NULL);
}

static void
dreq_input(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	send_drep(c->dev, c->sgid_index, c->dgid, m);
	if (c->state != RXD_CMS_ESTABLISHED && c->state != RXD_CMS_DREQ_SENT &&
	    c->state != RXD_CMS_REP_SENT)
		return;
	rxd_cm_disarm(c);
	rxd_cm_qp_error(c);
	c->state = RXD_CMS_TIMEWAIT;
	rxd_cm_event_push(c, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
}

static void
drep_input(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	(void)m;
	if (c->state != RXD_CMS_DREQ_SENT)
		return;
	rxd_cm_disarm(c);
	c->state = RXD_CMS_TIMEWAIT;
	rxd_cm_event_push(c, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
}

static void
sidr_rep_to(struct rxd_cm_dev *dev, const uint8_t sgid[16],
	    const uint8_t dst[16], const struct rxd_cm_msg *req,
	    uint8_t status)
{
	struct rxd_cm_msg m;

	rxd_cm_msg_init(&m, RXD_CM_SIDR_REP, req->tid);
	m.f[RXD_CMF_REQUEST_ID] = req->f[RXD_CMF_REQUEST_ID];
	m.f[RXD_CMF_SERVICE_ID] = req->f[RXD_CMF_SERVICE_ID];
	m.f[RXD_CMF_STATUS] = status;
	rxd_cm_send_to(dev, rxd_cm_sgid_index(dev, dst), sgid, &m, NULL);
}

static void
sidr_req_input(struct rxd_cm_dev *dev, const uint8_t sgid[16],
	       const struct rxd_cm_msg *m)
{
	struct rxd_cm_id *c, *l;
	struct rxd_cm_ip_hdr h;

	if (rxd_cm_id_by_peer((uint32_t)m->f[RXD_CMF_REQUEST_ID], sgid) != NULL)
		return;         /* a resent SIDR_REQ still being answered */
	if (rxd_cm_ip_hdr_decode(m->pdata, &h) != 0)
		return;
	l = rxd_cm_listener(dev, m->f[RXD_CMF_SERVICE_ID], h.dst);
	if (l == NULL || l->id.ps != RDMA_PS_UDP) {
		sidr_rep_to(dev, sgid, h.dst, m, RXD_CM_SIDR_UNSUPPORTED);
		return;
	}
	c = rxd_cm_id_child(l, dev, sgid, &h);
	if (c == NULL)
		return;
	c->state = RXD_CMS_SIDR_REQ_RCVD;
	c->tid = m->tid;
	rxd_cm_index_peer(c, (uint32_t)m->f[RXD_CMF_REQUEST_ID]);
	rxd_cm_ud_params(rxd_cm_event_push(c, l, RDMA_CM_EVENT_CONNECT_REQUEST, 0,
				    m->pdata + RXD_CM_IP_HDR_LEN,
				    RXD_CM_SIDR_PDATA_MAX), c, 0, 0);
}

static void
sidr_rep_input(struct rxd_cm_id *c, const struct rxd_cm_msg *m)
{
	if (c->state != RXD_CMS_SIDR_REQ_SENT)
		return;
	rxd_cm_disarm(c);
	if (m->f[RXD_CMF_STATUS] != RXD_CM_SIDR_OK) {
		rxd_cm_fail(c, RDMA_CM_EVENT_UNREACHABLE, (int)m->f[RXD_CMF_STATUS],
		     NULL);
		return;
	}
	c->state = RXD_CMS_ESTABLISHED;
	c->remote_qpn = (uint32_t)m->f[RXD_CMF_QPN];
	c->remote_qkey = (uint32_t)m->f[RXD_CMF_QKEY];
	rxd_cm_ud_params(rxd_cm_event_push(c, NULL, RDMA_CM_EVENT_ESTABLISHED, 0,
				    m->pdata, m->pdata_len),
		  c, c->remote_qpn, c->remote_qkey);
}

/* Handlers of messages about an existing id, by attribute. */
struct handler {
	uint16_t attr_id;
	enum rxd_cm_field our_id;     /* the field holding our ID */
	void (*fn)(struct rxd_cm_id *c, const struct rxd_cm_msg *m);
};

static const struct handler handlers[] = {
	{ RXD_CM_REP, RXD_CMF_REMOTE_COMM_ID, rep_input },
	{ RXD_CM_RTU, RXD_CMF_REMOTE_COMM_ID, rtu_input },
	{ RXD_CM_MRA, RXD_CMF_REMOTE_COMM_ID, mra_input },
	{ RXD_CM_REJ, RXD_CMF_REMOTE_COMM_ID, rej_input },
	{ RXD_CM_DREQ, RXD_CMF_REMOTE_COMM_ID, dreq_input },
	{ RXD_CM_DREP, RXD_CMF_REMOTE_COMM_ID, drep_input },
	{ RXD_CM_SIDR_REP, RXD_CMF_REQUEST_ID, sidr_rep_input },
};

void
rxd_cm_id_input(struct rxd_cm_dev *dev, const uint8_t sgid[16],
		const struct rxd_cm_msg *m)
{
	struct rxd_cm_id *c;
	unsigned int i;

	if (m->attr_id == RXD_CM_REQ) {
		req_input(dev, sgid, m);
		return;
	}
	if (m->attr_id == RXD_CM_SIDR_REQ) {
		sidr_req_input(dev, sgid, m);
		return;
	}
	for (i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
		if (handlers[i].attr_id != m->attr_id)
			continue;
		c = rxd_cm_id_by_comm_id((uint32_t)m->f[handlers[i].our_id]);
		if (c != NULL && c->dev == dev && !memcmp(c->dgid, sgid, 16)) {
			handlers[i].fn(c, m);
			return;
		}
		rxd_cm.count.drop_unmatched++;
		if (m->attr_id == RXD_CM_DREQ)  /* as Linux: answer */
			send_drep(dev, 1, sgid, m);
		return;
	}
	rxd_cm.count.drop_malformed++;
}
