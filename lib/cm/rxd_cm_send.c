/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM MADs the API sends: REQ (with the RDMA CM IP header) or SIDR_REQ
 * for rdma_connect, REP or SIDR_REP for rdma_accept, REJ, DREQ, and the RTU
 * of rdma_establish.  Callers hold rxd_cm.lock.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rxd_cm_priv.h"
#include "rxd_wire.h"

static int
copy_pdata(struct rxd_cm_msg *m, unsigned int off, unsigned int max,
	   const struct rdma_conn_param *p)
{
	if (p == NULL || p->private_data_len == 0)
		return 0;
	if (p->private_data_len > max || p->private_data == NULL)
		return EINVAL;
	memcpy(m->pdata + off, p->private_data, p->private_data_len);
	return 0;
}

static void
put_ip_hdr(struct rxd_cm_id *c, struct rxd_cm_msg *m)
{
	struct rxd_cm_ip_hdr h = {
		.ip_version = rxd_gid_is_v4(c->sgid) ? 4 : 6,
		.src_port = c->sport,
	};

	memcpy(h.src, c->sgid, 16);
	memcpy(h.dst, c->dgid, 16);
	rxd_cm_ip_hdr_encode(&h, m->pdata);
}

static int
sidr_connect(struct rxd_cm_id *c, const struct rdma_conn_param *p)
{
	struct rxd_cm_msg m;

	rxd_cm_msg_init(&m, RXD_CM_SIDR_REQ, rxd_cm_new_tid());
	if (copy_pdata(&m, RXD_CM_IP_HDR_LEN, RXD_CM_SIDR_PDATA_MAX, p) != 0)
		return EINVAL;
	rxd_cm_take_comm_id(c);
	m.f[RXD_CMF_REQUEST_ID] = c->local_comm_id;
	m.f[RXD_CMF_PKEY] = 0xffff;
	m.f[RXD_CMF_SERVICE_ID] = rxd_cm_service_id(c->id.ps, c->dport);
	put_ip_hdr(c, &m);
	c->state = RXD_CMS_SIDR_REQ_SENT;
	rxd_cm_send_armed(c, &m);
	return 0;
}

static void
req_path(struct rxd_cm_id *c, struct rxd_cm_msg *m)
{
	m->f[RXD_CMF_P_LOCAL_LID] = 0xffff;
	m->f[RXD_CMF_P_REMOTE_LID] = 0xffff;
	memcpy(m->gid[RXD_CMA_P_LOCAL_GID], c->sgid, 16);
	memcpy(m->gid[RXD_CMA_P_REMOTE_GID], c->dgid, 16);
	m->f[RXD_CMF_P_TCLASS] = c->tos;
	m->f[RXD_CMF_P_HOP_LIMIT] = 64;
	m->f[RXD_CMF_P_ACK_TIMEOUT] = c->ack_timeout;
}

/*
 * Reads in flight a conn_param asks: RDMA_MAX_RESP_RES and
 * RDMA_MAX_INIT_DEPTH (0xFF, as libfabric's verbs provider passes) stand
 * for the device's maximum, as in rdma-core's librdmacm.
 */
static uint8_t
rd_atomic(const struct rxd_cm_id *c, uint8_t asked, bool initiator)
{
	struct ibv_device_attr a;
	int max;

	if (asked != RDMA_MAX_RESP_RES || ibv_query_device(c->dev->verbs, &a))
		return asked;
	max = initiator ? a.max_qp_init_rd_atom : a.max_qp_rd_atom;
	return (uint8_t)(max < asked ? max : asked);
}

int
rxd_cm_id_connect(struct rxd_cm_id *c, const struct rdma_conn_param *p)
{
	struct rxd_cm_msg m;

	if (c->id.ps == RDMA_PS_UDP)
		return sidr_connect(c, p);
	if (c->id.qp == NULL && p == NULL)
		return EINVAL;
	c->tid = rxd_cm_new_tid();
	rxd_cm_msg_init(&m, RXD_CM_REQ, c->tid);
	if (copy_pdata(&m, RXD_CM_IP_HDR_LEN, RXD_CM_REQ_PDATA_MAX, p) != 0)
		return EINVAL;
	rxd_cm_take_comm_id(c);
	c->resp_res = p ? rd_atomic(c, p->responder_resources, false) :
		RXD_CM_RD_ATOMIC;
	c->init_depth = p ? rd_atomic(c, p->initiator_depth, true) :
		RXD_CM_RD_ATOMIC;
	c->retry_cnt = p && p->retry_count < 7 ? p->retry_count : 7;
	m.f[RXD_CMF_LOCAL_COMM_ID] = c->local_comm_id;
	m.f[RXD_CMF_SERVICE_ID] = rxd_cm_service_id(c->id.ps, c->dport);
	m.f[RXD_CMF_LOCAL_CA_GUID] = c->dev->guid;
	m.f[RXD_CMF_LOCAL_QPN] = c->id.qp ? c->id.qp->qp_num : p->qp_num;
	m.f[RXD_CMF_RESP_RES] = c->resp_res;
	m.f[RXD_CMF_INIT_DEPTH] = c->init_depth;
	m.f[RXD_CMF_REMOTE_CM_TIMEOUT] = RXD_CM_RESP_TIMEOUT;
	m.f[RXD_CMF_TRANSPORT] = c->id.qp_type == IBV_QPT_UC ? 1 : 0;
	m.f[RXD_CMF_E2E_FC] = p ? p->flow_control : 1;
	m.f[RXD_CMF_START_PSN] = c->local_psn;
	m.f[RXD_CMF_LOCAL_CM_TIMEOUT] = RXD_CM_RESP_TIMEOUT;
	m.f[RXD_CMF_RETRY_CNT] = c->retry_cnt;
	m.f[RXD_CMF_PKEY] = 0xffff;
	m.f[RXD_CMF_PATH_MTU] = c->mtu;
	m.f[RXD_CMF_RNR_RETRY] = p && p->rnr_retry_count < 7 ?
		p->rnr_retry_count : 7;
	m.f[RXD_CMF_MAX_CM_RETRIES] = RXD_CM_MAX_RETRIES;
	m.f[RXD_CMF_SRQ] = c->id.qp ? c->id.qp->srq != NULL : p->srq;
	req_path(c, &m);
	put_ip_hdr(c, &m);
	c->state = RXD_CMS_REQ_SENT;
	rxd_cm_send_armed(c, &m);
	return 0;
}

static int
sidr_accept(struct rxd_cm_id *c, const struct rdma_conn_param *p)
{
	struct rxd_cm_msg m;

	rxd_cm_msg_init(&m, RXD_CM_SIDR_REP, c->tid);
	if (copy_pdata(&m, 0, m.pdata_len, p) != 0)
		return EINVAL;
	m.f[RXD_CMF_REQUEST_ID] = c->remote_comm_id;
	m.f[RXD_CMF_SERVICE_ID] = rxd_cm_service_id(c->id.ps, c->sport);
	m.f[RXD_CMF_STATUS] = RXD_CM_SIDR_OK;
	m.f[RXD_CMF_QPN] = c->id.qp ? c->id.qp->qp_num : (p ? p->qp_num : 0);
	m.f[RXD_CMF_QKEY] = RDMA_UDP_QKEY;
	rxd_cm_send(c, &m);
	c->state = RXD_CMS_ESTABLISHED;
	return 0;
}

int
rxd_cm_id_accept(struct rxd_cm_id *c, const struct rdma_conn_param *p)
{
	struct rxd_cm_msg m;
	int rc;

	if (c->state == RXD_CMS_SIDR_REQ_RCVD)
		return sidr_accept(c, p);
	if (c->state != RXD_CMS_REQ_RCVD || (c->id.qp == NULL && p == NULL))
		return EINVAL;
	rxd_cm_msg_init(&m, RXD_CM_REP, c->tid);
	if (copy_pdata(&m, 0, m.pdata_len, p) != 0)
		return EINVAL;
	if (p != NULL) {
		c->resp_res = rd_atomic(c, p->responder_resources, false);
		c->init_depth = rd_atomic(c, p->initiator_depth, true);
	}
	rc = rxd_cm_qp_ready(c);
	if (rc != 0)
		return rc;
	c->rx_base = rxd_cm_qp_rx(c);
	m.f[RXD_CMF_LOCAL_COMM_ID] = c->local_comm_id;
	m.f[RXD_CMF_REMOTE_COMM_ID] = c->remote_comm_id;
	m.f[RXD_CMF_LOCAL_QPN] = c->id.qp ? c->id.qp->qp_num : p->qp_num;
	m.f[RXD_CMF_START_PSN] = c->local_psn;
	m.f[RXD_CMF_RESP_RES] = c->resp_res;
	m.f[RXD_CMF_INIT_DEPTH] = c->init_depth;
	m.f[RXD_CMF_TARGET_ACK_DELAY] = 15;
	m.f[RXD_CMF_E2E_FC] = p ? p->flow_control : 1;
	m.f[RXD_CMF_RNR_RETRY] = p && p->rnr_retry_count < 7 ?
		p->rnr_retry_count : 7;
	m.f[RXD_CMF_SRQ] = c->id.qp ? c->id.qp->srq != NULL : p->srq;
	m.f[RXD_CMF_LOCAL_CA_GUID] = c->dev->guid;
	c->state = RXD_CMS_REP_SENT;
	rxd_cm_send_armed(c, &m);
	return 0;
}

int
rxd_cm_id_reject(struct rxd_cm_id *c, const void *pdata, uint8_t len)
{
	struct rxd_cm_msg m;

	if (c->state == RXD_CMS_SIDR_REQ_RCVD) {
		rxd_cm_msg_init(&m, RXD_CM_SIDR_REP, c->tid);
		m.f[RXD_CMF_REQUEST_ID] = c->remote_comm_id;
		m.f[RXD_CMF_STATUS] = RXD_CM_SIDR_REJECT;
	} else if (c->state == RXD_CMS_REQ_RCVD ||
		   c->state == RXD_CMS_REP_RCVD) {
		rxd_cm_msg_init(&m, RXD_CM_REJ, c->tid);
		m.f[RXD_CMF_LOCAL_COMM_ID] = c->local_comm_id;
		m.f[RXD_CMF_REMOTE_COMM_ID] = c->remote_comm_id;
		m.f[RXD_CMF_MSG_REJECTED] =
			c->state == RXD_CMS_REQ_RCVD ? 0 : 1;
		m.f[RXD_CMF_REASON] = RXD_CM_REJ_CONSUMER;
	} else {
		return EINVAL;
	}
	if (len > m.pdata_len || (len > 0 && pdata == NULL))
		return EINVAL;
	if (len > 0)
		memcpy(m.pdata, pdata, len);
	rxd_cm_send(c, &m);
	rxd_cm_disarm(c);
	c->state = RXD_CMS_ERROR;
	return 0;
}

int
rxd_cm_id_disconnect(struct rxd_cm_id *c)
{
	struct rxd_cm_msg m;

	rxd_cm_qp_error(c);
	if (c->state == RXD_CMS_TIMEWAIT || c->state == RXD_CMS_DREQ_SENT)
		return 0;
	if (c->state != RXD_CMS_ESTABLISHED && c->state != RXD_CMS_REP_SENT)
		return EINVAL;
	if (c->id.ps == RDMA_PS_UDP) {
		c->state = RXD_CMS_TIMEWAIT;
		return 0;
	}
	rxd_cm_msg_init(&m, RXD_CM_DREQ, rxd_cm_new_tid());
	m.f[RXD_CMF_LOCAL_COMM_ID] = c->local_comm_id;
	m.f[RXD_CMF_REMOTE_COMM_ID] = c->remote_comm_id;
	m.f[RXD_CMF_REMOTE_QPN] = c->remote_qpn;
	c->state = RXD_CMS_DREQ_SENT;
	rxd_cm_send_armed(c, &m);
	return 0;
}

int
rxd_cm_id_establish(struct rxd_cm_id *c)
{
	if (c->state != RXD_CMS_REP_RCVD)
		return EINVAL;
	rxd_cm_send_rtu(c);
	c->state = RXD_CMS_ESTABLISHED;
	return 0;
}
