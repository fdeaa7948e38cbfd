/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connecting an RC QP of a test program to its peer as an application
 * does: INIT with remote access, RTR towards the peer's GID and QPN, RTS.
 */
#ifndef RXD_TEST_QP_H
#define RXD_TEST_QP_H

#include <stdint.h>

#include <infiniband/verbs.h>

/** The peer and the settings of one RC connection. */
struct rxd_test_rc_path {
	uint8_t dgid[16];          /**< the peer's GID (at index 1 there) */
	uint32_t dest_qpn;
	uint32_t rq_psn, sq_psn;
	enum ibv_mtu path_mtu;
	uint8_t rd_atomic;         /**< max_rd_atomic and max_dest_rd_atomic */
	uint8_t timeout, retry_cnt, rnr_retry;
};

/** The IPv4-mapped GID of a.b.c.d. */
void rxd_test_gid_v4(uint8_t gid[16], uint8_t a, uint8_t b, uint8_t c,
		     uint8_t d);

/**
 * Move a QP in RESET to RTS along @p p, with remote write, read and atomic
 * access, source GID index 1, min_rnr_timer 1.
 * @return 0, or the failing ibv_modify_qp()'s result.
 */
int rxd_test_rc_connect(struct ibv_qp *qp, const struct rxd_test_rc_path *p);

#endif /* RXD_TEST_QP_H */
