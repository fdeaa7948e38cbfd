/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RoCEv2 invariant CRC (ICRC).
 *
 * CRC-32 with the Ethernet polynomial (reflected 0xEDB88320) over 8 bytes of
 * 0xFF, the IP header, the UDP header and the BTH with their variant fields
 * replaced by ones, then the rest of the packet up to the ICRC.  The CRC is
 * incremental so that a frame gathered from several buffers (headers in one
 * mbuf, payload in registered memory) is summed without copying.
 */
#ifndef RXD_ICRC_H
#define RXD_ICRC_H

#include <stddef.h>
#include <stdint.h>

/** Continue a raw (non-inverted) CRC-32 state over len bytes. */
uint32_t rxd_crc32_update(uint32_t state, const void *buf, size_t len);

/** The implementations behind rxd_crc32_update(); same results. */
enum rxd_crc32_impl {
	RXD_CRC32_TABLE = 0, /**< slicing-by-8 tables, any CPU */
	RXD_CRC32_CLMUL,     /**< PCLMULQDQ folding (x86), 64 bytes and up */
	RXD_CRC32_VCLMUL,    /**< + AVX-512 VPCLMULQDQ, 256 bytes and up */
	RXD_CRC32_VCLMUL256, /**< AVX2 + 256-bit VPCLMULQDQ, 256 bytes and up */
	RXD_CRC32_N_IMPLS
};

/** The implementation in use (the fastest the CPU has, at start-up). */
enum rxd_crc32_impl rxd_crc32_get_impl(void);

/** The implementation's name ("VPCLMULQDQ-256"), for reports. */
const char *rxd_crc32_impl_name(enum rxd_crc32_impl impl);

/**
 * Force an implementation (tests and benchmarks; not while other threads
 * compute CRCs).  @return 0, or -1 if this CPU cannot run it.
 */
int rxd_crc32_set_impl(enum rxd_crc32_impl impl);

/**
 * Start an ICRC: the state after the 8 0xFF bytes and the masked IP, UDP and
 * BTH headers.  ip points at the IP header (version 4 with a 20-byte header,
 * or 6); the UDP header and BTH follow it contiguously.
 */
uint32_t rxd_icrc_begin(const uint8_t *ip);

/** Finish an ICRC state into the value stored on the wire (LSB first). */
static inline uint32_t
rxd_icrc_end(uint32_t state)
{
	return ~state;
}

/**
 * ICRC of a contiguous packet: ip points at the IP header, len counts the
 * bytes from the IP header up to (not including) the ICRC.
 */
uint32_t rxd_icrc_compute(const uint8_t *ip, uint32_t len);

/**
 * ICRC of a frame being built, its payload copied in on the way (one pass
 * over it): ip points at the IP header; the hdr_len bytes from there (IP,
 * UDP, BTH, extension headers) are in place; len bytes from src are copied
 * to ip + hdr_len; pad zero bytes already follow them.
 * @return the ICRC, as rxd_icrc_compute() gives for the finished frame.
 */
uint32_t rxd_icrc_copy(uint8_t *ip, uint32_t hdr_len, const void *src,
		       uint32_t len, uint32_t pad);

/**
 * ICRC of a received frame, its payload copied out on the way (one pass
 * over it): ip points at the IP header, hdr_len bytes of headers are
 * followed by len payload bytes, copied to dst, and pad bytes.
 * @return the ICRC, as rxd_icrc_compute() gives for the frame.
 */
uint32_t rxd_icrc_place(const uint8_t *ip, uint32_t hdr_len, uint32_t len,
			uint32_t pad, void *dst);

#endif /* RXD_ICRC_H */
