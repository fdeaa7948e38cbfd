/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rsockets wire codec: connection data byte for byte in rdma-core's
 * layout (version, flags, big-endian credits, 3 reserved bytes, the
 * scaled iomap size, then two big-endian SGEs: addr, key, length), the
 * immediate data of each message type, SGE and iomap records in the
 * receiver's byte order, the iomap size scale, and refused input.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>

#include "rxd_rs_wire.h"

/* A REQ's private data as rdma-core 44 on x86-64 formats it. */
static const uint8_t conn_bytes[RXD_RS_CONN_LEN] = {
	0x01, 0x02, 0x01, 0x80, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x55, 0x66, 0x77, 0x88, 0x99, 0xa0, /* target_sgl.addr */
	0x00, 0x00, 0x12, 0x34,                         /* key */
	0x00, 0x00, 0x00, 0x02,                         /* length: slots */
	0x00, 0x00, 0x7f, 0x01, 0x02, 0x03, 0x04, 0x00, /* data_buf.addr */
	0x00, 0x00, 0x56, 0x78,                         /* key */
	0x00, 0x01, 0x00, 0x00,                         /* length 64 KiB */
};

Test(rs_wire, conn_data_layout)
{
	struct rxd_rs_conn c;
	uint8_t out[RXD_RS_CONN_LEN];

	cr_assert_eq(rxd_rs_conn_unpack(conn_bytes, sizeof(conn_bytes), &c), 0);
	cr_assert_eq(c.version, 1);
	cr_assert_eq(c.flags, RXD_RS_CONN_FLAG_IOMAP);
	cr_assert_eq(c.credits, 384);
	cr_assert_eq(c.iomap_scaled, 1);
	cr_assert_eq(c.target_sgl.addr, 0x5566778899a0ull);
	cr_assert_eq(c.target_sgl.key, 0x1234);
	cr_assert_eq(c.target_sgl.length, RXD_RS_SGL_SIZE);
	cr_assert_eq(c.data_buf.addr, 0x7f0102030400ull);
	cr_assert_eq(c.data_buf.key, 0x5678);
	cr_assert_eq(c.data_buf.length, 65536);
	rxd_rs_conn_pack(&c, out);
	cr_assert_arr_eq(out, conn_bytes, sizeof(out));
}

Test(rs_wire, conn_data_refused)
{
	uint8_t bad[RXD_RS_CONN_LEN];
	struct rxd_rs_conn c;

	cr_assert_eq(rxd_rs_conn_unpack(conn_bytes, RXD_RS_CONN_LEN - 1, &c),
		     EPROTO);
	cr_assert_eq(rxd_rs_conn_unpack(NULL, 0, &c), EPROTO);
	memcpy(bad, conn_bytes, sizeof(bad));
	bad[0] = 2;
	cr_assert_eq(rxd_rs_conn_unpack(bad, sizeof(bad), &c), EPROTO);
}

Test(rs_wire, our_flags_and_byte_order)
{
	cr_assert(rxd_rs_conn_flags() & RXD_RS_CONN_FLAG_IOMAP);
	if (__BYTE_ORDER == __LITTLE_ENDIAN) {
		cr_assert_eq(rxd_rs_conn_flags() & RXD_RS_CONN_FLAG_NET, 0);
		cr_assert(!rxd_rs_conn_swap(RXD_RS_CONN_FLAG_IOMAP));
		cr_assert(rxd_rs_conn_swap(RXD_RS_CONN_FLAG_NET));
	}
}

/* Bits 31..29 the operation, 28..0 its argument. */
Test(rs_wire, immediate_data)
{
	static const struct {
		enum rxd_rs_op op;
		uint32_t data, imm;
	} cases[] = {
		{ RXD_RS_OP_DATA, 4096, 0x00001000 },
		{ RXD_RS_OP_DATA, 65536, 0x00010000 },
		{ RXD_RS_OP_SGL, 0x1234, 0x80001234 },
		{ RXD_RS_OP_IOMAP_SGL, 3, 0xc0000003 },
		{ RXD_RS_OP_CTRL, RXD_RS_CTRL_DISCONNECT, 0xe0000000 },
		{ RXD_RS_OP_CTRL, RXD_RS_CTRL_SHUTDOWN, 0xe0000002 },
		{ RXD_RS_OP_DATA, 0xffffffff, 0x1fffffff },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t imm = rxd_rs_imm(cases[i].op, cases[i].data);

		cr_assert_eq(imm, cases[i].imm, "case %zu: %08x", i, imm);
		cr_assert_eq(rxd_rs_imm_op(imm), cases[i].op);
		cr_assert_eq(rxd_rs_imm_data(imm),
			     cases[i].data & RXD_RS_IMM_DATA_MAX);
	}
}

Test(rs_wire, sge_record_in_receiver_order)
{
	struct rxd_rs_sge s = { 0x1122334455667788ull, 0xaabbccdd, 0x8000 };
	struct rxd_rs_sge back;
	uint8_t rec[RXD_RS_SGE_LEN];
	uint64_t addr;
	uint32_t key, len;

	rxd_rs_sge_pack(&s, false, rec);
	memcpy(&addr, rec, 8);
	memcpy(&key, rec + 8, 4);
	memcpy(&len, rec + 12, 4);
	cr_assert_eq(addr, s.addr);
	cr_assert_eq(key, s.key);
	cr_assert_eq(len, s.length);
	rxd_rs_sge_pack(&s, true, rec);
	memcpy(&key, rec + 8, 4);
	cr_assert_eq(key, 0xddccbbaa);
	rxd_rs_sge_unpack(rec, true, &back);
	cr_assert_eq(back.addr, s.addr);
	cr_assert_eq(back.key, s.key);
	cr_assert_eq(back.length, s.length);
}

Test(rs_wire, iomap_record)
{
	struct rxd_rs_iomap m = { 7, { 0x1000, 0x42, 4096 } }, back;
	uint8_t rec[RXD_RS_IOMAP_LEN];
	uint64_t offset;

	rxd_rs_iomap_pack(&m, false, rec);
	memcpy(&offset, rec, 8);
	cr_assert_eq(offset, 7);
	rxd_rs_iomap_unpack(rec, false, &back);
	cr_assert_eq(back.offset, 7);
	cr_assert_eq(back.sge.addr, 0x1000);
	cr_assert_eq(back.sge.key, 0x42);
	cr_assert_eq(back.sge.length, 4096);
}

/* Up to 128 slots as is; above, bit 7 and the count in units of 256. */
Test(rs_wire, iomap_size_scale)
{
	cr_assert_eq(rxd_rs_scale_encode(0), 0);
	cr_assert_eq(rxd_rs_scale_encode(1), 1);
	cr_assert_eq(rxd_rs_scale_encode(128), 128);
	cr_assert_eq(rxd_rs_scale_encode(512), 0x82);
	cr_assert_eq(rxd_rs_scale_decode(0x82), 512);
	cr_assert_eq(rxd_rs_scale_decode(128), 128);
	cr_assert_eq(rxd_rs_scale_decode(rxd_rs_scale_encode(300)), 256);
	cr_assert_eq(rxd_rs_scale_encode(1u << 20), 0xff);
}
