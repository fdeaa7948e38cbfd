/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets wire records: encode and decode the connection data (fixed
 * big-endian layout) and the SGE / iomap records (receiver's byte order).
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "rxd_rs_wire.h"

/* Offsets of struct rs_conn_data. */
enum {
	CONN_VERSION = 0,
	CONN_FLAGS = 1,
	CONN_CREDITS = 2,
	CONN_RESERVED = 4,            /* 3 bytes */
	CONN_IOMAP_SIZE = 7,
	CONN_TARGET_SGL = 8,
	CONN_DATA_BUF = 24,
};

/* Offsets within an SGE record. */
enum { SGE_ADDR = 0, SGE_KEY = 8, SGE_LENGTH = 12 };

static void
put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static uint64_t
get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

static uint32_t
get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static void
put_sge_be(uint8_t *p, const struct rxd_rs_sge *s)
{
	put_be64(p + SGE_ADDR, s->addr);
	put_be32(p + SGE_KEY, s->key);
	put_be32(p + SGE_LENGTH, s->length);
}

static void
get_sge_be(const uint8_t *p, struct rxd_rs_sge *s)
{
	s->addr = get_be64(p + SGE_ADDR);
	s->key = get_be32(p + SGE_KEY);
	s->length = get_be32(p + SGE_LENGTH);
}

void
rxd_rs_conn_pack(const struct rxd_rs_conn *c, uint8_t *out)
{
	memset(out, 0, RXD_RS_CONN_LEN);
	out[CONN_VERSION] = c->version;
	out[CONN_FLAGS] = c->flags;
	out[CONN_CREDITS] = (uint8_t)(c->credits >> 8);
	out[CONN_CREDITS + 1] = (uint8_t)c->credits;
	out[CONN_IOMAP_SIZE] = c->iomap_scaled;
	put_sge_be(out + CONN_TARGET_SGL, &c->target_sgl);
	put_sge_be(out + CONN_DATA_BUF, &c->data_buf);
}

int
rxd_rs_conn_unpack(const uint8_t *in, size_t len, struct rxd_rs_conn *c)
{
	if (in == NULL || len < RXD_RS_CONN_LEN ||
	    in[CONN_VERSION] != RXD_RS_VERSION)
		return EPROTO;
	c->version = in[CONN_VERSION];
	c->flags = in[CONN_FLAGS];
	c->credits = (uint16_t)(in[CONN_CREDITS] << 8 | in[CONN_CREDITS + 1]);
	c->iomap_scaled = in[CONN_IOMAP_SIZE];
	get_sge_be(in + CONN_TARGET_SGL, &c->target_sgl);
	get_sge_be(in + CONN_DATA_BUF, &c->data_buf);
	return 0;
}

uint8_t
rxd_rs_conn_flags(void)
{
	return RXD_RS_CONN_FLAG_IOMAP |
		(__BYTE_ORDER == __BIG_ENDIAN ? RXD_RS_CONN_FLAG_NET : 0);
}

bool
rxd_rs_conn_swap(uint8_t flags)
{
	bool peer_net = (flags & RXD_RS_CONN_FLAG_NET) != 0;

	return peer_net != (__BYTE_ORDER == __BIG_ENDIAN);
}

static uint64_t
order64(uint64_t v, bool swap)
{
	return swap ? __builtin_bswap64(v) : v;
}

static uint32_t
order32(uint32_t v, bool swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

void
rxd_rs_sge_pack(const struct rxd_rs_sge *s, bool swap, uint8_t *out)
{
	uint64_t addr = order64(s->addr, swap);
	uint32_t key = order32(s->key, swap);
	uint32_t length = order32(s->length, swap);

	memcpy(out + SGE_ADDR, &addr, 8);
	memcpy(out + SGE_KEY, &key, 4);
	memcpy(out + SGE_LENGTH, &length, 4);
}

void
rxd_rs_sge_unpack(const uint8_t *in, bool swap, struct rxd_rs_sge *s)
{
	memcpy(&s->addr, in + SGE_ADDR, 8);
	memcpy(&s->key, in + SGE_KEY, 4);
	memcpy(&s->length, in + SGE_LENGTH, 4);
	s->addr = order64(s->addr, swap);
	s->key = order32(s->key, swap);
	s->length = order32(s->length, swap);
}

void
rxd_rs_iomap_pack(const struct rxd_rs_iomap *m, bool swap, uint8_t *out)
{
	uint64_t offset = order64(m->offset, swap);

	memcpy(out, &offset, 8);
	rxd_rs_sge_pack(&m->sge, swap, out + 8);
}

void
rxd_rs_iomap_unpack(const uint8_t *in, bool swap, struct rxd_rs_iomap *m)
{
	memcpy(&m->offset, in, 8);
	m->offset = order64(m->offset, swap);
	rxd_rs_sge_unpack(in + 8, swap, &m->sge);
}

/* Values up to 128 are themselves; above, bit 7 set and value >> 8. */
uint8_t
rxd_rs_scale_encode(unsigned int value)
{
	if (value <= 128)
		return (uint8_t)value;
	if (value >= (127u << 8))
		return 0xFF;
	return (uint8_t)(0x80 | (value >> 8));
}

unsigned int
rxd_rs_scale_decode(uint8_t code)
{
	if (code <= 128)
		return code;
	return (unsigned int)(code & 0x7F) << 8;
}
