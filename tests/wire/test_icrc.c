/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICRC tests of lib/wire: CRC-32 known answers, incremental updates over
 * any split, agreement with a bit-at-a-time reference (each for every CRC
 * implementation: table, PCLMULQDQ, AVX-512 and AVX2 VPCLMULQDQ, where the
 * CPU has it), the run-time choice between them and its feature mask
 * (RXD_CPU_FEATURES_OFF), the LRH seed, which header bytes
 * the ICRC masks, and the one hardware-made ICRC we have (a CNP from a
 * ConnectX-4 Lx).
 */
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <stdlib.h>

#include "rxd_cpu.h"
#include "rxd_icrc.h"
#include "rxd_test_pkt.h"
#include "rxd_test_ref.h"
#include "rxd_wire.h"

#define CRC_INIT 0xffffffffu

/* zlib/Ethernet convention: start at ~0, invert at the end. */
static uint32_t
crc32_oneshot(const void *buf, size_t len)
{
	return ~rxd_crc32_update(CRC_INIT, buf, len);
}

struct crc_kat {
	const char *text;
	uint32_t crc;
};

static const struct crc_kat crc_kats[] = {
	{ "", 0x00000000 },
	{ "a", 0xe8b7be43 },
	{ "abc", 0x352441c2 },
	{ "123456789", 0xcbf43926 },
	{ "The quick brown fox jumps over the lazy dog", 0x414fa339 },
};

static enum rxd_crc32_impl impls[] = {
	RXD_CRC32_TABLE, RXD_CRC32_CLMUL, RXD_CRC32_VCLMUL,
	RXD_CRC32_VCLMUL256,
};

#define N_IMPLS (sizeof(impls) / sizeof(impls[0]))

static void
use_impl(enum rxd_crc32_impl impl)
{
	if (rxd_crc32_set_impl(impl) != 0)
		cr_skip_test("CRC implementation %d not supported here", impl);
	cr_assert_eq(rxd_crc32_get_impl(), impl);
}

#if defined(__x86_64__) || defined(__i386__)
#define CPUID_HAS(name) __builtin_cpu_supports(name)
#else
#define CPUID_HAS(name) false
#endif

/* A feature CPUID reports that RXD_CPU_FEATURES_OFF does not mask. */
static bool
usable(bool cpuid, enum rxd_cpu_feature f)
{
	uint32_t off;

	rxd_cpu_mask_parse(getenv(RXD_CPU_FEATURES_OFF_ENV), &off);
	return cpuid && !(off & 1u << f);
}

/*
 * The fastest implementation the CPU has, less the masked features, is
 * the one in use (wire-icrc-mask-* run this under RXD_CPU_FEATURES_OFF).
 */
Test(crc32, runtime_selection)
{
	enum rxd_crc32_impl want = RXD_CRC32_TABLE;
	bool vclmul;

	if (usable(CPUID_HAS("pclmul"), RXD_CPU_PCLMUL) &&
	    usable(CPUID_HAS("sse4.1"), RXD_CPU_SSE41))
		want = RXD_CRC32_CLMUL;
	vclmul = want == RXD_CRC32_CLMUL &&
		usable(CPUID_HAS("vpclmulqdq"), RXD_CPU_VPCLMUL);
	if (vclmul && usable(CPUID_HAS("avx2"), RXD_CPU_AVX2))
		want = RXD_CRC32_VCLMUL256;
	if (vclmul && usable(CPUID_HAS("avx512f"), RXD_CPU_AVX512F))
		want = RXD_CRC32_VCLMUL;
	cr_log_info("CRC in use: %s", rxd_crc32_impl_name(want));
	cr_assert_eq(rxd_crc32_get_impl(), want, "in use: %s, want %s",
		     rxd_crc32_impl_name(rxd_crc32_get_impl()),
		     rxd_crc32_impl_name(want));
	cr_assert_eq(rxd_crc32_set_impl(RXD_CRC32_TABLE), 0);
	cr_assert_eq(rxd_crc32_get_impl(), RXD_CRC32_TABLE);
	cr_assert_eq(rxd_crc32_set_impl((enum rxd_crc32_impl)7), -1);
	cr_assert_eq(rxd_crc32_set_impl(RXD_CRC32_N_IMPLS), -1);
}

/* Masked features are refused by rxd_crc32_set_impl() too. */
Test(crc32, masked_impl_refused)
{
	if (!usable(CPUID_HAS("avx512f"), RXD_CPU_AVX512F))
		cr_assert_eq(rxd_crc32_set_impl(RXD_CRC32_VCLMUL), -1);
	if (!usable(CPUID_HAS("vpclmulqdq"), RXD_CPU_VPCLMUL)) {
		cr_assert_eq(rxd_crc32_set_impl(RXD_CRC32_VCLMUL), -1);
		cr_assert_eq(rxd_crc32_set_impl(RXD_CRC32_VCLMUL256), -1);
	}
	if (!usable(CPUID_HAS("pclmul"), RXD_CPU_PCLMUL))
		cr_assert_eq(rxd_crc32_set_impl(RXD_CRC32_CLMUL), -1);
	cr_assert_eq(rxd_crc32_set_impl(RXD_CRC32_TABLE), 0);
}

/* RXD_CPU_FEATURES_OFF's list: names, separators, unknown names. */
Test(cpu, mask_parse)
{
	uint32_t m;

	cr_assert_eq(rxd_cpu_mask_parse(NULL, &m), 0);
	cr_assert_eq(m, 0);
	cr_assert_eq(rxd_cpu_mask_parse("avx512f", &m), 0);
	cr_assert_eq(m, 1u << RXD_CPU_AVX512F);
	cr_assert_eq(rxd_cpu_mask_parse(" avx512f, vpclmulqdq ,avx2", &m), 0);
	cr_assert_eq(m, 1u << RXD_CPU_AVX512F | 1u << RXD_CPU_VPCLMUL |
		     1u << RXD_CPU_AVX2);
	cr_assert_eq(rxd_cpu_mask_parse("pclmul,sse4.1", &m), 0);
	cr_assert_eq(m, 1u << RXD_CPU_PCLMUL | 1u << RXD_CPU_SSE41);
	cr_assert_eq(rxd_cpu_mask_parse("avx512,avx2", &m), -1);
	cr_assert_eq(m, 1u << RXD_CPU_AVX2);
	cr_assert_eq(rxd_cpu_mask_parse("", &m), 0);
	cr_assert_eq(m, 0);
}

ParameterizedTestParameters(crc32, known_answers_text)
{
	return cr_make_param_array(enum rxd_crc32_impl, impls, N_IMPLS);
}

ParameterizedTest(enum rxd_crc32_impl *impl, crc32, known_answers_text)
{
	unsigned int i;

	use_impl(*impl);

	for (i = 0; i < sizeof(crc_kats) / sizeof(crc_kats[0]); i++) {
		const struct crc_kat *k = &crc_kats[i];

		cr_expect_eq(crc32_oneshot(k->text, strlen(k->text)), k->crc,
			     "\"%s\": %08x", k->text,
			     crc32_oneshot(k->text, strlen(k->text)));
	}
}

ParameterizedTestParameters(crc32, known_answers_binary)
{
	return cr_make_param_array(enum rxd_crc32_impl, impls, N_IMPLS);
}

ParameterizedTest(enum rxd_crc32_impl *impl, crc32, known_answers_binary)
{
	uint8_t zeros[32], ones[32], ramp[256];
	unsigned int i;

	use_impl(*impl);
	memset(zeros, 0, sizeof(zeros));
	memset(ones, 0xff, sizeof(ones));
	for (i = 0; i < sizeof(ramp); i++)
		ramp[i] = (uint8_t)i;
	cr_expect_eq(crc32_oneshot(zeros, sizeof(zeros)), 0x190a55adu);
	cr_expect_eq(crc32_oneshot(ones, sizeof(ones)), 0xff6cab0bu);
	cr_expect_eq(crc32_oneshot(ramp, sizeof(ramp)), 0x29058c73u);
}

/* The LRH stand-in: raw state after 8 0xFF bytes is rxe's seed. */
Test(crc32, lrh_seed_is_debb20e3)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint32_t state = rxd_crc32_update(CRC_INIT, lrh, sizeof(lrh));

	cr_assert_eq(state, 0xdebb20e3u, "raw state %08x", state);
	/* the same bytes as a finished CRC (zlib.crc32) are the inverse */
	cr_assert_eq(crc32_oneshot(lrh, sizeof(lrh)), 0x2144df1cu);
}

static void
fill(uint8_t *buf, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
}

/* Lengths around the implementations' block sizes (16, 64) and large. */
static size_t
next_len(size_t len)
{
	if (len < 300)
		return len + 1;
	if (len < 1100)
		return len + 61;
	return len + 997;
}

/* Lengths 0..300 and up to 9000, at alignments 0..7, match the reference. */
ParameterizedTestParameters(crc32, matches_bitwise_reference)
{
	return cr_make_param_array(enum rxd_crc32_impl, impls, N_IMPLS);
}

ParameterizedTest(enum rxd_crc32_impl *impl, crc32, matches_bitwise_reference)
{
	static uint8_t buf[9100];
	size_t len, align;

	use_impl(*impl);
	fill(buf, sizeof(buf), 1);
	for (align = 0; align < 8; align++) {
		for (len = 0; len <= 9000; len = next_len(len)) {
			uint32_t want = rxd_test_crc32_bitwise(0x12345678u,
							       buf + align,
							       len);

			cr_assert_eq(rxd_crc32_update(0x12345678u, buf + align,
						      len), want,
				     "len %zu align %zu", len, align);
		}
	}
}

/* Two- and three-way splits give the one-shot state. */
ParameterizedTestParameters(crc32, incremental_equals_oneshot)
{
	return cr_make_param_array(enum rxd_crc32_impl, impls, N_IMPLS);
}

ParameterizedTest(enum rxd_crc32_impl *impl, crc32, incremental_equals_oneshot)
{
	static uint8_t buf[5000];
	uint32_t whole, s;
	size_t i, j;

	use_impl(*impl);
	fill(buf, sizeof(buf), 7);
	whole = rxd_crc32_update(CRC_INIT, buf, sizeof(buf));
	for (i = 0; i <= sizeof(buf); i += (i < 80 ? 1 : 97)) {
		s = rxd_crc32_update(CRC_INIT, buf, i);
		s = rxd_crc32_update(s, buf + i, sizeof(buf) - i);
		cr_assert_eq(s, whole, "split at %zu", i);
	}
	for (i = 1; i < 40; i += 3) {
		for (j = i; j < sizeof(buf); j += 613) {
			s = rxd_crc32_update(CRC_INIT, buf, i);
			s = rxd_crc32_update(s, buf + i, j - i);
			s = rxd_crc32_update(s, buf + j, sizeof(buf) - j);
			cr_assert_eq(s, whole, "splits at %zu, %zu", i, j);
		}
	}
	s = CRC_INIT;
	for (i = 0; i < sizeof(buf); i++)
		s = rxd_crc32_update(s, buf + i, 1);
	cr_assert_eq(s, whole, "byte by byte");
}

/*
 * rxd_icrc_compute over IPv4 and IPv6 packets with every length of what
 * follows the BTH from 0 to 300 bytes, then larger ones, at alignments 0..3,
 * matches the bitwise reference: the CLMUL paths top the masked headers up
 * to whole blocks from what follows, or fall back when it is too short.
 */
ParameterizedTestParameters(icrc, every_length_matches_reference)
{
	return cr_make_param_array(enum rxd_crc32_impl, impls, N_IMPLS);
}

ParameterizedTest(enum rxd_crc32_impl *impl, icrc,
		  every_length_matches_reference)
{
	static uint8_t buf[9100];
	uint32_t hlen, rest, align, v;
	uint8_t *ip;

	use_impl(*impl);
	for (v = 4; v <= 6; v += 2) {
		hlen = (v == 4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN) +
			RXD_UDP_HLEN + RXD_BTH_LEN;
		for (align = 0; align < 4; align++) {
			fill(buf, sizeof(buf), v + align);
			ip = buf + align;
			ip[0] = v == 4 ? 0x45 : 0x60;
			for (rest = 0; rest + hlen <= 9000;
			     rest = (uint32_t)next_len(rest))
				cr_assert_eq(rxd_icrc_compute(ip, hlen + rest),
					     rxd_test_icrc_ref(ip, hlen + rest),
					     "IPv%u, %u bytes after the BTH, "
					     "align %u", v, rest, align);
		}
	}
}

/* ConnectX-4 Lx CNP, published in scapy's test suite (roce.uts). */
static const uint8_t cx4lx_cnp[74] = {
	0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe,
	0x90, 0x64, 0x3b, 0x32, 0x08, 0x00, 0x45, 0xc2,
	0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11,
	0x91, 0x61, 0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00,
	0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28,
	0x00, 0x00, 0x81, 0x00, 0xff, 0xff, 0x40, 0x00,
	0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xfd,
	0x00, 0x2a,
};

#define CX4_IP_OFF 14
#define CX4_ICRC_LEN (sizeof(cx4lx_cnp) - CX4_IP_OFF - RXD_ICRC_LEN)

Test(icrc, connectx4_lx_cnp)
{
	const uint8_t *ip = cx4lx_cnp + CX4_IP_OFF;
	uint32_t wire = rxd_test_get_le32(ip + CX4_ICRC_LEN);
	struct rxd_pkt pkt;

	cr_assert_eq(wire, 0x2a00fd82u);
	cr_assert_eq(rxd_icrc_compute(ip, CX4_ICRC_LEN), wire,
		     "computed %08x", rxd_icrc_compute(ip, CX4_ICRC_LEN));
	cr_assert_eq(rxd_test_icrc_ref(ip, CX4_ICRC_LEN), wire);
	cr_assert_eq(rxd_wire_parse(cx4lx_cnp, sizeof(cx4lx_cnp), &pkt, 0),
		     RXD_WIRE_OK);
	cr_assert_eq(pkt.icrc, wire);
}

/* begin + update over pieces + end equals compute, for any split. */
Test(icrc, incremental_api)
{
	static uint8_t frame[RXD_TEST_FRAME_MAX], payload[4096];
	static const uint8_t ops[] = {
		RXD_OP_RC_SEND_ONLY, RXD_OP_RC_WRITE_FIRST,
		RXD_OP_RC_CMP_SWAP, RXD_OP_UD_SEND_ONLY_IMM, RXD_OP_CNP,
	};
	struct rxd_pkt pkt;
	unsigned int i, v;

	fill(payload, sizeof(payload), 3);
	for (i = 0; i < sizeof(ops); i++) {
		for (v = 4; v <= 6; v += 2) {
			uint32_t len = rxd_test_payload_typical(ops[i]);
			uint32_t hdr, split, s, icrc_len;
			const uint8_t *ip;

			rxd_test_pkt_make(&pkt, ops[i], (uint8_t)v, 0, len);
			cr_assert_gt(rxd_wire_build(&pkt, payload, frame,
						    sizeof(frame)), 0);
			ip = frame + pkt.l3_off;
			icrc_len = pkt.frame_len - pkt.l3_off - RXD_ICRC_LEN;
			hdr = pkt.bth_off + RXD_BTH_LEN - pkt.l3_off;
			cr_assert_eq(rxd_icrc_compute(ip, icrc_len), pkt.icrc);
			for (split = hdr; split <= icrc_len; split += 13) {
				s = rxd_icrc_begin(ip);
				s = rxd_crc32_update(s, ip + hdr, split - hdr);
				s = rxd_crc32_update(s, ip + split,
						     icrc_len - split);
				cr_assert_eq(rxd_icrc_end(s), pkt.icrc,
					     "0x%02x v%u split %u", ops[i], v,
					     split);
			}
		}
	}
}

/*
 * Frames built with their payload copied in (rxd_icrc_copy: one pass)
 * carry the reference ICRC and the payload, rxd_icrc_copy called alone
 * copies the payload in and gives that ICRC, and rxd_icrc_place copies it
 * out of the frame and gives that ICRC, with each implementation:
 * opcodes without and with extension headers (RETH, AtomicETH, DETH and
 * ImmDt), IPv4 and IPv6, payload lengths 0..300 and up to 4096.
 */
ParameterizedTestParameters(icrc, built_copying_matches_reference)
{
	return cr_make_param_array(enum rxd_crc32_impl, impls, N_IMPLS);
}

ParameterizedTest(enum rxd_crc32_impl *impl, icrc,
		  built_copying_matches_reference)
{
	static uint8_t frame[RXD_TEST_FRAME_MAX], payload[4096];
	static uint8_t placed[4096];
	static const uint8_t ops[] = {
		RXD_OP_RC_SEND_MIDDLE, RXD_OP_RC_WRITE_FIRST,
		RXD_OP_RC_SEND_ONLY, RXD_OP_UD_SEND_ONLY_IMM,
	};
	struct rxd_pkt pkt;
	uint32_t i, v, len, icrc_len;
	const uint8_t *ip;

	use_impl(*impl);
	fill(payload, sizeof(payload), 13);
	for (i = 0; i < sizeof(ops); i++) {
		for (v = 4; v <= 6; v += 2) {
			for (len = 0; len <= sizeof(payload);
			     len = (uint32_t)next_len(len)) {
				rxd_test_pkt_make(&pkt, ops[i], (uint8_t)v, 0,
						  len);
				cr_assert_gt(rxd_wire_build(&pkt, payload,
							    frame,
							    sizeof(frame)), 0);
				ip = frame + pkt.l3_off;
				icrc_len = pkt.frame_len - pkt.l3_off -
					RXD_ICRC_LEN;
				cr_assert_eq(pkt.icrc,
					     rxd_test_icrc_ref(ip, icrc_len),
					     "op 0x%02x IPv%u payload %u",
					     ops[i], v, len);
				cr_assert_eq(memcmp(frame + pkt.payload_off,
						    payload, len), 0);
				/* any length, as the builder's threshold
				 * sends short payloads another way */
				memset(frame + pkt.payload_off, 0, len);
				cr_assert_eq(rxd_icrc_copy(frame + pkt.l3_off,
							   pkt.payload_off -
							   pkt.l3_off, payload,
							   len, pkt.padcnt),
					     pkt.icrc, "rxd_icrc_copy, payload "
					     "%u", len);
				cr_assert_eq(memcmp(frame + pkt.payload_off,
						    payload, len), 0);
				/* and out of the frame, as a receiver does */
				memset(placed, 0, len);
				cr_assert_eq(rxd_icrc_place(frame + pkt.l3_off,
							    pkt.payload_off -
							    pkt.l3_off, len,
							    pkt.padcnt, placed),
					     pkt.icrc, "rxd_icrc_place, payload "
					     "%u", len);
				cr_assert_eq(memcmp(placed, payload, len), 0);
			}
		}
	}
}

/*
 * Flip each bit pattern of each IP/UDP/BTH byte: the ICRC changes unless
 * the byte is a variant field (IPv4 TOS, TTL, checksum; IPv6 traffic
 * class, flow label, hop limit; UDP checksum; BTH byte 4).
 */
static bool
is_variant(uint8_t ip_ver, uint32_t off, uint8_t mask)
{
	uint32_t hlen = ip_ver == 4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN;

	if (off == hlen + 6 || off == hlen + 7 ||
	    off == hlen + RXD_UDP_HLEN + 4)
		return true;
	if (ip_ver == 4)
		return off == 1 || off == 8 || off == 10 || off == 11;
	if (off == 0)
		return (mask & 0xf0) == 0; /* low nibble: traffic class */
	return off == 1 || off == 2 || off == 3 || off == 7;
}

static void
check_masks(uint8_t ip_ver)
{
	static const uint8_t masks[] = { 0x01, 0x08 };
	static uint8_t frame[RXD_TEST_FRAME_MAX];
	uint8_t payload[64];
	struct rxd_pkt pkt;
	uint32_t off, m, icrc_len, hlen, variant = 0;
	uint8_t *ip;

	fill(payload, sizeof(payload), 5);
	rxd_test_pkt_make(&pkt, RXD_OP_UD_SEND_ONLY, ip_ver, 0,
			  sizeof(payload));
	cr_assert_gt(rxd_wire_build(&pkt, payload, frame, sizeof(frame)), 0);
	ip = frame + pkt.l3_off;
	icrc_len = pkt.frame_len - pkt.l3_off - RXD_ICRC_LEN;
	hlen = pkt.bth_off + RXD_BTH_LEN - pkt.l3_off;
	for (off = 0; off < hlen; off++) {
		for (m = 0; m < sizeof(masks); m++) {
			bool same;

			ip[off] ^= masks[m];
			same = rxd_icrc_compute(ip, icrc_len) == pkt.icrc;
			cr_assert_eq(rxd_test_icrc_ref(ip, icrc_len) ==
				     pkt.icrc, same, "reference disagrees at %u",
				     off);
			ip[off] ^= masks[m];
			cr_assert_eq(same, is_variant(ip_ver, off, masks[m]),
				     "IPv%u byte %u ^ %02x: ICRC %s", ip_ver,
				     off, masks[m], same ? "kept" : "changed");
			variant += same;
		}
	}
	/* v4: 7 bytes x 2 masks; v6: 7 bytes x 2 + byte 0 low nibble x 2 */
	cr_assert_eq(variant, ip_ver == 4 ? 14u : 16u);
}

Test(icrc, masks_exactly_the_variant_fields_ipv4)
{
	check_masks(4);
}

Test(icrc, masks_exactly_the_variant_fields_ipv6)
{
	check_masks(6);
}
