/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The out-of-band exchange between the two sides, over TCP (port 18515)
 * or a socketpair (--loopback), in perftest's format: a version string,
 * page and cache-line sizes and the MTU, then one text message per QP
 * ("LID:OUT_READS:QPN:PSN:RKEY:VADDR:GID...:SRQN:"), the same message again
 * as a barrier, the BW reports as big-endian numbers and a final "done".
 * In each exchange the client writes first and the server reads first.
 */
#ifndef PERF_XCHG_H
#define PERF_XCHG_H

#include <stdbool.h>
#include <stdint.h>

#include "perf_result.h"

/** One QP's connection data, as perftest exchanges it. */
struct perf_dest {
	uint32_t lid;
	uint32_t out_reads;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t vaddr;
	uint8_t gid[16];
	uint32_t srqn;
};

/** Listen on TCP @p port of every address. @return the socket or -1. */
int perf_xchg_listen(uint16_t port);

/** Accept one client on a listening socket. @return the socket or -1. */
int perf_xchg_accept(int lfd);

/**
 * Connect to @p host's TCP @p port, retrying for up to @p wait_ms while
 * the server is not listening yet. @return the socket or -1.
 */
int perf_xchg_connect(const char *host, uint16_t port, unsigned int wait_ms);

/**
 * Versions, page and cache-line sizes and MTUs.  @p mtu holds the local
 * path MTU (enum ibv_mtu) and returns the smaller of the two.
 */
int perf_xchg_preamble(int fd, bool client, unsigned int *mtu);

/** Send @p mine and receive the peer's message for the same QP. */
int perf_xchg_dest(int fd, bool client, const struct perf_dest *mine,
		   struct perf_dest *theirs);

/** Swap BW reports (size, iterations, peak, average, message rate). */
int perf_xchg_report(int fd, bool client, const struct perf_bw_result *mine,
		     struct perf_bw_result *theirs);

/** Tell the peer this side is done (the peer need not read it). */
void perf_xchg_done(int fd);

/** Wait up to @p ms for the peer to close its end. */
void perf_xchg_wait_close(int fd, unsigned int ms);

#endif /* PERF_XCHG_H */
