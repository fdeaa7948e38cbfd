/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Codec tests of lib/wire: build -> parse round trips for every valid
 * opcode (IPv4/IPv6, VLAN tags, payload sizes, UDP checksum), corruption
 * of any covered byte, variant and invariant field edits, truncation at
 * every length, PSN arithmetic and the invariants of the opcode table.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "rxd_icrc.h"
#include "rxd_test_pkt.h"
#include "rxd_test_ref.h"
#include "rxd_wire.h"

/*
 * The opcodes rxd implements, written out independently of the table:
 * RC 0x00-0x14, SEND with invalidate 0x16/0x17, FLUSH 0x1c and ATOMIC
 * WRITE 0x1d (IBTA 1.5), UC 0x20-0x2b, UD 0x64/0x65, CNP 0x81.
 */
static uint8_t valid_ops[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
	0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16,
	0x17, 0x1c, 0x1d, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29,
	0x2a, 0x2b, 0x64, 0x65, 0x81,
};

#define N_VALID_OPS (sizeof(valid_ops) / sizeof(valid_ops[0]))

static const uint8_t ip_versions[] = { 4, 6 };

/* Bytes of the headers before the BTH for a packet shape. */
static uint32_t
pre_bth_len(uint8_t ip_ver, uint8_t vlans)
{
	return RXD_ETH_HLEN + RXD_VLAN_HLEN * vlans +
		(ip_ver == 4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN) + RXD_UDP_HLEN;
}

/* A built frame and the packet it was built from. */
struct built {
	struct rxd_pkt pkt;
	uint8_t payload[RXD_MAX_PMTU];
	uint8_t frame[RXD_TEST_FRAME_MAX];
	uint32_t len;
};

static void
build_one(struct built *b, uint8_t op, uint8_t ip_ver, uint8_t vlans,
	  uint32_t payload_len, bool udp_csum)
{
	rxd_test_pkt_make(&b->pkt, op, ip_ver, vlans, payload_len);
	b->pkt.udp_csum = udp_csum ? 1 : 0;
	rxd_test_payload_fill(b->payload, payload_len, op + payload_len);
	b->len = rxd_wire_build(&b->pkt, b->payload, b->frame,
				sizeof(b->frame));
	cr_assert_gt(b->len, 0, "build 0x%02x failed", op);
}

static uint8_t *
ip_of(struct built *b)
{
	return b->frame + b->pkt.l3_off;
}

/* Independent length of a frame: headers + payload + pad + ICRC. */
static uint32_t
expected_len(uint8_t op, uint8_t ip_ver, uint8_t vlans, uint32_t payload)
{
	const struct rxd_opcode_info *info = &rxd_opcode_table[op];
	uint32_t pad = (info->flags & RXD_OPF_LAST) ? (4 - payload % 4) % 4 : 0;

	return pre_bth_len(ip_ver, vlans) + RXD_BTH_LEN + info->hdr_len +
		payload + pad + RXD_ICRC_LEN;
}

static void
check_round_trip(uint8_t op, uint8_t ip_ver, uint8_t vlans, uint32_t size,
		 bool csum)
{
	static struct built b;
	struct rxd_pkt got;
	enum rxd_wire_err err;
	const char *diff;
	uint32_t icrc_len;

	build_one(&b, op, ip_ver, vlans, size, csum);
	cr_assert_eq(b.len, expected_len(op, ip_ver, vlans, size),
		     "0x%02x v%u vlan %u size %u: length %u", op, ip_ver, vlans,
		     size, b.len);
	cr_assert_eq(rxd_wire_hdr_len(&b.pkt), b.pkt.payload_off);
	err = rxd_wire_parse(b.frame, b.len, &got, 0);
	cr_assert_eq(err, RXD_WIRE_OK, "0x%02x v%u vlan %u size %u csum %d: %s",
		     op, ip_ver, vlans, size, csum, rxd_wire_strerror(err));
	diff = rxd_test_pkt_diff(&b.pkt, &got, RXD_TEST_CMP_ALL);
	cr_assert_null(diff, "0x%02x v%u vlan %u size %u: field %s differs",
		       op, ip_ver, vlans, size, diff);
	cr_assert_eq(memcmp(b.frame + got.payload_off, b.payload, size), 0);
	icrc_len = b.len - b.pkt.l3_off - RXD_ICRC_LEN;
	cr_assert_eq(rxd_test_icrc_ref(ip_of(&b), icrc_len), got.icrc,
		     "0x%02x: ICRC differs from the reference", op);
	if (csum)
		cr_assert_eq(got.udp_csum, rxd_test_udp_csum(ip_of(&b)));
	else
		cr_assert_eq(got.udp_csum, 0);
}

ParameterizedTestParameters(codec, round_trip)
{
	return cr_make_param_array(uint8_t, valid_ops, N_VALID_OPS);
}

ParameterizedTest(uint8_t *op, codec, round_trip)
{
	uint32_t sizes[RXD_TEST_MAX_SIZES];
	unsigned int n = rxd_test_payload_sizes(*op, sizes);
	unsigned int v, vlans, s, csum, count = 0;

	for (v = 0; v < 2; v++)
		for (vlans = 0; vlans <= 2; vlans++)
			for (s = 0; s < n; s++)
				for (csum = 0; csum < 2; csum++, count++)
					check_round_trip(*op, ip_versions[v],
							 (uint8_t)vlans,
							 sizes[s], csum);
	cr_assert_eq(count, 2 * 3 * 2 * n);
}

/*
 * Other field values than the defaults, one at a time: each must survive
 * build -> parse (catches a builder that hard-codes a field).
 */
struct pkt_variation {
	const char *name;
	void (*set)(struct rxd_pkt *pkt);
};

static void
set_no_df(struct rxd_pkt *pkt)
{
	pkt->ip_df = false;
}

static void
set_ip_extremes(struct rxd_pkt *pkt)
{
	pkt->ip_id = 0xffff;
	pkt->ttl = 255;
	pkt->tos = 0xff;
	pkt->flow_label = 0xfffff;
	pkt->udp_sport = 0xffff;
}

static void
set_ip_zeros(struct rxd_pkt *pkt)
{
	pkt->ip_id = 0;
	pkt->ttl = 0;
	pkt->tos = 0;
	pkt->flow_label = 0;
	pkt->udp_sport = 0;
}

static void
set_bth_flags(struct rxd_pkt *pkt)
{
	pkt->se = !pkt->se;
	pkt->mig = true;
	pkt->fecn = true;
	pkt->becn = !pkt->becn;
	pkt->ackreq = !pkt->ackreq;
}

static void
set_bth_extremes(struct rxd_pkt *pkt)
{
	pkt->pkey = 0x7fff;
	pkt->dqpn = RXD_QPN_MASK;
	pkt->psn = RXD_PSN_MASK;
}

static void
set_vlan_extremes(struct rxd_pkt *pkt)
{
	pkt->vlan_count = 2;
	pkt->vlan_tpid[0] = RXD_ETHER_VLAN;
	pkt->vlan_tci[0] = 0xffff;
	pkt->vlan_tpid[1] = RXD_ETHER_VLAN;
	pkt->vlan_tci[1] = 0x0001;
	pkt->dmac[0] = 0x01;  /* a group destination is fine, not a source */
}

static void
set_exthdr_values(struct rxd_pkt *pkt)
{
	static const uint8_t imm[4] = { 0x01, 0x02, 0x03, 0x04 };

	pkt->reth_va = 0xfedcba9876543210ull;
	pkt->reth_rkey = 0x89abcdef;
	if (pkt->op != NULL && (pkt->op->flags & RXD_OPF_WRITE) &&
	    !(pkt->op->flags & RXD_OPF_LAST))
		pkt->reth_len = 0x80000000u;   /* largest allowed */
	pkt->aeth_syndrome = rxd_aeth_make(RXD_AETH_ACK, 0);
	pkt->aeth_msn = RXD_PSN_MASK;
	pkt->atm_va = 0xfffffffffffffff8ull;
	pkt->atm_rkey = 0xffffffff;
	pkt->atm_swap_add = 0x0123456789abcdefull;
	pkt->atm_cmp = 0xfedcba9876543210ull;
	pkt->atm_orig = 0x8000000000000001ull;
	memcpy(&pkt->imm, imm, sizeof(imm));
	pkt->ieth_rkey = 0xffffffff;
	pkt->deth_qkey = 0x80010000;
	pkt->deth_sqpn = RXD_QPN_MASK;
}

static const struct pkt_variation variations[] = {
	{ "IPv4 DF clear", set_no_df },
	{ "IP/UDP extremes", set_ip_extremes },
	{ "IP/UDP zeros", set_ip_zeros },
	{ "BTH flags", set_bth_flags },
	{ "BTH extremes", set_bth_extremes },
	{ "VLAN extremes", set_vlan_extremes },
	{ "extension header values", set_exthdr_values },
};

ParameterizedTestParameters(codec, field_values_round_trip)
{
	return cr_make_param_array(uint8_t, valid_ops, N_VALID_OPS);
}

ParameterizedTest(uint8_t *op, codec, field_values_round_trip)
{
	static uint8_t frame[RXD_TEST_FRAME_MAX], payload[RXD_MAX_PMTU];
	uint32_t size = rxd_test_payload_typical(*op);
	struct rxd_pkt pkt, got;
	enum rxd_wire_err err;
	unsigned int i, v;
	const char *diff;

	rxd_test_payload_fill(payload, size, 9);
	for (v = 0; v < 2; v++) {
		for (i = 0; i < sizeof(variations) / sizeof(variations[0]);
		     i++) {
			rxd_test_pkt_make(&pkt, *op, ip_versions[v], 0, size);
			pkt.op = &rxd_opcode_table[*op];
			variations[i].set(&pkt);
			cr_assert_gt(rxd_wire_build(&pkt, payload, frame,
						    sizeof(frame)), 0);
			err = rxd_wire_parse(frame, pkt.frame_len, &got, 0);
			cr_assert_eq(err, RXD_WIRE_OK, "0x%02x %s: %s", *op,
				     variations[i].name,
				     rxd_wire_strerror(err));
			diff = rxd_test_pkt_diff(&pkt, &got, RXD_TEST_CMP_ALL);
			cr_assert_null(diff, "0x%02x v%u %s: field %s", *op,
				       ip_versions[v], variations[i].name,
				       diff);
		}
	}
}

/*
 * The builder writes what it is given, even a frame the parser must
 * refuse: each of these has a valid ICRC and exactly one structural fault.
 */
struct bad_build {
	const char *name;
	uint8_t opcode;
	uint32_t payload_len;
	void (*set)(struct rxd_pkt *pkt);
	enum rxd_wire_err err;
};

static void
set_tver_1(struct rxd_pkt *pkt)
{
	pkt->tver = 1;
}

static void
set_nak_invalid(struct rxd_pkt *pkt)
{
	pkt->aeth_syndrome = rxd_aeth_make(RXD_AETH_NAK, RXD_NAK_INVALID_REQ);
}

static void
set_rnr_nak(struct rxd_pkt *pkt)
{
	pkt->aeth_syndrome = rxd_aeth_make(RXD_AETH_RNR_NAK, 14);
}

static void
set_aeth_reserved_type(struct rxd_pkt *pkt)
{
	pkt->aeth_syndrome = rxd_aeth_make(RXD_AETH_RESERVED, 0);
}

static void
set_aeth_bit7(struct rxd_pkt *pkt)
{
	pkt->aeth_syndrome = 0x9f;
}

static void
set_nak_code_5(struct rxd_pkt *pkt)
{
	pkt->aeth_syndrome = rxd_aeth_make(RXD_AETH_NAK, 5);
}

static void
set_reth_len_plus_1(struct rxd_pkt *pkt)
{
	pkt->reth_len = pkt->payload_len + 1;
}

static void
set_reth_len_payload(struct rxd_pkt *pkt)
{
	pkt->reth_len = pkt->payload_len;
}

static void
set_reth_len_huge(struct rxd_pkt *pkt)
{
	pkt->reth_len = 0x80000001u;
}

static void
set_reth_len_16(struct rxd_pkt *pkt)
{
	pkt->reth_len = 16;
}

static void
set_nothing(struct rxd_pkt *pkt)
{
	(void)pkt;
}

static const struct bad_build bad_builds[] = {
	{ "TVer 1", RXD_OP_RC_SEND_ONLY, 8, set_tver_1, RXD_WIRE_BTH_VERSION },
	{ "READ RESPONSE FIRST with a NAK", RXD_OP_RC_READ_RESP_FIRST, 1024,
	  set_nak_invalid, RXD_WIRE_AETH },
	{ "ATOMIC ACKNOWLEDGE with an RNR NAK", RXD_OP_RC_ATOMIC_ACK, 0,
	  set_rnr_nak, RXD_WIRE_AETH },
	{ "ACK syndrome type 10b", RXD_OP_RC_ACK, 0, set_aeth_reserved_type,
	  RXD_WIRE_AETH },
	{ "ACK syndrome bit 7", RXD_OP_RC_ACK, 0, set_aeth_bit7,
	  RXD_WIRE_AETH },
	{ "NAK code 5", RXD_OP_RC_ACK, 0, set_nak_code_5, RXD_WIRE_AETH },
	{ "WRITE ONLY DMA length != payload", RXD_OP_RC_WRITE_ONLY, 64,
	  set_reth_len_plus_1, RXD_WIRE_LENGTH },
	{ "WRITE FIRST DMA length == payload", RXD_OP_UC_WRITE_FIRST, 1024,
	  set_reth_len_payload, RXD_WIRE_LENGTH },
	{ "WRITE FIRST DMA length > 2^31", RXD_OP_RC_WRITE_FIRST, 1024,
	  set_reth_len_huge, RXD_WIRE_LENGTH },
	{ "SEND MIDDLE of 100 bytes", RXD_OP_RC_SEND_MIDDLE, 100,
	  set_nothing, RXD_WIRE_LENGTH },
	{ "SEND FIRST of 128 bytes", RXD_OP_UC_SEND_FIRST, 128, set_nothing,
	  RXD_WIRE_LENGTH },
	{ "SEND ONLY of 4097 bytes", RXD_OP_RC_SEND_ONLY, 4097, set_nothing,
	  RXD_WIRE_LENGTH },
	{ "READ REQUEST with payload", RXD_OP_RC_READ_REQ, 4, set_nothing,
	  RXD_WIRE_LENGTH },
	{ "CNP with payload", RXD_OP_CNP, 4, set_nothing, RXD_WIRE_LENGTH },
	{ "ATOMIC WRITE of 4 bytes", RXD_OP_RC_ATOMIC_WRITE, 4,
	  set_reth_len_payload, RXD_WIRE_LENGTH },
	{ "ATOMIC WRITE of 16 bytes", RXD_OP_RC_ATOMIC_WRITE, 16,
	  set_reth_len_payload, RXD_WIRE_LENGTH },
	{ "ATOMIC WRITE DMA length 16", RXD_OP_RC_ATOMIC_WRITE, 8,
	  set_reth_len_16, RXD_WIRE_LENGTH },
	{ "FLUSH with payload", RXD_OP_RC_FLUSH, 4, set_nothing,
	  RXD_WIRE_LENGTH },
};

Test(codec, parser_refuses_built_faults)
{
	static uint8_t frame[RXD_TEST_FRAME_MAX], payload[RXD_MAX_PMTU + 4];
	struct rxd_pkt pkt, got;
	enum rxd_wire_err err;
	unsigned int i;

	for (i = 0; i < sizeof(bad_builds) / sizeof(bad_builds[0]); i++) {
		const struct bad_build *bb = &bad_builds[i];

		rxd_test_pkt_make(&pkt, bb->opcode, 4, 0, bb->payload_len);
		bb->set(&pkt);
		cr_assert_gt(rxd_wire_build(&pkt, payload, frame,
					    sizeof(frame)), 0, "%s", bb->name);
		err = rxd_wire_parse(frame, pkt.frame_len, &got, 0);
		cr_expect_eq(err, bb->err, "%s: %s", bb->name,
			     rxd_wire_strerror(err));
	}
}

/* The opcodes RXD_PARSE_DEFER_ICRC leaves unchecked. */
static bool
deferred_op(uint8_t op)
{
	return op == RXD_OP_RC_SEND_MIDDLE || op == RXD_OP_RC_SEND_LAST ||
		op == RXD_OP_RC_WRITE_MIDDLE || op == RXD_OP_RC_WRITE_LAST ||
		op == RXD_OP_RC_READ_RESP_MIDDLE ||
		op == RXD_OP_RC_READ_RESP_LAST;
}

/*
 * With RXD_PARSE_DEFER_ICRC the parser refuses what it refuses without,
 * except the ICRC of a deferred opcode, which rxd_wire_icrc_ok() and
 * rxd_wire_place() then find wrong (good: right, and the payload placed).
 */
static void
check_deferred(const struct built *b, const uint8_t *frame, bool good)
{
	static uint8_t placed[RXD_TEST_FRAME_MAX];
	struct rxd_pkt got, plain;
	enum rxd_wire_err err, plain_err;

	err = rxd_wire_parse(frame, b->len, &got,
			     RXD_PARSE_NO_CSUM | RXD_PARSE_DEFER_ICRC);
	plain_err = rxd_wire_parse(frame, b->len, &plain, RXD_PARSE_NO_CSUM);
	if (err != RXD_WIRE_OK || !deferred_op(got.opcode)) {
		cr_assert_eq(err, plain_err, "0x%02x deferred: %s, not %s",
			     b->pkt.opcode, rxd_wire_strerror(err),
			     rxd_wire_strerror(plain_err));
		cr_assert(!got.icrc_deferred);
		return;
	}
	cr_assert(got.icrc_deferred, "0x%02x: not deferred", got.opcode);
	cr_assert_eq(rxd_wire_icrc_ok(frame, &got), good,
		     "0x%02x: deferred check", b->pkt.opcode);
	cr_assert_eq(rxd_wire_place(frame, &got, placed), good,
		     "0x%02x: check while placing", b->pkt.opcode);
	cr_assert_eq(plain_err, good ? RXD_WIRE_OK : RXD_WIRE_ICRC);
	if (good)
		cr_assert_eq(memcmp(placed, b->payload, got.payload_len), 0);
}

/* Any change of a byte the ICRC covers after the UDP header is caught. */
static void
check_flips(struct built *b)
{
	static const uint8_t masks[] = { 0x01, 0x80, 0xff };
	static uint8_t copy[RXD_TEST_FRAME_MAX];
	uint32_t off, m, tried = 0;
	struct rxd_pkt got;
	enum rxd_wire_err err;

	check_deferred(b, b->frame, true);
	for (off = b->pkt.bth_off; off < b->len; off++) {
		if (off == b->pkt.bth_off + 4u)
			continue; /* FECN/BECN/resv6: variant, see below */
		for (m = 0; m < sizeof(masks); m++, tried++) {
			memcpy(copy, b->frame, b->len);
			copy[off] ^= masks[m];
			err = rxd_wire_parse(copy, b->len, &got, 0);
			cr_assert_neq(err, RXD_WIRE_OK,
				      "0x%02x: byte %u ^ %02x accepted",
				      b->pkt.opcode, off, masks[m]);
			check_deferred(b, copy, false);
			if (off < b->pkt.payload_off)
				continue;
			/* Payload, pad, ICRC: only the ICRC can tell. */
			err = rxd_wire_parse(copy, b->len, &got,
					     RXD_PARSE_NO_CSUM);
			cr_assert_eq(err, RXD_WIRE_ICRC,
				     "0x%02x: byte %u ^ %02x: %s",
				     b->pkt.opcode, off, masks[m],
				     rxd_wire_strerror(err));
		}
	}
	cr_assert_eq(tried, (b->len - b->pkt.bth_off - 1) * sizeof(masks));
}

ParameterizedTestParameters(codec, byte_flips_fail)
{
	return cr_make_param_array(uint8_t, valid_ops, N_VALID_OPS);
}

ParameterizedTest(uint8_t *op, codec, byte_flips_fail)
{
	static struct built b;
	unsigned int v, csum;

	for (v = 0; v < 2; v++) {
		for (csum = 0; csum < 2; csum++) {
			build_one(&b, *op, ip_versions[v], 0,
				  rxd_test_payload_typical(*op), csum);
			check_flips(&b);
		}
	}
}

/* Edits of header fields; IP and UDP checksums are fixed afterwards. */
struct field_edit {
	const char *name;
	uint8_t ip_ver;                 /* 4, 6 or 0 for both */
	void (*apply)(uint8_t *ip, uint32_t hlen);
	bool (*visible)(const struct rxd_pkt *pkt);
};

static void
v4_ttl(uint8_t *ip, uint32_t hlen)
{
	(void)hlen;
	ip[8] = 1;
}

static bool
ttl_is_1(const struct rxd_pkt *pkt)
{
	return pkt->ttl == 1;
}

static void
v4_tos(uint8_t *ip, uint32_t hlen)
{
	(void)hlen;
	ip[1] = 46 << 2 | 3; /* DSCP 46, ECN CE */
}

static bool
tos_is_ef_ce(const struct rxd_pkt *pkt)
{
	return pkt->tos == (46 << 2 | 3);
}

static void
v6_hop_limit(uint8_t *ip, uint32_t hlen)
{
	(void)hlen;
	ip[7] = 1;
}

static void
v6_traffic_class(uint8_t *ip, uint32_t hlen)
{
	const uint8_t tc = 46 << 2 | 3;

	(void)hlen;
	ip[0] = (uint8_t)(0x60 | tc >> 4);
	ip[1] = (uint8_t)((tc & 0xf) << 4 | (ip[1] & 0xf));
}

static void
v6_flow_label(uint8_t *ip, uint32_t hlen)
{
	(void)hlen;
	ip[1] = (uint8_t)((ip[1] & 0xf0) | 0xa);
	ip[2] = 0xbc;
	ip[3] = 0xde;
}

static bool
flow_is_abcde(const struct rxd_pkt *pkt)
{
	return pkt->flow_label == 0xabcde;
}

static void
bth_fecn(uint8_t *ip, uint32_t hlen)
{
	ip[hlen + RXD_UDP_HLEN + 4] |= 0x80;
}

static bool
fecn_set(const struct rxd_pkt *pkt)
{
	return pkt->fecn;
}

static void
bth_becn(uint8_t *ip, uint32_t hlen)
{
	ip[hlen + RXD_UDP_HLEN + 4] |= 0x40;
}

static bool
becn_set(const struct rxd_pkt *pkt)
{
	return pkt->becn;
}

static void
bth_resv6(uint8_t *ip, uint32_t hlen)
{
	ip[hlen + RXD_UDP_HLEN + 4] |= 0x3f;
}

static void
udp_csum_zero(uint8_t *ip, uint32_t hlen)
{
	ip[hlen + 6] = 0;
	ip[hlen + 7] = 0;
}

static bool
udp_csum_is_zero(const struct rxd_pkt *pkt)
{
	return pkt->udp_csum == 0;
}

static void
udp_csum_valid(uint8_t *ip, uint32_t hlen)
{
	uint16_t c = rxd_test_udp_csum(ip);

	ip[hlen + 6] = (uint8_t)(c >> 8);
	ip[hlen + 7] = (uint8_t)c;
}

static bool
udp_csum_nonzero(const struct rxd_pkt *pkt)
{
	return pkt->udp_csum != 0;
}

static bool
always(const struct rxd_pkt *pkt)
{
	(void)pkt;
	return true;
}

static const struct field_edit variant_edits[] = {
	{ "IPv4 TTL 64 -> 1", 4, v4_ttl, ttl_is_1 },
	{ "IPv4 TOS -> DSCP 46 + CE", 4, v4_tos, tos_is_ef_ce },
	{ "IPv6 hop limit 64 -> 1", 6, v6_hop_limit, ttl_is_1 },
	{ "IPv6 traffic class -> DSCP 46 + CE", 6, v6_traffic_class,
	  tos_is_ef_ce },
	{ "IPv6 flow label -> 0xabcde", 6, v6_flow_label, flow_is_abcde },
	{ "BTH FECN", 0, bth_fecn, fecn_set },
	{ "BTH BECN", 0, bth_becn, becn_set },
	{ "BTH resv6 bits", 0, bth_resv6, always },
	{ "UDP checksum -> 0", 0, udp_csum_zero, udp_csum_is_zero },
	{ "UDP checksum -> valid", 0, udp_csum_valid, udp_csum_nonzero },
};

static void
v4_ident(uint8_t *ip, uint32_t hlen)
{
	(void)hlen;
	ip[5] ^= 1;
}

static void
v4_df_clear(uint8_t *ip, uint32_t hlen)
{
	(void)hlen;
	ip[6] &= (uint8_t)~0x40;
}

static void
v4_src(uint8_t *ip, uint32_t hlen)
{
	(void)hlen;
	ip[15] ^= 1;
}

static void
v6_src(uint8_t *ip, uint32_t hlen)
{
	(void)hlen;
	ip[23] ^= 1;
}

static void
v6_dst(uint8_t *ip, uint32_t hlen)
{
	(void)hlen;
	ip[24] ^= 0x80;
}

static void
udp_sport(uint8_t *ip, uint32_t hlen)
{
	ip[hlen + 1] ^= 1;
}

static const struct field_edit invariant_edits[] = {
	{ "IPv4 identification", 4, v4_ident, always },
	{ "IPv4 DF cleared", 4, v4_df_clear, always },
	{ "IPv4 source address", 4, v4_src, always },
	{ "IPv6 source address", 6, v6_src, always },
	{ "IPv6 destination address", 6, v6_dst, always },
	{ "UDP source port", 0, udp_sport, always },
};

/* Apply an edit to a copy of the frame and repair the IP/UDP checksums. */
static void
edit_copy(const struct built *b, const struct field_edit *e, uint8_t *copy)
{
	uint8_t *ip = copy + b->pkt.l3_off;
	uint32_t hlen = b->pkt.ip_ver == 4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN;

	memcpy(copy, b->frame, b->len);
	e->apply(ip, hlen);
	if (b->pkt.ip_ver == 4)
		rxd_test_ipv4_fix_csum(ip);
	rxd_test_udp_fix_csum(ip);
}

static unsigned int
check_edits(struct built *b, const struct field_edit *edits, unsigned int n,
	    bool variant)
{
	static uint8_t copy[RXD_TEST_FRAME_MAX];
	unsigned int i, applied = 0;
	struct rxd_pkt got;
	enum rxd_wire_err err;

	for (i = 0; i < n; i++) {
		const struct field_edit *e = &edits[i];

		if (e->ip_ver != 0 && e->ip_ver != b->pkt.ip_ver)
			continue;
		edit_copy(b, e, copy);
		err = rxd_wire_parse(copy, b->len, &got, 0);
		applied++;
		if (!variant) {
			cr_assert_eq(err, RXD_WIRE_ICRC, "0x%02x %s: %s",
				     b->pkt.opcode, e->name,
				     rxd_wire_strerror(err));
			continue;
		}
		cr_assert_eq(err, RXD_WIRE_OK, "0x%02x %s: %s", b->pkt.opcode,
			     e->name, rxd_wire_strerror(err));
		cr_assert_eq(got.icrc, b->pkt.icrc, "0x%02x %s: ICRC changed",
			     b->pkt.opcode, e->name);
		cr_assert(e->visible(&got), "0x%02x %s: edit not seen",
			  b->pkt.opcode, e->name);
	}
	return applied;
}

#define N_VARIANT (sizeof(variant_edits) / sizeof(variant_edits[0]))
#define N_INVARIANT (sizeof(invariant_edits) / sizeof(invariant_edits[0]))

ParameterizedTestParameters(codec, variant_fields_keep_icrc)
{
	return cr_make_param_array(uint8_t, valid_ops, N_VALID_OPS);
}

ParameterizedTest(uint8_t *op, codec, variant_fields_keep_icrc)
{
	static struct built b;
	unsigned int v, csum, applied = 0;

	for (v = 0; v < 2; v++) {
		for (csum = 0; csum < 2; csum++) {
			build_one(&b, *op, ip_versions[v], 1,
				  rxd_test_payload_typical(*op), csum);
			applied += check_edits(&b, variant_edits, N_VARIANT,
					       true);
		}
	}
	/* 5 common edits + 2 IPv4-only + 3 IPv6-only, twice each */
	cr_assert_eq(applied, 2 * (5 + 2) + 2 * (5 + 3));
}

ParameterizedTestParameters(codec, invariant_fields_break_icrc)
{
	return cr_make_param_array(uint8_t, valid_ops, N_VALID_OPS);
}

ParameterizedTest(uint8_t *op, codec, invariant_fields_break_icrc)
{
	static struct built b;
	unsigned int v, csum, applied = 0;

	for (v = 0; v < 2; v++) {
		for (csum = 0; csum < 2; csum++) {
			build_one(&b, *op, ip_versions[v], 0,
				  rxd_test_payload_typical(*op), csum);
			applied += check_edits(&b, invariant_edits,
					       N_INVARIANT, false);
		}
	}
	cr_assert_eq(applied, 2 * (1 + 3) + 2 * (1 + 2));
}

/* Truncated frames, each in a heap buffer of exactly its length. */
static void
check_truncations(const struct built *b)
{
	static const unsigned int flag_sets[] = {
		0, RXD_PARSE_NO_ICRC | RXD_PARSE_NO_CSUM
	};
	struct rxd_pkt got;
	enum rxd_wire_err err;
	uint32_t len, f;

	for (len = 0; len < b->len; len++) {
		uint8_t *cut = malloc(len ? len : 1);

		cr_assert_not_null(cut);
		memcpy(cut, b->frame, len);
		for (f = 0; f < 2; f++) {
			err = rxd_wire_parse(cut, len, &got, flag_sets[f]);
			cr_assert_neq(err, RXD_WIRE_OK,
				      "0x%02x cut at %u/%u accepted",
				      b->pkt.opcode, len, b->len);
		}
		free(cut);
	}
}

/* Bytes after the IP datagram (Ethernet padding, FCS) are ignored. */
static void
check_trailer(const struct built *b)
{
	static uint8_t longer[RXD_TEST_FRAME_MAX + 8];
	struct rxd_pkt got;
	enum rxd_wire_err err;

	memcpy(longer, b->frame, b->len);
	memset(longer + b->len, 0xa5, 8);
	err = rxd_wire_parse(longer, b->len + 8, &got, 0);
	cr_assert_eq(err, RXD_WIRE_OK, "trailer: %s", rxd_wire_strerror(err));
	cr_assert_null(rxd_test_pkt_diff(&b->pkt, &got, RXD_TEST_CMP_ALL));
}

ParameterizedTestParameters(codec, truncation_fails)
{
	return cr_make_param_array(uint8_t, valid_ops, N_VALID_OPS);
}

ParameterizedTest(uint8_t *op, codec, truncation_fails)
{
	static struct built b;
	unsigned int v, vlans;

	for (v = 0; v < 2; v++) {
		for (vlans = 0; vlans <= 2; vlans += 2) {
			build_one(&b, *op, ip_versions[v], (uint8_t)vlans,
				  rxd_test_payload_typical(*op), false);
			check_truncations(&b);
			check_trailer(&b);
		}
	}
}

/* rxd_wire_parse_ip on the IP datagram alone gives the same fields. */
ParameterizedTestParameters(codec, parse_ip_matches)
{
	return cr_make_param_array(uint8_t, valid_ops, N_VALID_OPS);
}

ParameterizedTest(uint8_t *op, codec, parse_ip_matches)
{
	static struct built b;
	struct rxd_pkt got;
	unsigned int v;
	uint32_t ip_len;

	for (v = 0; v < 2; v++) {
		build_one(&b, *op, ip_versions[v], 1,
			  rxd_test_payload_typical(*op), true);
		ip_len = b.len - b.pkt.l3_off;
		cr_assert_eq(rxd_wire_parse_ip(ip_of(&b), ip_len, &got, 0),
			     RXD_WIRE_OK);
		cr_assert_eq(got.l3_off, 0);
		cr_assert_null(rxd_test_pkt_diff(&b.pkt, &got,
			RXD_TEST_CMP_UDP_CSUM | RXD_TEST_CMP_ICRC));
		cr_assert_neq(rxd_wire_parse_ip(ip_of(&b), ip_len - 1, &got, 0),
			      RXD_WIRE_OK);
	}
}

Test(codec, build_refuses_bad_opcode_and_small_buffer)
{
	static struct built b;
	struct rxd_pkt pkt;
	uint8_t small[64];

	build_one(&b, RXD_OP_RC_SEND_ONLY, 4, 0, 100, false);
	pkt = b.pkt;
	cr_assert_eq(rxd_wire_build(&pkt, b.payload, b.frame, b.len - 1), 0);
	pkt = b.pkt;
	cr_assert_eq(rxd_wire_build(&pkt, b.payload, b.frame, b.len), b.len);
	pkt = b.pkt;
	cr_assert_eq(rxd_wire_build(&pkt, b.payload, small, sizeof(small)), 0);
	pkt.opcode = 0x15;   /* reserved RC opcode */
	cr_assert_eq(rxd_wire_build(&pkt, b.payload, b.frame, sizeof(b.frame)),
		     0);
	pkt.opcode = 0x44;   /* RD SEND ONLY */
	cr_assert_eq(rxd_wire_build(&pkt, b.payload, b.frame, sizeof(b.frame)),
		     0);
}

/* The builder leaves the payload alone when it is already in place. */
Test(codec, build_with_payload_in_place)
{
	static struct built a, b;
	struct rxd_pkt got;
	uint32_t len;

	build_one(&a, RXD_OP_RC_WRITE_ONLY, 6, 0, 1000, true);
	rxd_test_pkt_make(&b.pkt, RXD_OP_RC_WRITE_ONLY, 6, 0, 1000);
	b.pkt.udp_csum = 1;
	memcpy(b.frame + rxd_wire_hdr_len(&b.pkt), a.payload, 1000);
	len = rxd_wire_build(&b.pkt, NULL, b.frame, sizeof(b.frame));
	cr_assert_eq(len, a.len);
	cr_assert_eq(memcmp(a.frame, b.frame, len), 0);
	cr_assert_eq(rxd_wire_parse(b.frame, len, &got, 0), RXD_WIRE_OK);
}

/* PSN arithmetic modulo 2^24 */

struct psn_case {
	uint32_t a, b;
	int32_t diff;
};

static const struct psn_case psn_cases[] = {
	{ 0, 0, 0 },
	{ 5, 3, 2 },
	{ 3, 5, -2 },
	{ 0, 0xffffff, 1 },             /* wrap: 0 comes after 0xffffff */
	{ 0xffffff, 0, -1 },
	{ 2, 0xfffffe, 4 },
	{ 0xfffffe, 2, -4 },
	{ 0x7fffff, 0, 0x7fffff },      /* largest step forward */
	{ 0, 0x7fffff, -0x7fffff },
	{ 0x800000, 0, -0x800000 },     /* half the space: reads as behind */
	{ 0, 0x800000, -0x800000 },
	{ 0x800001, 1, -0x800000 },
	{ 0x1000005, 5, 0 },            /* bits above 24 are ignored */
	{ 0xff000003, 0x00000001, 2 },
};

Test(psn, diff_table)
{
	unsigned int i;

	for (i = 0; i < sizeof(psn_cases) / sizeof(psn_cases[0]); i++) {
		const struct psn_case *c = &psn_cases[i];

		cr_expect_eq(rxd_psn_diff(c->a, c->b), c->diff,
			     "psn_diff(%#x, %#x) = %d, want %d", c->a, c->b,
			     rxd_psn_diff(c->a, c->b), c->diff);
	}
}

/* For every base and every d in [-2^23, 2^23): diff(base + d, base) == d. */
Test(psn, diff_window_around_wrap)
{
	static const uint32_t bases[] = {
		0, 1, 0x7fffff, 0x800000, 0xfffff0, 0xffffff,
	};
	unsigned int i;
	int32_t d;

	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		for (d = -0x800000; d < 0x800000; d += 0x1001) {
			uint32_t a = (bases[i] + (uint32_t)d) & RXD_PSN_MASK;

			cr_assert_eq(rxd_psn_diff(a, bases[i]), d,
				     "base %#x d %d", bases[i], d);
			cr_assert_eq(rxd_psn_diff(bases[i], a),
				     d == -0x800000 ? d : -d);
		}
	}
}

/* Opcode table invariants */

static bool
is_valid_op(unsigned int op)
{
	unsigned int i;

	for (i = 0; i < N_VALID_OPS; i++)
		if (valid_ops[i] == op)
			return true;
	return false;
}

Test(opcode_table, named_rows_are_the_valid_opcodes)
{
	unsigned int op, named = 0;

	for (op = 0; op < 256; op++) {
		bool has_name = rxd_opcode_table[op].name != NULL;

		cr_expect_eq(has_name, is_valid_op(op), "opcode 0x%02x", op);
		named += has_name;
	}
	cr_assert_eq(named, N_VALID_OPS);
	for (op = 0x40; op <= 0x5f; op++)
		cr_assert_null(rxd_opcode_table[op].name, "RD 0x%02x", op);
	for (op = 0xa0; op <= 0xbf; op++)
		cr_assert_null(rxd_opcode_table[op].name, "XRC 0x%02x", op);
}

static const struct {
	uint16_t hdr;
	uint8_t len;
} hdr_lens[] = {
	{ RXD_HDR_RETH, 16 }, { RXD_HDR_AETH, 4 }, { RXD_HDR_ATMETH, 28 },
	{ RXD_HDR_ATMACK, 8 }, { RXD_HDR_IMMDT, 4 }, { RXD_HDR_IETH, 4 },
	{ RXD_HDR_DETH, 8 }, { RXD_HDR_CNP, 16 }, { RXD_HDR_FETH, 4 },
};

Test(opcode_table, hdr_len_is_sum_of_headers)
{
	unsigned int i, j;

	for (i = 0; i < N_VALID_OPS; i++) {
		const struct rxd_opcode_info *op =
			&rxd_opcode_table[valid_ops[i]];
		unsigned int sum = 0, mask = 0;

		for (j = 0; j < sizeof(hdr_lens) / sizeof(hdr_lens[0]); j++) {
			mask |= hdr_lens[j].hdr;
			if (op->hdrs & hdr_lens[j].hdr)
				sum += hdr_lens[j].len;
		}
		cr_expect_eq(op->hdr_len, sum, "%s", op->name);
		cr_expect_eq(op->hdrs & ~mask, 0, "%s: unknown header",
			     op->name);
	}
}

/* Position flags follow the name: FIRST, MIDDLE, LAST, or single (F|L). */
static uint16_t
position_from_name(const char *name)
{
	if (strstr(name, "_ONLY") != NULL)
		return RXD_OPF_FIRST | RXD_OPF_LAST;
	if (strstr(name, "_FIRST") != NULL)
		return RXD_OPF_FIRST;
	if (strstr(name, "_MIDDLE") != NULL)
		return RXD_OPF_MIDDLE;
	if (strstr(name, "_LAST") != NULL)
		return RXD_OPF_LAST;
	return RXD_OPF_FIRST | RXD_OPF_LAST; /* ACK, READ REQUEST, atomics */
}

Test(opcode_table, positions_match_names)
{
	const uint16_t pos = RXD_OPF_FIRST | RXD_OPF_MIDDLE | RXD_OPF_LAST;
	unsigned int i;

	for (i = 0; i < N_VALID_OPS; i++) {
		const struct rxd_opcode_info *op =
			&rxd_opcode_table[valid_ops[i]];

		cr_expect_eq(op->flags & pos, position_from_name(op->name),
			     "%s: flags %#x", op->name, op->flags);
	}
}

static const char *const service_prefix[RXD_SVC_XRC + 1] = {
	[RXD_SVC_RC] = "RC_", [RXD_SVC_UC] = "UC_", [RXD_SVC_UD] = "UD_",
	[RXD_SVC_CNP] = "CNP",
};

Test(opcode_table, service_matches_opcode_and_name)
{
	unsigned int i;

	for (i = 0; i < N_VALID_OPS; i++) {
		const struct rxd_opcode_info *op =
			&rxd_opcode_table[valid_ops[i]];
		const char *prefix;

		cr_expect_eq(op->service, valid_ops[i] >> 5, "%s", op->name);
		cr_assert_leq(op->service, RXD_SVC_XRC, "%s", op->name);
		prefix = service_prefix[op->service];
		cr_assert_not_null(prefix, "%s: service %u", op->name,
				   op->service);
		cr_expect_eq(strncmp(op->name, prefix, strlen(prefix)), 0,
			     "%s: service %u", op->name, op->service);
	}
}

Test(opcode_table, ack_requests)
{
	unsigned int i, rc_req = 0;

	for (i = 0; i < N_VALID_OPS; i++) {
		const struct rxd_opcode_info *op =
			&rxd_opcode_table[valid_ops[i]];
		bool req = op->flags & RXD_OPF_REQ;
		bool resp = op->flags & RXD_OPF_RESP;
		bool want = op->flags & RXD_OPF_WANT_ACK;

		cr_expect(!(req && resp), "%s: both REQ and RESP", op->name);
		if (op->service == RXD_SVC_RC) {
			cr_expect(req || resp, "%s: neither", op->name);
			cr_expect_eq(want, req, "%s: WANT_ACK", op->name);
			rc_req += req;
		} else {
			cr_expect_not(want, "%s: WANT_ACK", op->name);
			cr_expect_not(resp, "%s: RESP", op->name);
			cr_expect_eq(req, op->service != RXD_SVC_CNP, "%s",
				     op->name);
		}
	}
	/* SEND x6, WRITE x6, READ REQUEST, 2 atomics, SEND with inv x2,
	 * FLUSH, ATOMIC WRITE */
	cr_assert_eq(rc_req, 19);
}

/* Which extension headers each kind of opcode must carry. */
static uint16_t
hdrs_from_flags(const struct rxd_opcode_info *op)
{
	uint32_t f = op->flags;
	uint16_t h = 0;
	bool first = f & RXD_OPF_FIRST, middle = f & RXD_OPF_MIDDLE;

	if (op->service == RXD_SVC_UD)
		h |= RXD_HDR_DETH;
	if ((f & RXD_OPF_WRITE && first) ||
	    (f & RXD_OPF_READ && f & RXD_OPF_REQ) ||
	    (f & (RXD_OPF_ATOMIC_WRITE | RXD_OPF_FLUSH)))
		h |= RXD_HDR_RETH;
	if (f & RXD_OPF_FLUSH)
		h |= RXD_HDR_FETH;
	if (f & RXD_OPF_ATOMIC && f & RXD_OPF_REQ)
		h |= RXD_HDR_ATMETH;
	if (f & RXD_OPF_ACK || (f & RXD_OPF_RESP && !middle))
		h |= RXD_HDR_AETH;
	if (f & RXD_OPF_ATOMIC && f & RXD_OPF_RESP)
		h |= RXD_HDR_ATMACK;
	if (f & RXD_OPF_IMM)
		h |= RXD_HDR_IMMDT;
	if (f & RXD_OPF_INV)
		h |= RXD_HDR_IETH;
	if (op->service == RXD_SVC_CNP)
		h |= RXD_HDR_CNP;
	return h;
}

Test(opcode_table, headers_follow_flags)
{
	unsigned int i;

	for (i = 0; i < N_VALID_OPS; i++) {
		const struct rxd_opcode_info *op =
			&rxd_opcode_table[valid_ops[i]];
		bool payload = op->flags & RXD_OPF_PAYLOAD;
		bool kind = op->flags & (RXD_OPF_SEND | RXD_OPF_WRITE);

		cr_expect_eq(op->hdrs, hdrs_from_flags(op), "%s: hdrs %#x",
			     op->name, op->hdrs);
		/* SEND, WRITE, READ RESPONSE and ATOMIC WRITE carry data;
		 * nothing else. */
		kind |= ((op->flags & RXD_OPF_READ) &&
			 (op->flags & RXD_OPF_RESP)) ||
			(op->flags & RXD_OPF_ATOMIC_WRITE);
		cr_expect_eq(payload, kind, "%s: PAYLOAD", op->name);
	}
}

Test(opcode_table, names_unique)
{
	unsigned int i, j;

	for (i = 0; i < N_VALID_OPS; i++)
		for (j = i + 1; j < N_VALID_OPS; j++)
			cr_expect_str_neq(rxd_opcode_table[valid_ops[i]].name,
					  rxd_opcode_table[valid_ops[j]].name);
}

Test(wire_err, every_error_has_a_distinct_name)
{
	unsigned int i, j;

	for (i = 0; i < RXD_WIRE_ERR_MAX; i++) {
		const char *s = rxd_wire_strerror((enum rxd_wire_err)i);

		cr_assert_not_null(s, "error %u", i);
		cr_expect_str_neq(s, "unknown error", "error %u", i);
		for (j = 0; j < i; j++)
			cr_expect_str_neq(s,
					  rxd_wire_strerror((enum rxd_wire_err)j),
					  "errors %u and %u", i, j);
	}
	cr_expect_str_eq(rxd_wire_strerror(RXD_WIRE_ERR_MAX), "unknown error");
	cr_expect_str_eq(rxd_wire_strerror(RXD_WIRE_ICRC), "ICRC mismatch");
}
