/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the ICRC's implementation files share (private to lib/wire): the
 * frame layout the chains count with, the slicing-by-8 table code every
 * implementation ends with, the implementation in use, and the PCLMULQDQ
 * entry points the dispatcher (rxd_icrc.c) calls.  The vector code's own
 * helpers are in rxd_icrc_clmul.h.
 */
#ifndef RXD_ICRC_IMPL_H
#define RXD_ICRC_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "rxd_icrc.h"
#include "rxd_wire.h"

/* x86 builds the PCLMULQDQ files too (lib/wire/meson.build). */
#if defined(__x86_64__) || defined(__i386__)
#define RXD_HAVE_CLMUL 1
#endif

#define ICRC_LRH_LEN 8     /* the 0xFF bytes standing in for the IB LRH */
#define ICRC_HDR_MAX (RXD_IPV6_HLEN + RXD_UDP_HLEN + RXD_BTH_LEN)
#define ICRC_PREFIX_MAX (ICRC_LRH_LEN + ICRC_HDR_MAX + 15)

/** The implementation rxd_crc32_update() and the ICRC use. */
extern enum rxd_crc32_impl rxd_crc32_in_use;

/** Fill the slicing-by-8 tables (once, at start-up). */
void rxd_crc32_table_build(void);

/** rxd_crc32_update() with the tables: any CPU, any length. */
uint32_t rxd_crc32_table_update(uint32_t state, const uint8_t *p, size_t len);

#ifdef RXD_HAVE_CLMUL
/** Compute the folding and Barrett constants (once, at start-up). */
void rxd_crc32_clmul_init(void);

/** rxd_crc32_update() by folding; len >= 64. */
uint32_t rxd_crc32_clmul_update(uint32_t state, const uint8_t *p, size_t len);

/**
 * The state after mlen masked header bytes (from the LRH's ones on) and
 * the rlen bytes at rest that follow them.
 */
uint32_t rxd_icrc_clmul(const uint8_t *masked, uint32_t mlen,
			const uint8_t *rest, uint32_t rlen);

/**
 * The state after a contiguous frame: its first n bytes (whole blocks,
 * counted from 8 bytes before ip) through mask, then the rest of len.
 */
uint32_t rxd_icrc_clmul_frame(const uint8_t *ip, uint32_t len,
			      const uint8_t *mask, uint32_t n);

/**
 * The same for a frame whose n - 8 bytes from ip are in place and whose
 * len bytes more are copied from src to dst as they are folded.
 */
uint32_t rxd_icrc_clmul_copy(const uint8_t *ip, const uint8_t *mask,
			     uint32_t n, uint8_t *dst, const uint8_t *src,
			     uint32_t len);
#endif /* RXD_HAVE_CLMUL */

#endif /* RXD_ICRC_IMPL_H */
