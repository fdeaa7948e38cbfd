/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM MAD codec against Linux Soft-RoCE's connection setup
 * (tests/vectors/rxe/cm_*.pcap): every MAD sent to QP1 decodes, re-encodes
 * to the same 256 bytes, and the fields of rping's exchange have the values
 * tshark shows.  Bad input is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "rxd_cm_mad.h"
#include "rxd_test_pcap.h"
#include "rxd_wire.h"

#ifndef RXD_TEST_VECTORS_DIR
#define RXD_TEST_VECTORS_DIR "tests/vectors"
#endif

#define MAX_MADS 16

/* The CM MADs of one capture, in order. */
struct mads {
	unsigned int n;
	struct rxd_cm_msg msg[MAX_MADS];
	uint8_t raw[MAX_MADS][RXD_MAD_LEN];
	uint8_t sgid[MAX_MADS][16];
	uint32_t qkey[MAX_MADS], sqpn[MAX_MADS];
	uint32_t first_data_psn;     /* of the first frame not to QP1 */
	bool seen_data;
};

static int
collect(const struct rxd_test_frame *f, void *arg)
{
	struct mads *m = arg;
	struct rxd_pkt p;

	if (rxd_wire_parse(f->data, f->caplen, &p, 0) != RXD_WIRE_OK ||
	    p.kind != RXD_FRAME_ROCE)
		return 0;
	if (p.dqpn != 1) {
		if (!m->seen_data)
			m->first_data_psn = p.psn;
		m->seen_data = true;
		return 0;
	}
	cr_assert_lt(m->n, MAX_MADS);
	cr_assert_eq(p.payload_len, RXD_MAD_LEN, "frame %u", f->no);
	memcpy(m->raw[m->n], f->data + p.payload_off, RXD_MAD_LEN);
	memcpy(m->sgid[m->n], p.sgid, 16);
	m->qkey[m->n] = p.deth_qkey;
	m->sqpn[m->n] = p.deth_sqpn;
	cr_assert_eq(rxd_cm_mad_decode(m->raw[m->n], RXD_MAD_LEN,
				       &m->msg[m->n]), 0, "frame %u", f->no);
	m->n++;
	return 0;
}

static void
load(const char *name, struct mads *m)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/rxe/%s", RXD_TEST_VECTORS_DIR, name);
	memset(m, 0, sizeof(*m));
	cr_assert_gt(rxd_test_pcap_foreach(path, collect, m), 0, "%s", path);
}

static void
check_roundtrip(const struct mads *m)
{
	uint8_t out[RXD_MAD_LEN];
	unsigned int i;

	for (i = 0; i < m->n; i++) {
		cr_assert_eq(m->qkey[i], RXD_CM_QKEY);
		cr_assert_eq(m->sqpn[i], 1);
		cr_assert_eq(rxd_cm_mad_encode(&m->msg[i], out), 0);
		cr_assert_arr_eq(out, m->raw[i], RXD_MAD_LEN,
				 "MAD %u (%s) differs after re-encoding", i,
				 rxd_cm_attr_name(m->msg[i].attr_id));
	}
}

static const uint16_t rping_attrs[] = {
	RXD_CM_REQ, RXD_CM_REP, RXD_CM_RTU, RXD_CM_DREQ, RXD_CM_DREP,
};

static const uint16_t perftest_attrs[] = {
	RXD_CM_REQ, RXD_CM_REP, RXD_CM_RTU, RXD_CM_REQ, RXD_CM_REP,
	RXD_CM_RTU, RXD_CM_DREQ, RXD_CM_DREP, RXD_CM_DREQ, RXD_CM_DREQ,
	RXD_CM_DREP, RXD_CM_DREP,
};

static void
check_attrs(const struct mads *m, const uint16_t *want, unsigned int n)
{
	unsigned int i;

	cr_assert_eq(m->n, n);
	for (i = 0; i < n; i++)
		cr_assert_eq(m->msg[i].attr_id, want[i], "MAD %u is %s", i,
			     rxd_cm_attr_name(m->msg[i].attr_id));
}

Test(cm_mad, rping_roundtrip)
{
	static struct mads m;

	load("cm_rping.pcap", &m);
	check_attrs(&m, rping_attrs, sizeof(rping_attrs) / 2);
	check_roundtrip(&m);
}

Test(cm_mad, perftest_roundtrip)
{
	static struct mads m;

	load("cm_perftest_send_rdmacm.pcap", &m);
	check_attrs(&m, perftest_attrs, sizeof(perftest_attrs) / 2);
	check_roundtrip(&m);
}

static const uint8_t ip_client[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 12 };
static const uint8_t ip_server[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 11 };

Test(cm_mad, rping_req_fields)
{
	static struct mads m;
	const struct rxd_cm_msg *req;
	struct rxd_cm_ip_hdr h;

	load("cm_rping.pcap", &m);
	req = &m.msg[0];
	cr_assert_eq(req->tid, 0x000000024f05f1bdull);
	cr_assert_eq(req->f[RXD_CMF_LOCAL_COMM_ID], 0xbdf1054f);
	cr_assert_eq(req->f[RXD_CMF_SERVICE_ID], 0x0000000001061c06ull);
	cr_assert_eq(req->f[RXD_CMF_LOCAL_CA_GUID], 0x505400fffe77000cull);
	cr_assert_eq(req->f[RXD_CMF_LOCAL_QPN], 0x1a);
	cr_assert_eq(req->f[RXD_CMF_RESP_RES], 1);
	cr_assert_eq(req->f[RXD_CMF_INIT_DEPTH], 1);
	cr_assert_eq(req->f[RXD_CMF_REMOTE_CM_TIMEOUT], 20);
	cr_assert_eq(req->f[RXD_CMF_TRANSPORT], 0);
	cr_assert_eq(req->f[RXD_CMF_START_PSN], 0x7a2e26);
	cr_assert_eq(req->f[RXD_CMF_LOCAL_CM_TIMEOUT], 20);
	cr_assert_eq(req->f[RXD_CMF_RETRY_CNT], 7);
	cr_assert_eq(req->f[RXD_CMF_PKEY], 0xffff);
	cr_assert_eq(req->f[RXD_CMF_PATH_MTU], 3);
	cr_assert_eq(req->f[RXD_CMF_RNR_RETRY], 7);
	cr_assert_eq(req->f[RXD_CMF_MAX_CM_RETRIES], 15);
	cr_assert_eq(req->f[RXD_CMF_P_LOCAL_LID], 0xffff);
	cr_assert_eq(req->f[RXD_CMF_P_HOP_LIMIT], 64);
	cr_assert_eq(req->f[RXD_CMF_P_ACK_TIMEOUT], 19);
	cr_assert_arr_eq(req->gid[RXD_CMA_P_LOCAL_GID], ip_client, 16);
	cr_assert_arr_eq(req->gid[RXD_CMA_P_REMOTE_GID], ip_server, 16);
	cr_assert_arr_eq(m.sgid[0], ip_client, 16);
	cr_assert_eq(req->pdata_len, 92);
	cr_assert_eq(rxd_cm_ip_hdr_decode(req->pdata, &h), 0);
	cr_assert_eq(h.ip_version, 4);
	cr_assert_eq(h.src_port, 0xa941);
	cr_assert_arr_eq(h.src, ip_client, 16);
	cr_assert_arr_eq(h.dst, ip_server, 16);
}

Test(cm_mad, rping_rep_rtu_dreq_fields)
{
	static struct mads m;
	const struct rxd_cm_msg *req, *rep, *rtu, *dreq, *drep;

	load("cm_rping.pcap", &m);
	req = &m.msg[0];
	rep = &m.msg[1];
	rtu = &m.msg[2];
	dreq = &m.msg[3];
	drep = &m.msg[4];
	cr_assert_eq(rep->tid, req->tid);
	cr_assert_eq(rep->f[RXD_CMF_REMOTE_COMM_ID],
		     req->f[RXD_CMF_LOCAL_COMM_ID]);
	cr_assert_eq(rep->f[RXD_CMF_LOCAL_COMM_ID], 0x9dd5132d);
	cr_assert_eq(rep->f[RXD_CMF_LOCAL_QPN], 0x1a);
	cr_assert_eq(rep->f[RXD_CMF_START_PSN], 0x5de766);
	/* Linux: a side's Starting PSN is what it receives from; the
	 * client's first SEND carries the REP's */
	cr_assert(m.seen_data);
	cr_assert_eq(m.first_data_psn, rep->f[RXD_CMF_START_PSN]);
	cr_assert_eq(rep->f[RXD_CMF_TARGET_ACK_DELAY], 15);
	cr_assert_eq(rep->f[RXD_CMF_RNR_RETRY], 7);
	cr_assert_eq(rep->f[RXD_CMF_LOCAL_CA_GUID], 0x505400fffe77000bull);
	cr_assert_eq(rtu->f[RXD_CMF_LOCAL_COMM_ID], 0xbdf1054f);
	cr_assert_eq(rtu->f[RXD_CMF_REMOTE_COMM_ID], 0x9dd5132d);
	cr_assert_eq(dreq->f[RXD_CMF_REMOTE_QPN], 0x1a);
	cr_assert_eq(drep->tid, dreq->tid);
	cr_assert_eq(drep->f[RXD_CMF_REMOTE_COMM_ID],
		     dreq->f[RXD_CMF_LOCAL_COMM_ID]);
}

Test(cm_mad, every_attribute_roundtrips)
{
	static const uint16_t attrs[] = {
		RXD_CM_REQ, RXD_CM_MRA, RXD_CM_REJ, RXD_CM_REP, RXD_CM_RTU,
		RXD_CM_DREQ, RXD_CM_DREP, RXD_CM_SIDR_REQ, RXD_CM_SIDR_REP,
	};
	static const uint8_t pdata_len[] = {
		92, 222, 148, 196, 224, 220, 224, 216, 136,
	};
	uint8_t mad[RXD_MAD_LEN], again[RXD_MAD_LEN];
	struct rxd_cm_msg m, d;
	unsigned int i, j;

	for (i = 0; i < sizeof(attrs) / 2; i++) {
		cr_assert_eq(rxd_cm_msg_init(&m, attrs[i], 0x1234 + i), 0);
		cr_assert_eq(m.pdata_len, pdata_len[i], "%s",
			     rxd_cm_attr_name(attrs[i]));
		for (j = 0; j < RXD_CMF_COUNT; j++)
			m.f[j] = 1;
		for (j = 0; j < m.pdata_len; j++)
			m.pdata[j] = (uint8_t)(j + i);
		cr_assert_eq(rxd_cm_mad_encode(&m, mad), 0);
		cr_assert_eq(rxd_cm_mad_decode(mad, sizeof(mad), &d), 0);
		cr_assert_eq(d.attr_id, attrs[i]);
		cr_assert_eq(d.tid, 0x1234 + i);
		cr_assert_arr_eq(d.pdata, m.pdata, m.pdata_len);
		cr_assert_eq(rxd_cm_mad_encode(&d, again), 0);
		cr_assert_arr_eq(again, mad, sizeof(mad));
	}
}

Test(cm_mad, bad_input_refused)
{
	uint8_t mad[RXD_MAD_LEN];
	struct rxd_cm_msg m;
	struct rxd_cm_ip_hdr h;

	cr_assert_eq(rxd_cm_msg_init(&m, 0x0019, 1), -EINVAL);
	cr_assert_eq(rxd_cm_msg_init(&m, RXD_CM_RTU, 1), 0);
	cr_assert_eq(rxd_cm_mad_encode(&m, mad), 0);
	cr_assert_eq(rxd_cm_mad_decode(mad, RXD_MAD_LEN - 1, &m), -EINVAL);
	mad[1] = 0x04;                      /* another management class */
	cr_assert_eq(rxd_cm_mad_decode(mad, RXD_MAD_LEN, &m), -EPROTO);
	mad[1] = RXD_MAD_CLASS_CM;
	mad[17] = 0x20;                     /* unknown attribute */
	cr_assert_eq(rxd_cm_mad_decode(mad, RXD_MAD_LEN, &m), -EPROTO);
	memset(mad, 0, sizeof(mad));
	mad[1] = 0x50;                      /* IP version 5 */
	cr_assert_eq(rxd_cm_ip_hdr_decode(mad, &h), -EPROTO);
}
