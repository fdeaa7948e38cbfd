/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frame capture to a pcapng file (rte_pcapng): every frame a port receives
 * or sends, taken before fault injection in both directions, so the file
 * shows what the stack sent and what arrived from the wire.
 */
#ifndef RXD_CAPTURE_H
#define RXD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

struct rxd_capture;

/**
 * Open (truncate) a pcapng capture file.  Must be called after the ports
 * are configured: the file describes every DPDK port as an interface.
 *
 * @return the capture, or NULL with a message in err.
 */
struct rxd_capture *rxd_capture_open(const char *path, int socket,
				     char *err, size_t errlen);

/** Copy a burst of frames into the file; tx selects the direction flag. */
void rxd_capture_frames(struct rxd_capture *c, uint16_t port_id,
			uint16_t queue, struct rte_mbuf *const *pkts,
			uint16_t n, bool tx);

/** Frames written and frames lost (no buffer or write error). */
void rxd_capture_counts(const struct rxd_capture *c, uint64_t *written,
			uint64_t *lost);

/** Flush and close the file. */
void rxd_capture_close(struct rxd_capture *c);

#endif /* RXD_CAPTURE_H */
