/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Payload copies on the data path that the ICRC fold does not make itself
 * (scattered SGEs, frames without a CLMUL fold): a vector copy chosen at
 * start-up from the CPU features rxd_cpu_has() allows, never glibc's
 * memcpy, which on some CPUs copies 64 KiB at a fifth of its 4 MiB rate.
 */
#ifndef RXD_COPY_H
#define RXD_COPY_H

#include <stddef.h>

/** The copy implementations; same results. */
enum rxd_copy_impl {
	RXD_COPY_SSE2 = 0, /**< 16-byte unaligned loads and stores (x86-64) */
	RXD_COPY_AVX2,     /**< 32-byte */
	RXD_COPY_AVX512,   /**< 64-byte (AVX-512F) */
	RXD_COPY_LIBC,     /**< memcpy (other architectures) */
	RXD_COPY_N_IMPLS
};

/** Copy len bytes from src to dst (they do not overlap). */
void rxd_copy(void *dst, const void *src, size_t len);

/** The implementation in use. */
enum rxd_copy_impl rxd_copy_get_impl(void);

/** Force an implementation.  @return 0, or -1 if the CPU cannot run it. */
int rxd_copy_set_impl(enum rxd_copy_impl impl);

/** The implementation's name ("AVX2 32-byte"), for reports. */
const char *rxd_copy_impl_name(enum rxd_copy_impl impl);

#endif /* RXD_COPY_H */
