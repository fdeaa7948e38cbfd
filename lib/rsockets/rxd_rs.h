/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsockets internals shared by the rxd_rs_*.c files: one stream rsocket
 * (its CM id and channel, RC QP, buffers, the sender's and receiver's
 * credit state), the table from rsocket numbers to rsockets, and the
 * functions the API files call.  Every rsocket function other than the
 * table's runs with the rsocket's lock held unless it says otherwise.
 */
#ifndef RXD_RS_H
#define RXD_RS_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rdma/rdma_cma.h>

#include "rxd_rs_wire.h"

#define RXD_RS_QP_MIN 16
#define RXD_RS_QP_MAX 0xFFFE
#define RXD_RS_CTRL_SLOTS 4          /**< control messages in flight */
#define RXD_RS_SNDLOWAT 2048
#define RXD_RS_XFER_START 2048       /**< first write of an rsend */
#define RXD_RS_XFER_MAX 65536        /**< largest write */
#define RXD_RS_PROBE_NS 1000000000ull /**< idle time before a probe write */
#define RXD_RS_CM_CHECK_NS 1000000ull /**< CM events of a connected rsocket */

/** Where an rsocket is in its life. */
enum rxd_rs_phase {
	RXD_RS_IDLE,
	RXD_RS_BOUND,
	RXD_RS_LISTENING,
	RXD_RS_RESOLVING,            /**< active: address and route */
	RXD_RS_CONNECTING,           /**< active: REQ sent */
	RXD_RS_ACCEPTING,            /**< passive: REP sent */
	RXD_RS_CONNECTED,            /**< readable / writable say what's left */
	RXD_RS_CONNECT_ERROR,
	RXD_RS_CLOSED,               /**< disconnected, or failed (err) */
};

/** Tunables an rsocket takes from rsetsockopt before it connects. */
struct rxd_rs_tun {
	uint32_t sbuf_size;
	uint32_t rbuf_size;
	uint16_t sq_size;
	uint16_t rq_size;
	uint16_t sq_inline;
	uint16_t iomap_size;         /**< target iomap slots we offer */
};

/** An iomap of ours (riomap), sent to the peer when writable. */
struct rxd_rs_iomr {
	struct ibv_mr *mr;
	uint64_t offset;
	int slot;                    /**< peer's slot; -1: local only */
	bool sent;
	struct rxd_rs_iomr *next;
};

/** Options kept for rgetsockopt. */
struct rxd_rs_opts {
	int reuseaddr, keepalive, nodelay, oobinline, keepidle, v6only;
	struct linger linger;
};

struct rxd_rs {
	int index;                   /**< the rsocket number: channel's fd */
	pthread_mutex_t lock;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	enum rxd_rs_phase phase;
	bool readable, writable;
	int err;                     /**< SO_ERROR, and why a socket closed */
	int fd_flags;                /**< O_NONBLOCK */
	struct rxd_rs_tun tun;
	struct rxd_rs_opts opts;
	/* endpoint */
	struct ibv_cq *cq;
	struct ibv_mr *smr, *rmr, *tmr;
	uint8_t *sbuf, *rbuf;
	uint8_t *target;             /**< SGL slots, then iomap slots */
	bool swap;                   /**< peer's byte order differs */
	struct rxd_rs_sge remote_sgl;   /**< peer's target SGL */
	struct rxd_rs_sge remote_iomap; /**< peer's iomap slots */
	unsigned int remote_sge;     /**< next peer SGL slot we write */
	unsigned int target_sge;     /**< our SGL slot we write data by */
	/* sender */
	uint16_t sseq_no, sseq_comp;
	int sqe_avail;
	uint32_t sbuf_avail;
	uint32_t sbuf_head;          /**< offset of the next copy in sbuf */
	unsigned int ctrl_seqno, ctrl_max_seqno;
	/* receiver */
	uint16_t rseq_no, rseq_comp;
	uint32_t rbuf_avail, rbuf_free_offset, rbuf_offset;
	uint32_t *rmsg;              /**< lengths of data messages, a ring */
	unsigned int rmsg_head, rmsg_tail;
	/* liveness */
	uint64_t cm_checked_ns;      /**< CM events last taken (connected) */
	uint64_t last_activity_ns;
	bool probe_out;
	/* iomaps */
	struct rxd_rs_iomr *iomaps;
	/* listener: accepted rsockets not yet taken by raccept */
	struct rxd_rs *accept_head, *accept_tail, *accept_next;
};

/* rxd_rs_table.c (no rsocket lock needed) */
/** A new rsocket with a channel and a TCP port-space id. NULL + errno. */
struct rxd_rs *rxd_rs_new(const struct rxd_rs_tun *tun);
/** Enter an rsocket in the table under its index. 0 or errno. */
int rxd_rs_insert(struct rxd_rs *rs);
/** The rsocket of number @p index, or NULL. */
struct rxd_rs *rxd_rs_lookup(int index);
/** Remove from the table and free everything the rsocket holds. */
void rxd_rs_free(struct rxd_rs *rs);
/** The default tunables (rsockets' defaults). */
void rxd_rs_tun_default(struct rxd_rs_tun *tun);
/** Nanoseconds of a monotonic clock. */
uint64_t rxd_rs_now_ns(void);

/* rxd_rs_ep.c */
/** Create CQ, QP, buffers and post receives on rs->id. 0 or errno. */
int rxd_rs_ep_create(struct rxd_rs *rs);
/** Our connection data for the REQ or REP. */
void rxd_rs_ep_conn_data(const struct rxd_rs *rs, uint8_t *out);
/** Take the peer's connection data. 0 or errno. */
int rxd_rs_ep_peer_data(struct rxd_rs *rs, const void *pdata, uint8_t len);
/** Destroy the endpoint and the id. */
void rxd_rs_ep_destroy(struct rxd_rs *rs);

/* rxd_rs_conn.c */
/** Drive CM events of a connecting or connected rsocket. */
void rxd_rs_conn_progress(struct rxd_rs *rs);
/** Drive a listener's connection requests into its accept queue. */
void rxd_rs_listen_progress(struct rxd_rs *rs);

/* rxd_rs_cq.c */
/** Poll completions, update credits, probe an idle peer, drive the CM. */
void rxd_rs_progress(struct rxd_rs *rs);
/** Apply every completion now in the CQ (and repost the receives). */
void rxd_rs_poll_cq(struct rxd_rs *rs);
/** Post a 0-byte message (credits, control) with immediate data, counted
 * as a control message of @p kind. 0 or errno. */
int rxd_rs_post_msg(struct rxd_rs *rs, uint32_t imm, unsigned int kind);
/**
 * Post an RDMA write of @p nsge entries; with @p imm, WRITE WITH IMM.
 * @p kind and @p bytes are accounted when it completes. 0 or errno.
 */
int rxd_rs_post_write(struct rxd_rs *rs, struct ibv_sge *sge, int nsge,
		      bool inl, uint64_t addr, uint32_t rkey, bool with_imm,
		      uint32_t imm, unsigned int kind, uint32_t bytes);
/** Send kinds, for completion accounting. */
enum { RXD_RS_WR_DATA, RXD_RS_WR_DIRECT, RXD_RS_WR_IOMAP, RXD_RS_WR_CTRL,
       RXD_RS_WR_DISCONNECT, RXD_RS_WR_PROBE };
/**
 * Release the lock, wait a little (back-off grows with @p round), retake
 * it.  The caller re-checks its condition.
 */
void rxd_rs_pause(struct rxd_rs *rs, unsigned int round);
/** Control message slot free. */
bool rxd_rs_ctrl_avail(const struct rxd_rs *rs);
/** Data may be written now. */
bool rxd_rs_can_send(const struct rxd_rs *rs);
/** All posted sends completed. */
bool rxd_rs_sends_done(const struct rxd_rs *rs);
/** Received data is queued. */
bool rxd_rs_have_data(const struct rxd_rs *rs);
/** Move to CLOSED with @p err (0: orderly). */
void rxd_rs_close_with(struct rxd_rs *rs, int err);

/* rxd_rs_send.c */
/** Where an RDMA write goes, and how it is announced and accounted. */
struct rxd_rs_dest {
	uint64_t addr;
	uint32_t rkey;
	bool with_imm;
	uint32_t imm;
	unsigned int kind;
};
/**
 * Write @p len bytes of @p iov (from *@p off, advanced) to @p d: inline
 * when small and contiguous, else through the send ring.  Takes a send
 * queue entry and @p len bytes of the ring.  0 or errno.
 */
int rxd_rs_write_iov(struct rxd_rs *rs, const struct iovec **iov,
		     size_t *off, uint32_t len, const struct rxd_rs_dest *d);
/** Wait (or not) until data may be written. 0, or -1 and errno. */
int rxd_rs_wait_send(struct rxd_rs *rs, bool nonblock);
/** Start or continue a nonblocking connect; 0 when connected. */
int rxd_rs_connect_step(struct rxd_rs *rs);

/* rxd_rs_iomap.c */
/** Send iomaps riomap queued. 0 or -1 and errno. */
int rxd_rs_iomap_flush(struct rxd_rs *rs, bool nonblock);
/** Free all iomaps. */
void rxd_rs_iomap_free(struct rxd_rs *rs);

/** -1 with errno = @p e. */
static inline int
rxd_rs_fail(int e)
{
	errno = e;
	return -1;
}

#endif /* RXD_RS_H */
