/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CM MAD codec: one layout row per attribute lists its bit fields (offset
 * and width in bits from the start of the CM data, big-endian) and byte
 * areas; encode and decode walk the row.  Reserved bits are written as zero
 * and ignored on receive.  Also the RDMA CM IP private-data header.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "rxd_bytes.h"
#include "rxd_cm_mad.h"

struct field_loc {
	uint8_t id;       /* enum rxd_cm_field */
	uint16_t bit;     /* from the start of the CM data */
	uint8_t width;    /* 1..64 */
};

struct area_loc {
	uint8_t id;       /* enum rxd_cm_area */
	uint8_t off;      /* bytes from the start of the CM data */
	uint8_t len;
};

struct layout {
	uint16_t attr_id;
	const char *name;
	const struct field_loc *f;
	unsigned int nf;
	const struct area_loc *a;
	unsigned int na;
};

#define F(id, byte, bit, width) { RXD_CMF_##id, (byte) * 8 + (bit), width }
#define A(id, off, len) { RXD_CMA_##id, off, len }
#define COMM_IDS F(LOCAL_COMM_ID, 0, 0, 32), F(REMOTE_COMM_ID, 4, 0, 32)

/* A path of a REQ (44 bytes at byte b); p is P or A. */
#define PATH_FIELDS(p, b) \
	F(p##_LOCAL_LID, b, 0, 16), F(p##_REMOTE_LID, (b) + 2, 0, 16), \
	F(p##_FLOW_LABEL, (b) + 36, 0, 20), F(p##_RATE, (b) + 36, 26, 6), \
	F(p##_TCLASS, (b) + 40, 0, 8), F(p##_HOP_LIMIT, (b) + 41, 0, 8), \
	F(p##_SL, (b) + 42, 0, 4), F(p##_SUBNET_LOCAL, (b) + 42, 4, 1), \
	F(p##_ACK_TIMEOUT, (b) + 43, 0, 5)
#define PATH_AREAS(p, b) \
	A(p##_LOCAL_GID, (b) + 4, 16), A(p##_REMOTE_GID, (b) + 20, 16)

static const struct field_loc req_f[] = {
	F(LOCAL_COMM_ID, 0, 0, 32), F(SERVICE_ID, 8, 0, 64),
	F(LOCAL_CA_GUID, 16, 0, 64), F(LOCAL_QKEY, 28, 0, 32),
	F(LOCAL_QPN, 32, 0, 24), F(RESP_RES, 35, 0, 8),
	F(LOCAL_EECN, 36, 0, 24), F(INIT_DEPTH, 39, 0, 8),
	F(REMOTE_EECN, 40, 0, 24), F(REMOTE_CM_TIMEOUT, 43, 0, 5),
	F(TRANSPORT, 43, 5, 2), F(E2E_FC, 43, 7, 1),
	F(START_PSN, 44, 0, 24), F(LOCAL_CM_TIMEOUT, 47, 0, 5),
	F(RETRY_CNT, 47, 5, 3), F(PKEY, 48, 0, 16),
	F(PATH_MTU, 50, 0, 4), F(RDC, 50, 4, 1), F(RNR_RETRY, 50, 5, 3),
	F(MAX_CM_RETRIES, 51, 0, 4), F(SRQ, 51, 4, 1),
	F(EXT_TRANSPORT, 51, 5, 3),
	PATH_FIELDS(P, 52), PATH_FIELDS(A, 96),
};
static const struct area_loc req_a[] = {
	PATH_AREAS(P, 52), PATH_AREAS(A, 96), A(PDATA, 140, 92),
};

static const struct field_loc mra_f[] = {
	COMM_IDS, F(MSG_MRAED, 8, 0, 2), F(SERVICE_TIMEOUT, 9, 0, 5),
};
static const struct area_loc mra_a[] = { A(PDATA, 10, 222) };

static const struct field_loc rej_f[] = {
	COMM_IDS, F(MSG_REJECTED, 8, 0, 2), F(REJ_INFO_LEN, 9, 0, 7),
	F(REASON, 10, 0, 16),
};
static const struct area_loc rej_a[] = {
	A(INFO, 12, RXD_CM_INFO_LEN), A(PDATA, 84, 148),
};

static const struct field_loc rep_f[] = {
	COMM_IDS, F(LOCAL_QKEY, 8, 0, 32), F(LOCAL_QPN, 12, 0, 24),
	F(LOCAL_EECN, 16, 0, 24), F(START_PSN, 20, 0, 24),
	F(RESP_RES, 24, 0, 8), F(INIT_DEPTH, 25, 0, 8),
	F(TARGET_ACK_DELAY, 26, 0, 5), F(FAILOVER, 26, 5, 2),
	F(E2E_FC, 26, 7, 1), F(RNR_RETRY, 27, 0, 3), F(SRQ, 27, 3, 1),
	F(LOCAL_CA_GUID, 28, 0, 64),
};
static const struct area_loc rep_a[] = { A(PDATA, 36, 196) };

static const struct field_loc ids_f[] = { COMM_IDS };
static const struct area_loc rtu_a[] = { A(PDATA, 8, 224) };

static const struct field_loc dreq_f[] = {
	COMM_IDS, F(REMOTE_QPN, 8, 0, 24),
};
static const struct area_loc dreq_a[] = { A(PDATA, 12, 220) };

static const struct field_loc sidr_req_f[] = {
	F(REQUEST_ID, 0, 0, 32), F(PKEY, 4, 0, 16), F(SERVICE_ID, 8, 0, 64),
};
static const struct area_loc sidr_req_a[] = { A(PDATA, 16, 216) };

static const struct field_loc sidr_rep_f[] = {
	F(REQUEST_ID, 0, 0, 32), F(STATUS, 4, 0, 8), F(ADD_INFO_LEN, 5, 0, 8),
	F(QPN, 8, 0, 24), F(SERVICE_ID, 12, 0, 64), F(QKEY, 20, 0, 32),
};
static const struct area_loc sidr_rep_a[] = {
	A(INFO, 24, RXD_CM_INFO_LEN), A(PDATA, 96, 136),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ROW(attr, name, f, a) { RXD_CM_##attr, name, f, N(f), a, N(a) }

static const struct layout layouts[] = {
	ROW(REQ, "REQ", req_f, req_a),
	ROW(MRA, "MRA", mra_f, mra_a),
	ROW(REJ, "REJ", rej_f, rej_a),
	ROW(REP, "REP", rep_f, rep_a),
	ROW(RTU, "RTU", ids_f, rtu_a),
	ROW(DREQ, "DREQ", dreq_f, dreq_a),
	ROW(DREP, "DREP", ids_f, rtu_a),
	ROW(SIDR_REQ, "SIDR_REQ", sidr_req_f, sidr_req_a),
	ROW(SIDR_REP, "SIDR_REP", sidr_rep_f, sidr_rep_a),
};

static const struct layout *
layout_of(uint16_t attr_id)
{
	unsigned int i;

	for (i = 0; i < N(layouts); i++)
		if (layouts[i].attr_id == attr_id)
			return &layouts[i];
	return NULL;
}

/* Bit fields, most significant bit first, as IBTA draws them. */
static uint64_t
bits_get(const uint8_t *d, unsigned int bit, unsigned int width)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < width; i++) {
		unsigned int b = bit + i;

		v = v << 1 | ((d[b / 8] >> (7 - b % 8)) & 1);
	}
	return v;
}

static void
bits_set(uint8_t *d, unsigned int bit, unsigned int width, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < width; i++) {
		unsigned int b = bit + i;
		uint8_t mask = (uint8_t)(1u << (7 - b % 8));

		if ((v >> (width - 1 - i)) & 1)
			d[b / 8] |= mask;
		else
			d[b / 8] &= (uint8_t)~mask;
	}
}

/* Where each byte area lives in struct rxd_cm_msg. */
static const size_t area_member[RXD_CMA_COUNT] = {
	[RXD_CMA_P_LOCAL_GID] = offsetof(struct rxd_cm_msg, gid[0]),
	[RXD_CMA_P_REMOTE_GID] = offsetof(struct rxd_cm_msg, gid[1]),
	[RXD_CMA_A_LOCAL_GID] = offsetof(struct rxd_cm_msg, gid[2]),
	[RXD_CMA_A_REMOTE_GID] = offsetof(struct rxd_cm_msg, gid[3]),
	[RXD_CMA_INFO] = offsetof(struct rxd_cm_msg, info),
	[RXD_CMA_PDATA] = offsetof(struct rxd_cm_msg, pdata),
};

uint8_t
rxd_cm_pdata_size(uint16_t attr_id)
{
	const struct layout *l = layout_of(attr_id);
	unsigned int i;

	for (i = 0; l != NULL && i < l->na; i++)
		if (l->a[i].id == RXD_CMA_PDATA)
			return l->a[i].len;
	return 0;
}

const char *
rxd_cm_attr_name(uint16_t attr_id)
{
	const struct layout *l = layout_of(attr_id);

	return l != NULL ? l->name : "unknown";
}

int
rxd_cm_msg_init(struct rxd_cm_msg *m, uint16_t attr_id, uint64_t tid)
{
	if (layout_of(attr_id) == NULL)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->method = RXD_MAD_METHOD_SEND;
	m->tid = tid;
	m->attr_id = attr_id;
	m->pdata_len = rxd_cm_pdata_size(attr_id);
	return 0;
}

int
rxd_cm_mad_encode(const struct rxd_cm_msg *m, uint8_t mad[RXD_MAD_LEN])
{
	const struct layout *l = layout_of(m->attr_id);
	uint8_t *d = mad + RXD_MAD_HDR_LEN;
	unsigned int i;

	if (l == NULL)
		return -EINVAL;
	memset(mad, 0, RXD_MAD_LEN);
	mad[0] = RXD_MAD_BASE_VERSION;
	mad[1] = RXD_MAD_CLASS_CM;
	mad[2] = RXD_MAD_CLASS_VERSION_CM;
	mad[3] = m->method;
	rxd_put16(mad + 4, m->status);
	rxd_put16(mad + 6, m->class_specific);
	rxd_put64(mad + 8, m->tid);
	rxd_put16(mad + 16, m->attr_id);
	rxd_put32(mad + 20, m->attr_mod);
	for (i = 0; i < l->nf; i++)
		bits_set(d, l->f[i].bit, l->f[i].width, m->f[l->f[i].id]);
	for (i = 0; i < l->na; i++)
		memcpy(d + l->a[i].off,
		       (const uint8_t *)m + area_member[l->a[i].id],
		       l->a[i].len);
	return 0;
}

int
rxd_cm_mad_decode(const uint8_t *mad, uint32_t len, struct rxd_cm_msg *m)
{
	const uint8_t *d = mad + RXD_MAD_HDR_LEN;
	const struct layout *l;
	unsigned int i;

	if (len < RXD_MAD_LEN)
		return -EINVAL;
	if (mad[0] != RXD_MAD_BASE_VERSION || mad[1] != RXD_MAD_CLASS_CM ||
	    mad[2] != RXD_MAD_CLASS_VERSION_CM)
		return -EPROTO;
	l = layout_of(rxd_get16(mad + 16));
	if (l == NULL)
		return -EPROTO;
	rxd_cm_msg_init(m, l->attr_id, rxd_get64(mad + 8));
	m->method = mad[3];
	m->status = rxd_get16(mad + 4);
	m->class_specific = rxd_get16(mad + 6);
	m->attr_mod = rxd_get32(mad + 20);
	for (i = 0; i < l->nf; i++)
		m->f[l->f[i].id] = bits_get(d, l->f[i].bit, l->f[i].width);
	for (i = 0; i < l->na; i++)
		memcpy((uint8_t *)m + area_member[l->a[i].id],
		       d + l->a[i].off, l->a[i].len);
	return 0;
}

/* IPv4 sits in the last 4 bytes of each 16-byte address, the rest zero. */
static void
addr_put(uint8_t *out, const uint8_t gid[16], uint8_t ip_version)
{
	memset(out, 0, 16);
	if (ip_version == 4)
		memcpy(out + 12, gid + 12, 4);
	else
		memcpy(out, gid, 16);
}

static void
addr_get(uint8_t gid[16], const uint8_t *in, uint8_t ip_version)
{
	if (ip_version == 4) {
		memset(gid, 0, 10);
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, in + 12, 4);
	} else {
		memcpy(gid, in, 16);
	}
}

void
rxd_cm_ip_hdr_encode(const struct rxd_cm_ip_hdr *h, uint8_t *out)
{
	out[0] = h->cma_version;
	out[1] = (uint8_t)(h->ip_version << 4);
	rxd_put16(out + 2, h->src_port);
	addr_put(out + 4, h->src, h->ip_version);
	addr_put(out + 20, h->dst, h->ip_version);
}

int
rxd_cm_ip_hdr_decode(const uint8_t *in, struct rxd_cm_ip_hdr *h)
{
	h->cma_version = in[0];
	h->ip_version = in[1] >> 4;
	if (h->cma_version != 0 || (h->ip_version != 4 && h->ip_version != 6))
		return -EPROTO;
	h->src_port = rxd_get16(in + 2);
	addr_get(h->src, in + 4, h->ip_version);
	addr_get(h->dst, in + 20, h->ip_version);
	return 0;
}
