/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs resources of one side of a run: the device, its GID and MTU,
 * one buffer and MR cut into a region per QP, the CQs and the QPs, and
 * their way to RTS.
 */
#ifndef PERF_RES_H
#define PERF_RES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "perf_opts.h"
#include "perf_xchg.h"

struct perf_res {
	struct ibv_context *ctx;
	char dev_name[IBV_SYSFS_NAME_MAX];
	unsigned int rxd_port;      /**< N of the device rxdN */
	uint8_t ib_port;            /**< the device's port (-i) */
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	int gid_index;
	union ibv_gid gid;
	unsigned int mtu;           /**< enum ibv_mtu of the connection */
	uint32_t out_reads;         /**< READs/atomics this side accepts */
	uint32_t tx_depth, rx_depth;
	struct ibv_pd *pd;
	struct ibv_cq *send_cq, *recv_cq;
	struct ibv_qp *qp[PERF_MAX_QPS];
	unsigned int n_qps;
	uint8_t *buf;
	size_t region;              /**< bytes per QP: receive, send halves */
	struct ibv_mr *mr;
};

/**
 * Open device @p name (NULL = the first), pick the GID (-x or the first
 * IPv4 one) and the MTU (-m or the port's active one).
 */
int perf_res_open(struct perf_res *r, const char *name,
		  const struct perf_opts *o);

/** PD, buffer and MR for messages up to @p max_size, CQs, QPs in INIT. */
int perf_res_create(struct perf_res *r, const struct perf_opts *o,
		    uint64_t max_size);

/** QP @p i's message for the peer, with a random PSN. */
void perf_res_dest(const struct perf_res *r, const struct perf_opts *o,
		   unsigned int i, struct perf_dest *d);

/** Take every QP to RTS towards the peer's QPs. */
int perf_res_connect(struct perf_res *r, const struct perf_opts *o,
		     const struct perf_dest *local,
		     const struct perf_dest *remote);

/** Where QP @p i's peer writes (and receives land). */
uint8_t *perf_res_recv_area(const struct perf_res *r, unsigned int i);

/** Where QP @p i's outgoing data and READ/atomic results live. */
uint8_t *perf_res_send_area(const struct perf_res *r, unsigned int i);

/**
 * Fill @p wr and @p sge for the test's operation on QP @p q at @p size
 * bytes (from/to the send area, to/from the peer's area, inline when -I
 * allows); the caller sets wr_id and IBV_SEND_SIGNALED.
 */
void perf_res_fill_wr(const struct perf_res *r, const struct perf_opts *o,
		      unsigned int q, const struct perf_dest *rem,
		      uint64_t size, struct ibv_send_wr *wr,
		      struct ibv_sge *sge);

/** Post @p n receives of @p len bytes on QP @p i (wr_id = i). */
int perf_res_post_recv(struct perf_res *r, unsigned int i, uint32_t len,
		       uint64_t n);

/** True for a successful completion; else prints what failed. */
bool perf_res_wc_ok(const struct ibv_wc *wc);

/** Destroy everything perf_res_open()/create() made. */
void perf_res_close(struct perf_res *r);

#endif /* PERF_RES_H */
