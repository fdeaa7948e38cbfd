/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The InfiniBand CM messages as MADs (management class 0x07, class version
 * 2, 256 bytes) and the RDMA CM IP-address private-data header: the decoded
 * form, encode and decode.  No state, no I/O: the unit tests and the
 * connection manager share it.
 */
#ifndef RXD_CM_MAD_H
#define RXD_CM_MAD_H

#include <stdbool.h>
#include <stdint.h>

#define RXD_MAD_LEN 256
#define RXD_MAD_HDR_LEN 24
#define RXD_CM_DATA_LEN (RXD_MAD_LEN - RXD_MAD_HDR_LEN)
#define RXD_MAD_BASE_VERSION 1
#define RXD_MAD_CLASS_CM 0x07
#define RXD_MAD_CLASS_VERSION_CM 2
#define RXD_MAD_METHOD_SEND 0x03
#define RXD_CM_QKEY 0x80010000u     /**< QP1's well-known Q_Key */
#define RXD_CM_IP_HDR_LEN 36        /**< RDMA CM IP private-data header */

/** CM attribute IDs (IBTA vol. 1 table 12.6.x). */
enum rxd_cm_attr {
	RXD_CM_REQ = 0x0010,
	RXD_CM_MRA = 0x0011,
	RXD_CM_REJ = 0x0012,
	RXD_CM_REP = 0x0013,
	RXD_CM_RTU = 0x0014,
	RXD_CM_DREQ = 0x0015,
	RXD_CM_DREP = 0x0016,
	RXD_CM_SIDR_REQ = 0x0017,
	RXD_CM_SIDR_REP = 0x0018,
};

/** The scalar fields of the CM messages; which exist depends on the
 *  attribute (see the layout table in rxd_cm_mad.c). */
enum rxd_cm_field {
	RXD_CMF_LOCAL_COMM_ID,
	RXD_CMF_REMOTE_COMM_ID,
	RXD_CMF_SERVICE_ID,
	RXD_CMF_LOCAL_CA_GUID,
	RXD_CMF_LOCAL_QKEY,
	RXD_CMF_LOCAL_QPN,
	RXD_CMF_RESP_RES,
	RXD_CMF_LOCAL_EECN,
	RXD_CMF_INIT_DEPTH,
	RXD_CMF_REMOTE_EECN,
	RXD_CMF_REMOTE_CM_TIMEOUT,
	RXD_CMF_TRANSPORT,           /**< 0 RC, 1 UC */
	RXD_CMF_E2E_FC,
	RXD_CMF_START_PSN,
	RXD_CMF_LOCAL_CM_TIMEOUT,
	RXD_CMF_RETRY_CNT,
	RXD_CMF_PKEY,
	RXD_CMF_PATH_MTU,
	RXD_CMF_RDC,
	RXD_CMF_RNR_RETRY,
	RXD_CMF_MAX_CM_RETRIES,
	RXD_CMF_SRQ,
	RXD_CMF_EXT_TRANSPORT,
	RXD_CMF_P_LOCAL_LID,         /* primary path */
	RXD_CMF_P_REMOTE_LID,
	RXD_CMF_P_FLOW_LABEL,
	RXD_CMF_P_RATE,
	RXD_CMF_P_TCLASS,
	RXD_CMF_P_HOP_LIMIT,
	RXD_CMF_P_SL,
	RXD_CMF_P_SUBNET_LOCAL,
	RXD_CMF_P_ACK_TIMEOUT,
	RXD_CMF_A_LOCAL_LID,         /* alternate path, same order */
	RXD_CMF_A_REMOTE_LID,
	RXD_CMF_A_FLOW_LABEL,
	RXD_CMF_A_RATE,
	RXD_CMF_A_TCLASS,
	RXD_CMF_A_HOP_LIMIT,
	RXD_CMF_A_SL,
	RXD_CMF_A_SUBNET_LOCAL,
	RXD_CMF_A_ACK_TIMEOUT,
	RXD_CMF_MSG_MRAED,           /**< MRA: 0 REQ, 1 REP, 2 LAP */
	RXD_CMF_SERVICE_TIMEOUT,
	RXD_CMF_MSG_REJECTED,        /**< REJ: 0 REQ, 1 REP, 2 other */
	RXD_CMF_REJ_INFO_LEN,
	RXD_CMF_REASON,
	RXD_CMF_TARGET_ACK_DELAY,
	RXD_CMF_FAILOVER,
	RXD_CMF_REMOTE_QPN,          /**< DREQ */
	RXD_CMF_REQUEST_ID,          /**< SIDR */
	RXD_CMF_STATUS,
	RXD_CMF_ADD_INFO_LEN,
	RXD_CMF_QPN,                 /**< SIDR_REP */
	RXD_CMF_QKEY,                /**< SIDR_REP */
	RXD_CMF_COUNT
};

/** Byte areas of the CM messages. */
enum rxd_cm_area {
	RXD_CMA_P_LOCAL_GID,
	RXD_CMA_P_REMOTE_GID,
	RXD_CMA_A_LOCAL_GID,
	RXD_CMA_A_REMOTE_GID,
	RXD_CMA_INFO,                /**< REJ ARI or SIDR_REP ClassPortInfo */
	RXD_CMA_PDATA,               /**< private data */
	RXD_CMA_COUNT
};

#define RXD_CM_INFO_LEN 72
#define RXD_CM_PDATA_MAX 224

/** A CM message, decoded. */
struct rxd_cm_msg {
	uint8_t method;
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;            /**< enum rxd_cm_attr */
	uint32_t attr_mod;
	uint64_t f[RXD_CMF_COUNT];
	uint8_t gid[4][16];          /**< RXD_CMA_P_LOCAL_GID .. A_REMOTE */
	uint8_t info[RXD_CM_INFO_LEN];
	uint8_t pdata[RXD_CM_PDATA_MAX];
	uint8_t pdata_len;           /**< the private-data size of attr_id */
};

/** The RDMA CM private-data header of REQ and SIDR_REQ. */
struct rxd_cm_ip_hdr {
	uint8_t cma_version;         /**< 0x00 */
	uint8_t ip_version;          /**< 4 or 6 */
	uint16_t src_port;
	uint8_t src[16], dst[16];    /**< GIDs (IPv4 as ::ffff:a.b.c.d) */
};

/**
 * Start a message of @p attr_id: header fields set for a CM send, every
 * field zero, pdata_len the attribute's private-data size.
 * @return 0, or -EINVAL for an unknown attribute.
 */
int rxd_cm_msg_init(struct rxd_cm_msg *m, uint16_t attr_id, uint64_t tid);

/** Encode into a 256-byte MAD. @return 0 or -EINVAL. */
int rxd_cm_mad_encode(const struct rxd_cm_msg *m, uint8_t mad[RXD_MAD_LEN]);

/**
 * Decode a MAD of @p len bytes.  @return 0, -EPROTO if it is not a CM MAD
 * rxd knows (class, version, attribute), -EINVAL if too short.
 */
int rxd_cm_mad_decode(const uint8_t *mad, uint32_t len, struct rxd_cm_msg *m);

/** Private-data size of an attribute (0 if unknown). */
uint8_t rxd_cm_pdata_size(uint16_t attr_id);

/** Name of an attribute ("REQ", ...) or "unknown". */
const char *rxd_cm_attr_name(uint16_t attr_id);

/** Write the 36-byte IP header at @p out. */
void rxd_cm_ip_hdr_encode(const struct rxd_cm_ip_hdr *h, uint8_t *out);

/** Read the IP header. @return 0, or -EPROTO (version not 0, IP not 4/6). */
int rxd_cm_ip_hdr_decode(const uint8_t *in, struct rxd_cm_ip_hdr *h);

#endif /* RXD_CM_MAD_H */
