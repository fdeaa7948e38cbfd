/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection templates of lib/wire.  Transmit: a frame built from a
 * connection's headers (rxd_wire_build_from()) is byte for byte the one
 * rxd_wire_build() makes, for every opcode, IP version, VLAN count and
 * payload size.  Receive: a template learnt from an accepted WRITE or
 * SEND FIRST takes the in-order MIDDLE and LAST, and the SEND and WRITE
 * ONLY at the expected PSN, one learnt from an ACK the plain ACKs in the
 * window, with the fields the full parse gives them; it refuses a wrong
 * PSN, opcode, syndrome, peer, QPN, port, ECN mark, checksum, ICRC or
 * length, and never takes a frame the full parse refuses (random edits of
 * a matching frame).
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "rxd_bytes.h"
#include "rxd_rx_tmpl.h"
#include "rxd_test_pkt.h"
#include "rxd_wire.h"

static const uint8_t all_ops[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
	0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16,
	0x17, 0x1c, 0x1d, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
	0x28, 0x29, 0x2a, 0x2b, 0x64, 0x65, 0x81,
};

struct frame {
	struct rxd_pkt pkt;
	uint8_t bytes[RXD_TEST_FRAME_MAX];
	uint32_t len;
};

static uint8_t payload[RXD_MAX_PMTU];

Test(tx_tmpl, same_bytes_as_full_build)
{
	static struct frame a, b;
	struct rxd_wire_hdr h;
	uint32_t sizes[RXD_TEST_MAX_SIZES], n, i, k;
	uint8_t ver, vlans;

	rxd_test_payload_fill(payload, sizeof(payload), 5);
	for (i = 0; i < sizeof(all_ops); i++)
		for (ver = 4; ver <= 6; ver += 2)
			for (vlans = 0; vlans <= 2; vlans++) {
				n = rxd_test_payload_sizes(all_ops[i], sizes);
				for (k = 0; k < n; k++) {
					rxd_test_pkt_make(&a.pkt, all_ops[i], ver,
							  vlans, sizes[k]);
					rxd_wire_hdr_make(&h, &a.pkt);
					cr_assert(h.valid);
					b.pkt = a.pkt;
					a.len = rxd_wire_build(&a.pkt, payload,
						a.bytes, sizeof(a.bytes));
					b.len = rxd_wire_build_from(&h, &b.pkt,
						payload, b.bytes, sizeof(b.bytes));
					cr_assert_gt(a.len, 0);
					cr_assert_eq(a.len, b.len, "op 0x%02x",
						     all_ops[i]);
					cr_assert(!memcmp(a.bytes, b.bytes, a.len),
						  "op 0x%02x IPv%u %u tags %u B",
						  all_ops[i], ver, vlans, sizes[k]);
					cr_assert_null(rxd_test_pkt_diff(&a.pkt,
						&b.pkt, RXD_TEST_CMP_ALL));
				}
			}
}

Test(tx_tmpl, refuses_udp_checksum_and_small_buffers)
{
	static struct frame b;
	struct rxd_wire_hdr h;

	rxd_test_pkt_make(&b.pkt, RXD_OP_RC_WRITE_MIDDLE, 4, 0, 1024);
	b.pkt.udp_csum = 1;
	rxd_wire_hdr_make(&h, &b.pkt);
	cr_assert(!h.valid, "a UDP checksum changes per frame");
	b.pkt.udp_csum = 0;
	rxd_wire_hdr_make(&h, &b.pkt);
	cr_assert_eq(rxd_wire_build_from(&h, &b.pkt, payload, b.bytes, 100),
		     0, "1,082 bytes in 100");
	b.pkt.opcode = 0x15;
	cr_assert_eq(rxd_wire_build_from(&h, &b.pkt, payload, b.bytes,
					 sizeof(b.bytes)), 0, "no opcode 0x15");
}

/* The frame of opcode op, PSN psn, len bytes on the test connection. */
static void
make(struct frame *f, uint8_t op, uint8_t ver, uint8_t vlans, uint32_t psn,
     uint32_t len)
{
	rxd_test_pkt_make(&f->pkt, op, ver, vlans, len);
	f->pkt.psn = psn;
	f->len = rxd_wire_build(&f->pkt, payload, f->bytes, sizeof(f->bytes));
	cr_assert_gt(f->len, 0);
}

/* What the engine asks of the parse and the match. */
#define FLAGS RXD_PARSE_DEFER_ICRC
#define OP RXD_RX_TMPL_OP
#define ONLY_OPS (OP(RXD_OP_RC_SEND_ONLY) | OP(RXD_OP_RC_SEND_ONLY_IMM) | \
		  OP(RXD_OP_RC_WRITE_ONLY) | OP(RXD_OP_RC_WRITE_ONLY_IMM))
#define WRITE_OPS (OP(RXD_OP_RC_WRITE_MIDDLE) | OP(RXD_OP_RC_WRITE_LAST))

/* A template learnt from a frame of opcode op (a FIRST, an ACK) at PSN
 * 100. */
static void
learn(struct rxd_rx_tmpl *t, uint8_t op, uint8_t ver, uint8_t vlans)
{
	static struct frame f;
	struct rxd_pkt parsed;

	memset(t, 0, sizeof(*t));
	make(&f, op, ver, vlans, 100, rxd_test_payload_typical(op));
	cr_assert_eq(rxd_wire_parse(f.bytes, f.len, &parsed,
				    RXD_PARSE_DEFER_ICRC), RXD_WIRE_OK);
	rxd_rx_tmpl_learn(t, f.bytes, &parsed);
	cr_assert(t->armed);
}

/* The full parse's view of a frame the template took: the same. */
static void
expect_same_as_parse(const struct frame *f, const struct rxd_pkt *fast)
{
	struct rxd_pkt full;

	cr_assert_eq(rxd_wire_parse(f->bytes, f->len, &full,
				    RXD_PARSE_DEFER_ICRC), RXD_WIRE_OK,
		     "the fast path took a frame the full parse refuses");
	cr_assert_null(rxd_test_pkt_diff(&full, fast, RXD_TEST_CMP_ALL),
		       "field %s", rxd_test_pkt_diff(&full, fast,
						     RXD_TEST_CMP_ALL));
	cr_assert_eq(fast->icrc_deferred, full.icrc_deferred);
	cr_assert_eq(fast->ip_id, full.ip_id);
	cr_assert_eq(fast->frame_len, full.frame_len);
}

Test(rx_tmpl, takes_in_order_middle_and_last)
{
	static const uint32_t last_len[] = { 0, 1, 3, 4, 255, 1024, 4096 };
	static const uint8_t first[] = { RXD_OP_RC_WRITE_FIRST,
					 RXD_OP_RC_SEND_FIRST };
	static struct frame f;
	struct rxd_rx_tmpl t;
	struct rxd_pkt fast;
	uint8_t ver, vlans, fam, mid;
	unsigned int i;

	for (fam = 0; fam < 2; fam++)
		for (ver = 4; ver <= 6; ver += 2)
			for (vlans = 0; vlans <= 2; vlans++) {
				learn(&t, first[fam], ver, vlans);
				mid = (uint8_t)(first[fam] + 1);
				make(&f, mid, ver, vlans, 101, 1024);
				cr_assert(rxd_rx_tmpl_match(&t, f.bytes, f.len,
					FLAGS, OP(mid) | OP(mid + 1), 101, 1,
					&fast));
				expect_same_as_parse(&f, &fast);
				for (i = 0; i < 7; i++) {
					make(&f, (uint8_t)(mid + 1), ver, vlans,
					     102, last_len[i]);
					cr_assert(rxd_rx_tmpl_match(&t, f.bytes,
						f.len, FLAGS, OP(mid) | OP(mid + 1),
						102, 1, &fast),
						"LAST of %u B", last_len[i]);
					expect_same_as_parse(&f, &fast);
				}
			}
}

Test(rx_tmpl, takes_only_frames_and_plain_acks)
{
	static const uint8_t only[] = { RXD_OP_RC_SEND_ONLY,
		RXD_OP_RC_SEND_ONLY_IMM, RXD_OP_RC_WRITE_ONLY,
		RXD_OP_RC_WRITE_ONLY_IMM };
	static struct frame f;
	struct rxd_rx_tmpl t, a;
	uint32_t sizes[RXD_TEST_MAX_SIZES], n, k, psn;
	struct rxd_pkt fast;
	uint8_t ver, vlans;
	unsigned int i;

	for (ver = 4; ver <= 6; ver += 2)
		for (vlans = 0; vlans <= 2; vlans++) {
			learn(&t, RXD_OP_RC_WRITE_FIRST, ver, vlans);
			learn(&a, RXD_OP_RC_ACK, ver, vlans);
			for (i = 0; i < sizeof(only); i++) {
				n = rxd_test_payload_sizes(only[i], sizes);
				for (k = 0; k < n; k++) {
					make(&f, only[i], ver, vlans, 101,
					     sizes[k]);
					cr_assert(rxd_rx_tmpl_match(&t, f.bytes,
						f.len, FLAGS, ONLY_OPS, 101, 1,
						&fast), "op 0x%02x %u B",
						only[i], sizes[k]);
					expect_same_as_parse(&f, &fast);
				}
			}
			/* an ACK of any PSN of 101..104 */
			for (psn = 101; psn <= 104; psn++) {
				make(&f, RXD_OP_RC_ACK, ver, vlans, psn, 0);
				cr_assert(rxd_rx_tmpl_match_ack(&a, f.bytes,
					f.len, FLAGS, 101, 4, &fast));
				expect_same_as_parse(&f, &fast);
			}
		}
}

/* A WRITE MIDDLE at PSN 101 after a template learnt from a WRITE FIRST,
 * changed by edit, is refused. */
static void
refused(void (*edit)(struct frame *f), const char *what)
{
	static struct frame f;
	struct rxd_rx_tmpl t;
	struct rxd_pkt fast;

	learn(&t, RXD_OP_RC_WRITE_FIRST, 4, 0);
	make(&f, RXD_OP_RC_WRITE_MIDDLE, 4, 0, 101, 1024);
	edit(&f);
	cr_assert(!rxd_rx_tmpl_match(&t, f.bytes, f.len, FLAGS, WRITE_OPS, 101,
				     1, &fast), "took %s", what);
}

/* Rebuild the frame after a change to its fields. */
static void
rebuild(struct frame *f)
{
	f->len = rxd_wire_build(&f->pkt, payload, f->bytes, sizeof(f->bytes));
}

static void psn_next(struct frame *f) { f->pkt.psn = 102; rebuild(f); }
static void psn_dup(struct frame *f) { f->pkt.psn = 100; rebuild(f); }
static void op_first(struct frame *f)
{
	f->pkt.opcode = RXD_OP_RC_WRITE_FIRST;
	rebuild(f);
}
static void op_send(struct frame *f)
{
	f->pkt.opcode = RXD_OP_RC_SEND_MIDDLE;
	rebuild(f);
}
static void op_last_imm(struct frame *f)
{
	f->pkt.opcode = RXD_OP_RC_WRITE_LAST_IMM;
	f->pkt.payload_len = 8;
	rebuild(f);
}
static void op_uc(struct frame *f)
{
	f->pkt.opcode = RXD_OP_UC_WRITE_MIDDLE;
	rebuild(f);
}
static void peer_ip(struct frame *f) { f->pkt.sgid[15] ^= 1; rebuild(f); }
static void our_ip(struct frame *f) { f->pkt.dgid[15] ^= 1; rebuild(f); }
static void peer_port(struct frame *f) { f->pkt.udp_sport++; rebuild(f); }
static void qpn(struct frame *f) { f->pkt.dqpn++; rebuild(f); }
static void pkey(struct frame *f) { f->pkt.pkey = 0x7fff; rebuild(f); }
static void mac(struct frame *f) { f->pkt.dmac[5] ^= 1; rebuild(f); }
static void ce(struct frame *f)
{
	f->pkt.tos |= RXD_ECN_CE;
	rebuild(f);
}
static void ttl(struct frame *f) { f->pkt.ttl--; rebuild(f); }
static void udp_csum(struct frame *f) { f->pkt.udp_csum = 1; rebuild(f); }
static void ip_csum(struct frame *f) { f->bytes[RXD_ETH_HLEN + 10] ^= 1; }
static void udp_len(struct frame *f) { f->bytes[RXD_ETH_HLEN + 25] ^= 4; }
static void ip_len_long(struct frame *f) { f->len -= 8; }
static void not_pmtu(struct frame *f)
{
	f->pkt.payload_len = 1000;
	rebuild(f);
}
static void middle_pad(struct frame *f)
{
	f->bytes[RXD_ETH_HLEN + 20 + 8 + 1] |= 0x10;
}
static void tver(struct frame *f)
{
	f->bytes[RXD_ETH_HLEN + 20 + 8 + 1] |= 0x01;
}
static void short_frame(struct frame *f) { f->len = 60; }
/* The frame's IP datagram n bytes longer (IPv4, no tag; the lengths and
 * the checksum mended), as if its payload were. */
static void
grow(struct frame *f, uint32_t n)
{
	uint8_t *ip = f->bytes + RXD_ETH_HLEN;

	rxd_put16(ip + 2, (uint16_t)(rxd_get16(ip + 2) + n));
	rxd_put16(ip + 24, (uint16_t)(rxd_get16(ip + 24) + n));
	rxd_put16(ip + 10, 0);
	rxd_put16(ip + 10, rxd_csum_fold(rxd_csum_add(0, ip, RXD_IPV4_HLEN)));
	f->len += n;
}

/* A LAST one byte longer in both lengths (checksum mended): payload and
 * pad no longer fill whole 4-byte words. */
static void
last_unaligned(struct frame *f)
{
	f->pkt.opcode = RXD_OP_RC_WRITE_LAST;
	f->pkt.payload_len = 8;
	rebuild(f);
	grow(f, 1);
}

/* A WRITE ONLY of 64 B at PSN 101 after a template learnt from a WRITE
 * FIRST, changed by edit, is refused. */
static void
refused_only(void (*edit)(struct frame *f), const char *what)
{
	static struct frame f;
	struct rxd_rx_tmpl t;
	struct rxd_pkt fast;

	learn(&t, RXD_OP_RC_WRITE_FIRST, 4, 0);
	make(&f, RXD_OP_RC_WRITE_ONLY, 4, 0, 101, 64);
	cr_assert(rxd_rx_tmpl_match(&t, f.bytes, f.len, FLAGS, ONLY_OPS, 101,
				    1, &fast), "the unchanged frame");
	edit(&f);
	cr_assert(!rxd_rx_tmpl_match(&t, f.bytes, f.len, FLAGS, ONLY_OPS, 101,
				     1, &fast), "took %s", what);
}

/* An ACK of PSN 102 after a template learnt from an ACK, PSNs 101..104
 * outstanding, changed by edit, is refused. */
static void
refused_ack(void (*edit)(struct frame *f), const char *what)
{
	static struct frame f;
	struct rxd_rx_tmpl t;
	struct rxd_pkt fast;

	learn(&t, RXD_OP_RC_ACK, 4, 0);
	make(&f, RXD_OP_RC_ACK, 4, 0, 102, 0);
	cr_assert(rxd_rx_tmpl_match_ack(&t, f.bytes, f.len, FLAGS, 101, 4,
					&fast), "the unchanged ACK");
	edit(&f);
	cr_assert(!rxd_rx_tmpl_match_ack(&t, f.bytes, f.len, FLAGS, 101, 4,
					 &fast), "took %s", what);
}

static void reth_len(struct frame *f) { f->pkt.reth_len++; rebuild(f); }
static void reth_huge(struct frame *f)
{
	f->pkt.reth_len = 0x80000001u;
	rebuild(f);
}
static void payload_bit(struct frame *f) { f->bytes[f->len - 5] ^= 1; }
static void only_pad(struct frame *f) { grow(f, 1); }
static void op_first_only(struct frame *f)
{
	f->pkt.opcode = RXD_OP_RC_WRITE_FIRST;
	f->pkt.reth_len = 4096;
	rebuild(f);
}
static void op_send_inv(struct frame *f)
{
	f->pkt.opcode = RXD_OP_RC_SEND_ONLY_INV;
	rebuild(f);
}
static void op_read_req(struct frame *f)
{
	f->pkt.opcode = RXD_OP_RC_READ_REQ;
	f->pkt.payload_len = 0;
	rebuild(f);
}
static void psn_stale(struct frame *f) { f->pkt.psn = 100; rebuild(f); }
static void psn_unsent(struct frame *f) { f->pkt.psn = 105; rebuild(f); }
static void nak_seq(struct frame *f)
{
	f->pkt.aeth_syndrome = rxd_aeth_make(RXD_AETH_NAK, RXD_NAK_PSN_SEQ);
	rebuild(f);
}
static void nak_access(struct frame *f)
{
	f->pkt.aeth_syndrome = rxd_aeth_make(RXD_AETH_NAK,
					     RXD_NAK_REMOTE_ACCESS);
	rebuild(f);
}
static void rnr_nak(struct frame *f)
{
	f->pkt.aeth_syndrome = rxd_aeth_make(RXD_AETH_RNR_NAK, 1);
	rebuild(f);
}
static void syndrome_reserved(struct frame *f)
{
	f->pkt.aeth_syndrome |= 0x80;
	rebuild(f);
}
static void op_atomic_ack(struct frame *f)
{
	f->pkt.opcode = RXD_OP_RC_ATOMIC_ACK;
	rebuild(f);
}
static void op_read_resp(struct frame *f)
{
	f->pkt.opcode = RXD_OP_RC_READ_RESP_ONLY;
	f->pkt.payload_len = 8;
	rebuild(f);
}
static void ack_payload(struct frame *f) { grow(f, 4); }
static void ack_icrc(struct frame *f) { f->bytes[f->len - 1] ^= 1; }

Test(rx_tmpl, refuses_what_is_not_the_next_only_frame)
{
	refused_only(psn_next, "a gap");
	refused_only(psn_dup, "a duplicate");
	refused_only(reth_len, "a RETH length other than the payload's");
	refused_only(reth_huge, "a RETH length beyond 2 GiB");
	refused_only(payload_bit, "a wrong ICRC (an ONLY's is checked)");
	refused_only(only_pad, "an ONLY whose payload and pad are not words");
	refused_only(op_first_only, "a FIRST");
	refused_only(op_send_inv, "a SEND ONLY with invalidate");
	refused_only(op_read_req, "a READ request");
	refused_only(op_uc, "a UC opcode");
	refused_only(ce, "a CE mark");
	refused_only(udp_csum, "a UDP checksum");
	refused_only(qpn, "another destination QP");
}

Test(rx_tmpl, refuses_all_but_a_plain_ack_in_the_window)
{
	refused_ack(psn_stale, "an ACK of a PSN acknowledged before");
	refused_ack(psn_unsent, "an ACK of a PSN not sent");
	refused_ack(nak_seq, "a sequence NAK");
	refused_ack(nak_access, "a remote access NAK");
	refused_ack(rnr_nak, "an RNR NAK");
	refused_ack(syndrome_reserved, "a reserved syndrome bit");
	refused_ack(op_atomic_ack, "an atomic ACK");
	refused_ack(op_read_resp, "a READ response");
	refused_ack(ack_payload, "an ACK with payload");
	refused_ack(ack_icrc, "a wrong ICRC");
	refused_ack(ce, "a CE mark");
	refused_ack(peer_port, "another UDP source port");
}

Test(rx_tmpl, refuses_what_is_not_the_next_frame)
{
	refused(psn_next, "a gap");
	refused(psn_dup, "a duplicate");
	refused(op_first, "a FIRST inside the message");
	refused(op_send, "a SEND MIDDLE inside a WRITE");
	refused(op_last_imm, "a LAST with immediate data");
	refused(op_uc, "a UC opcode");
	refused(peer_ip, "another source address");
	refused(our_ip, "another destination address");
	refused(peer_port, "another UDP source port");
	refused(qpn, "another destination QP");
	refused(pkey, "another P_Key");
	refused(mac, "another destination MAC");
	refused(ce, "a CE mark (the full path counts it and answers a CNP)");
	refused(ttl, "another hop limit");
	refused(udp_csum, "a UDP checksum");
	refused(ip_csum, "a wrong IPv4 checksum");
	refused(udp_len, "a UDP length that disagrees");
	refused(ip_len_long, "an IP length beyond the frame");
	refused(not_pmtu, "a MIDDLE that is not a path MTU");
	refused(middle_pad, "a MIDDLE with pad");
	refused(tver, "TVer 1");
	refused(short_frame, "a truncated frame");
	refused(last_unaligned, "a LAST whose payload and pad are not words");
}

Test(rx_tmpl, learns_only_rc_frames_without_ce_or_udp_checksum)
{
	static struct frame f;
	struct rxd_rx_tmpl t;
	struct rxd_pkt parsed;
	unsigned int i;
	void (*spoil[])(struct frame *) = { ce, udp_csum, op_uc };

	for (i = 0; i < 3; i++) {
		memset(&t, 0, sizeof(t));
		make(&f, RXD_OP_RC_WRITE_FIRST, 4, 0, 100, 1024);
		spoil[i](&f);
		cr_assert_eq(rxd_wire_parse(f.bytes, f.len, &parsed,
					    RXD_PARSE_DEFER_ICRC), RXD_WIRE_OK);
		rxd_rx_tmpl_learn(&t, f.bytes, &parsed);
		cr_assert(!t.armed, "learnt from case %u", i);
	}
}

static uint32_t
rnd(uint64_t *s, uint32_t n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33) % n;
}

/* The kinds of frame the random edits start from: the template's opcode,
 * the frame's, the set of opcodes expected and the PSNs expected. */
static const struct {
	uint8_t learn_op, op;
	uint32_t ops, n_psn;
} kinds[] = {
	{ RXD_OP_RC_WRITE_FIRST, RXD_OP_RC_WRITE_MIDDLE, WRITE_OPS, 1 },
	{ RXD_OP_RC_WRITE_FIRST, RXD_OP_RC_WRITE_LAST, WRITE_OPS, 1 },
	{ RXD_OP_RC_WRITE_FIRST, RXD_OP_RC_WRITE_ONLY, ONLY_OPS, 1 },
	{ RXD_OP_RC_SEND_FIRST, RXD_OP_RC_SEND_ONLY_IMM, ONLY_OPS, 1 },
	{ RXD_OP_RC_ACK, RXD_OP_RC_ACK, OP(RXD_OP_RC_ACK), 3 },
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Random edits of a matching MIDDLE, LAST, ONLY or ACK (1-3 bytes of its
 * first 96, or its length): whatever the template takes, the full parse
 * takes too, with the same fields; most edits are refused. */
Test(rx_tmpl, never_takes_what_the_full_parse_refuses)
{
	static struct frame base, f;
	struct rxd_rx_tmpl t;
	struct rxd_pkt fast;
	uint64_t seed = 17;
	unsigned int i, k, taken = 0, refused_n = 0, round, kind = 0;
	unsigned int taken_of[N_KINDS] = { 0 };
	uint8_t ver, vlans;
	bool ok;

	for (i = 0; i < 200000; i++) {
		round = i / 1000;
		ver = (round & 1) ? 4 : 6;
		vlans = (uint8_t)(round % 3);
		if (i % 1000 == 0) {
			kind = (round / 2) % N_KINDS;
			learn(&t, kinds[kind].learn_op, ver, vlans);
			make(&base, kinds[kind].op, ver, vlans, 101,
			     kinds[kind].op == RXD_OP_RC_WRITE_MIDDLE ? 1024 :
			     kinds[kind].op == RXD_OP_RC_ACK ? 0 :
			     1 + round * 7 % 1024);
		}
		f = base;
		for (k = rnd(&seed, 4); k < 3; k++)
			f.bytes[rnd(&seed, 96)] ^= (uint8_t)(1u << rnd(&seed, 8));
		if (rnd(&seed, 8) == 0)
			f.len = f.len - 16 + rnd(&seed, 32);
		ok = kinds[kind].op == RXD_OP_RC_ACK ?
			rxd_rx_tmpl_match_ack(&t, f.bytes, f.len, FLAGS, 100,
					      kinds[kind].n_psn, &fast) :
			rxd_rx_tmpl_match(&t, f.bytes, f.len, FLAGS,
					  kinds[kind].ops, 101,
					  kinds[kind].n_psn, &fast);
		if (!ok) {
			refused_n++;
			continue;
		}
		taken++;
		taken_of[kind]++;
		expect_same_as_parse(&f, &fast);
	}
	cr_assert_gt(taken, 1000, "edits of the ICRC-covered bytes are taken");
	for (k = 0; k < N_KINDS; k++)
		cr_assert_gt(taken_of[k], 100, "kind %u: taken %u", k,
			     taken_of[k]);
	cr_assert_gt(refused_n, 100000);
}
