/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICRC: the RoCEv2 masking of variant fields and the choice of CRC-32
 * implementation.  Four implementations with the same raw-state
 * interface, chosen at start-up from the CPU features rxd_cpu_has() allows
 * (CPUID less RXD_CPU_FEATURES_OFF), one file each: slicing-by-8 tables
 * (rxd_icrc_table.c: any CPU; also short buffers and tails), PCLMULQDQ
 * folding of 4 x 16 bytes (rxd_icrc_clmul.c: x86, buffers of 64 bytes and
 * more), VPCLMULQDQ folding of 8 x 32 bytes (rxd_icrc_vpclmul256.c: AVX2
 * without AVX-512, 256 bytes and more) and of 4 x 64 bytes
 * (rxd_icrc_vpclmul512.c: AVX-512, 256 bytes and more).  With CLMUL, an
 * ICRC is one fold chain over the masked headers and the payload, ended
 * by a Barrett reduction; a frame being built has its payload copied in
 * by that chain (rxd_icrc_copy).
 * doc/architecture.md ("ICRC") records why this is used instead of
 * rte_net_crc and how fast each is.
 */
#include <stdbool.h>
#include <string.h>

#include "rxd_copy.h"
#include "rxd_cpu.h"
#include "rxd_icrc_impl.h"

#define CLMUL_MIN_LEN 64
#define ICRC_EXT_MAX 32    /* extension headers: AtomicETH (28) and less */
/* masked_prefix() writes whole 8-byte words: 68 bytes take 72 */
#define MASKED_BUF ((ICRC_LRH_LEN + ICRC_HDR_MAX + 7) & ~7u)

enum rxd_crc32_impl rxd_crc32_in_use = RXD_CRC32_TABLE;

/*
 * The ICRC's masks, the one place that knows the variant fields: over
 * the bytes of a frame counted from 8 bytes before its IP header, ones
 * for the 8 bytes standing in for the LRH and over each variant field,
 * zero elsewhere.  The ICRC is computed over frame | mask.  A received
 * frame's chain takes the first FRAME_BLOCKS_V4 bytes (the 48 masked) or
 * FRAME_BLOCKS_V6 (the 68 masked and 12 payload bytes that top them up to
 * 5 blocks of 16) through the mask; a frame being built takes its headers
 * and extension headers, topped up to whole blocks.
 */
#define FRAME_BLOCKS_V4 48
#define FRAME_BLOCKS_V6 80
/* up to the extension headers' end, in whole blocks: zeros after 48/68 */
#define FRAME_MASK_LEN ((ICRC_LRH_LEN + ICRC_HDR_MAX + ICRC_EXT_MAX + 15) & \
			~15u)

static const uint8_t frame_mask_v4[FRAME_MASK_LEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	[8 + 1] = 0xff,                         /* TOS */
	[8 + 8] = 0xff,                         /* TTL */
	[8 + 10] = 0xff, [8 + 11] = 0xff,       /* header checksum */
	[8 + 26] = 0xff, [8 + 27] = 0xff,       /* UDP checksum */
	[8 + 32] = 0xff,                        /* BTH: FECN, BECN, resv6 */
};

static const uint8_t frame_mask_v6[FRAME_MASK_LEN] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	[8 + 0] = 0x0f,                         /* traffic class, flow label */
	[8 + 1] = 0xff, [8 + 2] = 0xff, [8 + 3] = 0xff,
	[8 + 7] = 0xff,                         /* hop limit */
	[8 + 46] = 0xff, [8 + 47] = 0xff,       /* UDP checksum */
	[8 + 52] = 0xff,                        /* BTH: FECN, BECN, resv6 */
};

static bool
cpu_has(enum rxd_crc32_impl impl)
{
#ifdef RXD_HAVE_CLMUL
	bool clmul = rxd_cpu_has(RXD_CPU_PCLMUL) && rxd_cpu_has(RXD_CPU_SSE41);
	bool vclmul = clmul && rxd_cpu_has(RXD_CPU_VPCLMUL);

	switch (impl) {
	case RXD_CRC32_TABLE:
		return true;
	case RXD_CRC32_CLMUL:
		return clmul;
	case RXD_CRC32_VCLMUL:
		return vclmul && rxd_cpu_has(RXD_CPU_AVX512F);
	case RXD_CRC32_VCLMUL256:
		return vclmul && rxd_cpu_has(RXD_CPU_AVX2);
	case RXD_CRC32_N_IMPLS:
		break;
	}
	return false;
#else
	return impl == RXD_CRC32_TABLE;
#endif
}

uint32_t
rxd_crc32_update(uint32_t state, const void *buf, size_t len)
{
#ifdef RXD_HAVE_CLMUL
	if (rxd_crc32_in_use != RXD_CRC32_TABLE && len >= CLMUL_MIN_LEN)
		return rxd_crc32_clmul_update(state, buf, len);
#endif
	return rxd_crc32_table_update(state, buf, len);
}

enum rxd_crc32_impl
rxd_crc32_get_impl(void)
{
	return rxd_crc32_in_use;
}

const char *
rxd_crc32_impl_name(enum rxd_crc32_impl impl)
{
	static const char *const names[RXD_CRC32_N_IMPLS] = {
		[RXD_CRC32_TABLE] = "table (slicing-by-8)",
		[RXD_CRC32_CLMUL] = "PCLMULQDQ 4x16",
		[RXD_CRC32_VCLMUL] = "VPCLMULQDQ-512 4x64 (AVX-512)",
		[RXD_CRC32_VCLMUL256] = "VPCLMULQDQ-256 8x32 (AVX2)",
	};

	return (unsigned int)impl < RXD_CRC32_N_IMPLS ? names[impl] : "?";
}

int
rxd_crc32_set_impl(enum rxd_crc32_impl impl)
{
	if ((unsigned int)impl >= RXD_CRC32_N_IMPLS)
		return -1;
	if (!cpu_has(impl))
		return -1;
	rxd_crc32_in_use = impl;
	return 0;
}

/* The tables and constants, then the widest implementation the CPU has. */
static void __attribute__((constructor))
crc_init(void)
{
	static const enum rxd_crc32_impl widest_first[] = {
		RXD_CRC32_VCLMUL, RXD_CRC32_VCLMUL256, RXD_CRC32_CLMUL,
	};
	unsigned int i;

	rxd_crc32_table_build();
#ifdef RXD_HAVE_CLMUL
	rxd_crc32_clmul_init();
#endif
	for (i = 0; i < sizeof(widest_first) / sizeof(widest_first[0]); i++)
		if (rxd_crc32_set_impl(widest_first[i]) == 0)
			break;
}

/*
 * The ICRC's prefix in pre: the LRH's ones, then the IP, UDP and BTH
 * headers with their variant fields set to ones (the masks above, ORed in
 * a word at a time).  pre holds MASKED_BUF bytes.
 * @return the prefix's length (48 bytes for IPv4, 68 for IPv6).
 */
static uint32_t
masked_prefix(const uint8_t *ip, uint8_t *pre)
{
	bool v4 = (ip[0] >> 4) == 4;
	const uint8_t *mask = v4 ? frame_mask_v4 : frame_mask_v6;
	uint32_t len = ICRC_LRH_LEN + (v4 ? RXD_IPV4_HLEN : RXD_IPV6_HLEN) +
		RXD_UDP_HLEN + RXD_BTH_LEN;
	uint64_t w, m;
	uint32_t i;

	memset(pre, 0, ICRC_LRH_LEN);
	memcpy(pre + ICRC_LRH_LEN, ip, len - ICRC_LRH_LEN);
	for (i = 0; i < len; i += 8) {
		memcpy(&w, pre + i, sizeof(w));
		memcpy(&m, mask + i, sizeof(m));
		w |= m;
		memcpy(pre + i, &w, sizeof(w));
	}
	return len;
}

uint32_t
rxd_icrc_begin(const uint8_t *ip)
{
	uint8_t pre[MASKED_BUF];
	uint32_t n = masked_prefix(ip, pre);

#ifdef RXD_HAVE_CLMUL
	if (rxd_crc32_in_use != RXD_CRC32_TABLE)
		return rxd_icrc_clmul(pre, n, NULL, 0);
#endif
	return rxd_crc32_table_update(0xffffffffu, pre, n);
}

/*
 * ICRC of the frame at ip whose len payload bytes after its hdr_len bytes
 * of headers move from src to dst as they are folded (one of the two is
 * the frame's payload); pad bytes follow the payload in the frame.
 */
static uint32_t
icrc_moving(const uint8_t *ip, uint32_t hdr_len, uint8_t *dst,
	    const uint8_t *src, uint32_t len, uint32_t pad)
{
#ifdef RXD_HAVE_CLMUL
	uint32_t n = (ICRC_LRH_LEN + hdr_len + 15) & ~15u;
	uint32_t top = n - ICRC_LRH_LEN - hdr_len;
	uint32_t s;

	if (rxd_crc32_in_use != RXD_CRC32_TABLE && n <= FRAME_MASK_LEN &&
	    top <= len) {
		memcpy(dst, src, top);
		s = rxd_icrc_clmul_copy(ip, (ip[0] >> 4) == 4 ? frame_mask_v4 :
					frame_mask_v6, n, dst + top, src + top,
					len - top);
		return rxd_icrc_end(rxd_crc32_table_update(s,
			ip + hdr_len + len, pad));
	}
#endif
	rxd_copy(dst, src, len);
	return rxd_icrc_compute(ip, hdr_len + len + pad);
}

uint32_t
rxd_icrc_copy(uint8_t *ip, uint32_t hdr_len, const void *src, uint32_t len,
	      uint32_t pad)
{
	return icrc_moving(ip, hdr_len, ip + hdr_len, src, len, pad);
}

uint32_t
rxd_icrc_place(const uint8_t *ip, uint32_t hdr_len, uint32_t len,
	       uint32_t pad, void *dst)
{
	return icrc_moving(ip, hdr_len, dst, ip + hdr_len, len, pad);
}

uint32_t
rxd_icrc_compute(const uint8_t *ip, uint32_t len)
{
	uint8_t pre[MASKED_BUF];
	uint32_t n, h;

#ifdef RXD_HAVE_CLMUL
	bool v4 = (ip[0] >> 4) == 4;

	if (rxd_crc32_in_use != RXD_CRC32_TABLE &&
	    (v4 || len >= FRAME_BLOCKS_V6 - ICRC_LRH_LEN))
		return rxd_icrc_end(v4 ?
			rxd_icrc_clmul_frame(ip, len, frame_mask_v4,
					     FRAME_BLOCKS_V4) :
			rxd_icrc_clmul_frame(ip, len, frame_mask_v6,
					     FRAME_BLOCKS_V6));
#endif
	n = masked_prefix(ip, pre);
	h = n - ICRC_LRH_LEN;
#ifdef RXD_HAVE_CLMUL
	if (rxd_crc32_in_use != RXD_CRC32_TABLE)
		return rxd_icrc_end(rxd_icrc_clmul(pre, n, ip + h, len - h));
#endif
	return rxd_icrc_end(rxd_crc32_table_update(
		rxd_crc32_table_update(0xffffffffu, pre, n), ip + h, len - h));
}
