/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire format of rsockets (rdma-core's librdmacm rsockets, version 1),
 * as facts: the connection data carried in the CM REQ/REP private data,
 * the 32-bit immediate data of RDMA WRITE WITH IMMEDIATE that carries
 * every rsocket message, and the SGE and iomap records a side RDMA-writes
 * into its peer's target buffer list.  libc only, for the unit tests.
 */
#ifndef RXD_RS_WIRE_H
#define RXD_RS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RXD_RS_VERSION 1
#define RXD_RS_CONN_FLAG_NET 0x01     /**< sender is big-endian */
#define RXD_RS_CONN_FLAG_IOMAP 0x02   /**< target_sgl is followed by iomaps */
#define RXD_RS_CONN_LEN 40            /**< struct rs_conn_data on the wire */
#define RXD_RS_SGE_LEN 16             /**< addr 8, key 4, length 4 */
#define RXD_RS_IOMAP_LEN 24           /**< offset 8, then an SGE */
#define RXD_RS_SGL_SIZE 2             /**< SGE slots in a target SGL */
#define RXD_RS_IMM_DATA_MAX 0x1FFFFFFFu

/** Message operations: bits 31..29 of the immediate data. */
enum rxd_rs_op {
	RXD_RS_OP_DATA = 0,       /**< data: bits 28..0 = bytes written */
	RXD_RS_OP_WRITE = 2,      /**< riowrite (never carried as imm) */
	RXD_RS_OP_SGL = 4,        /**< credits: bits 28..0 = seq granted */
	RXD_RS_OP_IOMAP_SGL = 6,  /**< iomap slot written: bits 15..0 */
	RXD_RS_OP_CTRL = 7,       /**< control: bits 28..0 = enum rxd_rs_ctrl */
};

/** Control messages (RXD_RS_OP_CTRL). */
enum rxd_rs_ctrl {
	RXD_RS_CTRL_DISCONNECT = 0,
	RXD_RS_CTRL_KEEPALIVE = 1,  /**< a 0-byte RDMA WRITE, no immediate */
	RXD_RS_CTRL_SHUTDOWN = 2,
};

/** A remote buffer (host order once decoded). */
struct rxd_rs_sge {
	uint64_t addr;
	uint32_t key;
	uint32_t length;
};

/** An iomap record: remote offset @p offset maps to @p sge. */
struct rxd_rs_iomap {
	uint64_t offset;
	struct rxd_rs_sge sge;
};

/** Connection data (REQ and REP private data, big-endian on the wire). */
struct rxd_rs_conn {
	uint8_t version;
	uint8_t flags;
	uint16_t credits;             /**< the sender's receive queue depth */
	uint8_t iomap_scaled;         /**< target iomap slots, scaled code */
	struct rxd_rs_sge target_sgl; /**< where to write SGL updates; length =
				       * slots */
	struct rxd_rs_sge data_buf;   /**< the first receive buffer half */
};

/** Immediate data of a message (host order; post it as htobe32). */
static inline uint32_t
rxd_rs_imm(enum rxd_rs_op op, uint32_t data)
{
	return ((uint32_t)op << 29) | (data & RXD_RS_IMM_DATA_MAX);
}

static inline enum rxd_rs_op
rxd_rs_imm_op(uint32_t imm)
{
	return (enum rxd_rs_op)(imm >> 29);
}

static inline uint32_t
rxd_rs_imm_data(uint32_t imm)
{
	return imm & RXD_RS_IMM_DATA_MAX;
}

/** Encode connection data into @p out (RXD_RS_CONN_LEN bytes). */
void rxd_rs_conn_pack(const struct rxd_rs_conn *c, uint8_t *out);
/**
 * Decode connection data of @p len bytes.  0, or EPROTO when too short
 * or of another version.
 */
int rxd_rs_conn_unpack(const uint8_t *in, size_t len, struct rxd_rs_conn *c);
/** True when this host's SGE records need swapping for a peer with @p flags. */
bool rxd_rs_conn_swap(uint8_t flags);
/** This host's connection flags (IOMAP, NET when big-endian). */
uint8_t rxd_rs_conn_flags(void);

/**
 * SGE and iomap records travel in the receiver's byte order: the sender
 * writes its host order, byte-swapped when @p swap.
 */
void rxd_rs_sge_pack(const struct rxd_rs_sge *s, bool swap, uint8_t *out);
void rxd_rs_sge_unpack(const uint8_t *in, bool swap, struct rxd_rs_sge *s);
void rxd_rs_iomap_pack(const struct rxd_rs_iomap *m, bool swap, uint8_t *out);
void rxd_rs_iomap_unpack(const uint8_t *in, bool swap, struct rxd_rs_iomap *m);

/** The 8-bit scale code of an iomap slot count, and back. */
uint8_t rxd_rs_scale_encode(unsigned int value);
unsigned int rxd_rs_scale_decode(uint8_t code);

#endif /* RXD_RS_WIRE_H */
