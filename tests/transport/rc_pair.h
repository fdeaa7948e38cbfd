/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test harness: rxd on two ports joined by a net_ring pair (rxd0 10.0.0.1,
 * rxd1 10.0.0.2) and a connected RC QP on each, with registered buffers.
 */
#ifndef RC_PAIR_H
#define RC_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

struct rc_end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *buf;
	size_t len;
	struct ibv_mr *mr;
};

struct rc_pair {
	struct rc_end a, b;
	uint16_t port_a, port_b;       /* DPDK ports, for fault injection */
};

/** Options of rc_pair_start(). */
struct rc_opts {
	const char *eal_lcores;        /* "0-1" (engine lcore) or "0" */
	size_t buf_len;
	uint32_t wr;                   /* queue depths */
	int access;                    /* the QPs' access flags */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	enum ibv_mtu mtu;
};

/** Start EAL and rxd, open both devices, create and connect the QPs. */
void rc_pair_start(struct rc_pair *p, const struct rc_opts *o);

/**
 * rc_pair_start() with two engines on each port and the default steering
 * (lanes on memif and ring), over link "memif" or "ring".
 */
void rc_pair_start_2eng(struct rc_pair *p, const struct rc_opts *o,
			const char *link);

/** Create a QP pair again (after a test moved one to ERR). */
void rc_pair_connect(struct rc_pair *p, const struct rc_opts *o);

/** Create an RC QP on an end (not connected). */
struct ibv_qp *rc_create_qp(struct rc_end *e, const struct rc_opts *o);

/**
 * Take an RC or UC qp to RTS towards QPN dqpn at 10.0.0.peer_octet, from the port's
 * GID sgid_index (1 = 10.0.0.1/.2, 2 = the extra 10.0.0.9 on rxd0).
 */
void rc_connect_qp(struct ibv_qp *qp, uint32_t dqpn, uint8_t peer_octet,
		   uint8_t sgid_index, const struct rc_opts *o);

/**
 * Replace the pair's QPs: a's with one made by ibv_create_qp_ex for the
 * ibv_wr_* API with send_ops (IBV_QP_EX_WITH_*), b's with a plain one;
 * connect them.  @return a's extended QP.
 */
struct ibv_qp_ex *rc_pair_connect_ex(struct rc_pair *p,
				     const struct rc_opts *o,
				     uint64_t send_ops);

/** Stop rxd and EAL. */
void rc_pair_stop(struct rc_pair *p);

/**
 * At file scope, after <criterion/criterion.h>: `static struct rc_pair p`
 * and the Criterion suite NAME, each of whose tests starts with the pair
 * made by OPTS (a struct rc_opts) and stops it after.
 */
#define RC_PAIR_SUITE(name, opts, secs)					\
	static struct rc_pair p;					\
	static void name##_start(void) { rc_pair_start(&p, &(opts)); }	\
	static void name##_stop(void) { rc_pair_stop(&p); }		\
	TestSuite(name, .init = name##_start, .fini = name##_stop,	\
		  .timeout = (secs))

/** Poll a CQ until n completions arrived or ms passed; returns the count. */
int rc_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, unsigned int ms);

/** Post one WR with one SGE in e's buffer. */
int rc_post(struct rc_end *e, enum ibv_wr_opcode op, uint64_t wr_id,
	    size_t off, uint32_t len, uint64_t raddr, uint32_t rkey,
	    unsigned int flags);

/** Post a receive of len bytes at off. */
int rc_recv(struct rc_end *e, uint64_t wr_id, size_t off, uint32_t len);

#endif /* RC_PAIR_H */
