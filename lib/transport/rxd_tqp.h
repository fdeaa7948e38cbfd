/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport state every QP type has (struct rxd_tqp): the QP core it
 * serves, the engine's transmit hook and timer list, the header template,
 * the requester's send window (RC, UC and UD take their WQEs through it),
 * congestion control and the counters; and what the files of
 * lib/transport share whatever the QP type.  RC's and UC's connection
 * state is struct rxd_rc (rxd_rc.h), which begins with one of these.
 */
#ifndef RXD_TQP_H
#define RXD_TQP_H

#include <stdbool.h>

#include <rte_cycles.h>

#include "rxd/rxd_flush.h"
#include "rxd_mr.h"
#include "rxd_net_hint.h"
#include "rxd_transport.h"
#include "rxd_wr_opcode.h"

#define RXD_REQ_BUDGET 64          /* packets per QP per engine pass */
#define RXD_TX_HOLD_BACK 64        /* held frames that stop new data */

/** Requester's copy of a send WQE, from post until completion. */
struct rxd_swqe {
	struct rxd_send_wqe w;
	uint32_t first_psn;
	uint32_t npkts;            /**< PSNs it takes (READ: responses) */
	uint32_t sent;             /**< packets sent in this round */
	uint32_t rcvd;             /**< READ: response packets received */
	bool done;                 /**< READ/atomic answered */
	struct rxd_mr_hold src;    /**< one SGE: its entry (serial 0: none) */
};

/** Per-QP transport state of every QP type. */
struct rxd_tqp {
	struct rxd_qp_core *qp;
	struct rxd_xmit x;
	struct rxd_timers *timers;
	struct rxd_tqp *next_timer;
	bool on_timer_list;
	struct rxd_pkt tmpl;       /**< headers common to the QP's frames */
	struct rxd_net_hint *hint; /**< RC, UC: the peer's MAC (rxd_rc.peer);
				    *   UD: NULL, each WR has its own */
	uint16_t sport;            /**< UDP source port of this QP */
	uint32_t mtu;
	/* requester: WQEs from the SQ ring until they complete; RC keeps
	 * up to win_size unanswered, UC and UD one being sent */
	struct rxd_swqe *win;
	uint32_t win_size;
	uint32_t head, cur, tail;  /**< free-running indices into win */
	uint32_t npsn;             /**< PSN of the next new packet */
	uint32_t snd_nxt;          /**< PSN after the highest one sent */
	uint32_t unsignaled;       /**< retired WQEs not yet reported */
	/* retransmission and RNR timers: only RC arms them (UC and UD
	 * have no timeout: rto stays 0) */
	uint64_t rto;              /**< retransmit timeout, TSC (0: none) */
	uint64_t deadline;         /**< retransmit timer, 0 = not armed */
	uint64_t rnr_until;        /**< RNR back-off end, 0 = none */
	bool pacer_held;           /**< stopped at an empty bucket this pass */
	bool draining;             /**< SQD: SQ_DRAINED not raised yet */
	bool last_wqe_sent;        /**< SRQ: LAST_WQE_REACHED raised */
	bool too_big;              /**< last rxd_tx_frame(): frame too big */
	/* congestion control (rxd_cc.c); an RC QP's round-trip probe,
	 * which needs ACKs, is in struct rxd_rc (rxd_rtt.c) */
	uint64_t cnp_next;         /**< TSC before which no CNP is sent */
	bool paced;                /**< a rate law runs (x.dcqcn or x.delay) */
	struct rxd_dcqcn dcqcn;    /**< x.dcqcn: the rate (reaction point) */
	struct rxd_delay delay;    /**< x.delay: the rate */
	struct rxd_pacer pacer;
	double tsc_per_us;
	struct rxd_qp_stats cnt;
};

static inline struct rxd_tqp *
rxd_tqp(const struct rxd_qp_core *qp)
{
	return qp->transport;
}

static inline struct rxd_swqe *
rxd_win(struct rxd_tqp *t, uint32_t i)
{
	return &t->win[i % t->win_size];
}

/** Whether the WQE's opcode has any of @p flags (enum rxd_wr_flag). */
static inline bool
rxd_swqe_is(const struct rxd_swqe *s, unsigned int flags)
{
	return rxd_wr_is(s->w.opcode, flags);
}

static inline uint32_t
rxd_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & RXD_PSN_MASK;
}

/** The port is backed up: new data packets wait for the next pass. */
static inline bool
rxd_tx_backed_up(const struct rxd_tqp *t)
{
	return t->x.held != NULL && *t->x.held >= RXD_TX_HOLD_BACK;
}

/**
 * The ICRC of a frame whose check the parser deferred, checked now (true
 * for a frame checked by the parser).
 */
static inline bool
rxd_icrc_ok(const struct rte_mbuf *m, const struct rxd_pkt *pkt)
{
	return !pkt->icrc_deferred ||
		rxd_wire_icrc_ok(rte_pktmbuf_mtod(m, const uint8_t *), pkt);
}

/* The QP's engine's clock of this pass (one TSC read a pass), or the TSC
 * for a QP not bound yet or an engine that has not run a pass. */
static inline uint64_t
rxd_tqp_clock(const struct rxd_tqp *t)
{
	return t->timers != NULL && t->timers->now != 0 ?
		t->timers->now : rte_rdtsc();
}

/* rxd_tx.c */
struct rte_mbuf *rxd_tx_frame(struct rxd_tqp *t, struct rxd_pkt *pkt,
			      uint32_t payload_len, uint8_t **payload);
void rxd_tx_send(struct rxd_tqp *t, struct rxd_pkt *pkt, struct rte_mbuf *m,
		 const void *src);
void rxd_tx_cnp(struct rxd_tqp *t);

/* rxd_cc.c */
void rxd_cc_bind(struct rxd_tqp *t);
void rxd_cc_reset(struct rxd_tqp *t);
void rxd_cc_ce(struct rxd_tqp *t);
void rxd_cc_cnp(struct rxd_tqp *t);
bool rxd_cc_may_send(struct rxd_tqp *t);
void rxd_cc_sent(struct rxd_tqp *t, uint32_t len);
void rxd_cc_read_asked(struct rxd_tqp *t, uint32_t len);
void rxd_cc_rtt(struct rxd_tqp *t, uint64_t now, uint64_t rtt_us);
double rxd_cc_rate(const struct rxd_tqp *t);
uint64_t rxd_cc_cuts(const struct rxd_tqp *t);

/* Whether the QP's pacer holds its next frame (a law runs, the bucket is
 * empty), noted in pacer_held: requests and READ responses alike wait. */
static inline bool
rxd_cc_held(struct rxd_tqp *t)
{
	if (!t->paced || rxd_cc_may_send(t))
		return false;
	t->pacer_held = true;
	return true;
}

/* rxd_comp.c: completing the window's WQEs, whatever the QP type */
void rxd_comp_retire(struct rxd_tqp *t);
void rxd_comp_error_at(struct rxd_tqp *t, uint32_t bad,
		       enum ibv_wc_status status);

/* rxd_ud.c */
void rxd_ud_fill(struct rxd_tqp *t, const struct rxd_send_wqe *w,
		 struct rxd_pkt *p);
void rxd_ud_rx(struct rxd_tqp *t, struct rte_mbuf *m,
	       const struct rxd_pkt *pkt);

/* rxd_sge.c */
bool rxd_sge_copy(const struct ibv_pd *pd, const struct ibv_sge *sge,
		  uint32_t num_sge, uint32_t off, uint8_t *buf, uint32_t len,
		  bool to_sge);
uint8_t *rxd_sge_span(const struct ibv_pd *pd, const struct ibv_sge *sge,
		      uint32_t num_sge, uint32_t off, uint32_t len,
		      unsigned int need);

/* rxd_tqp_mem.c: what rxd_transport_init() allocates for a QP */
struct rxd_tqp_sizes {
	size_t state;              /**< struct rxd_rc, or rxd_tqp for UD */
	uint32_t win;              /**< send window entries */
	uint32_t res;              /**< responder resources */
};
void rxd_tqp_sizes(enum ibv_qp_type type, uint32_t sq_size,
		   struct rxd_tqp_sizes *s);

/* rxd_timer.c */
void rxd_timer_arm(struct rxd_tqp *t, uint64_t deadline);
void rxd_timer_unlink(struct rxd_tqp *t);

/* rxd_tqp.c */
void rxd_tqp_check_drained(struct rxd_tqp *t);
void rxd_tqp_to_error(struct rxd_tqp *t);
void rxd_tqp_complete(struct rxd_qp_core *qp, struct rxd_cq_core *cq,
		      const struct ibv_wc *wc, uint32_t retired, bool solicited);

#endif /* RXD_TQP_H */
