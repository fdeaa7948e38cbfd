/* SPDX-License-Identifier: BSD-3-Clause */
/* The RC transport's per-QP state, shared by the files of lib/transport. */
#ifndef RXD_RC_H
#define RXD_RC_H

#include <stdbool.h>

#include <rte_cycles.h>

#include "rxd/rxd_flush.h"
#include "rxd_mr.h"
#include "rxd_net_hint.h"
#include "rxd_rx_tmpl.h"
#include "rxd_transport.h"
#include "rxd_wr_opcode.h"

#define RXD_REQ_BUDGET 64          /* packets per QP per engine pass */
#define RXD_ACKREQ_EVERY 32        /* AckReq inside long messages */
#define RXD_MAX_INFLIGHT 256       /* PSNs sent beyond the last ACKed one */
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

/** A responder resource: a READ or atomic kept for duplicates. */
struct rxd_res {
	bool used;
	bool atomic;
	uint32_t seq;              /**< allocation number (rc->res_next) */
	uint32_t from;             /**< first response packet of this round */
	uint32_t next;             /**< next response packet to send */
	uint32_t psn;              /**< first PSN */
	uint32_t npkts;
	uint64_t va;
	uint32_t rkey;
	struct rxd_mr_hold hold;   /**< READ: the registration it reads */
	uint32_t len;
	uint64_t orig;             /**< atomic: the value returned */
	uint32_t msn;
};

/** Per-QP RC state. */
struct rxd_rc {
	struct rxd_qp_core *qp;
	struct rxd_xmit x;
	struct rxd_timers *timers;
	struct rxd_rc *next_timer;
	bool on_timer_list;
	struct rxd_pkt tmpl;       /**< headers common to the QP's frames */
	struct rxd_wire_hdr txh;   /**< RC/UC: tmpl's bytes, built at RTR */
	uint16_t sport;            /**< UDP source port of this connection */
	struct rxd_net_hint peer;  /**< RC/UC: where the last frame went */
	uint32_t mtu;
	/* requester */
	struct rxd_swqe *win;
	uint32_t win_size;
	uint32_t head, cur, tail;  /**< free-running indices into win */
	uint32_t npsn;             /**< PSN of the next new packet */
	uint32_t una;              /**< oldest PSN not yet acknowledged */
	uint32_t snd_nxt;          /**< PSN after the highest one sent */
	uint32_t acked;            /**< PSN after the highest one ACKed */
	uint32_t unsignaled;       /**< retired WQEs not yet reported */
	uint8_t retry_left, rnr_left;
	uint64_t rto;              /**< retransmit timeout, TSC (0: none) */
	uint64_t deadline;         /**< retransmit timer, 0 = not armed */
	uint64_t rnr_until;        /**< RNR back-off end, 0 = none */
	bool rewound;              /**< rewound to rewind_psn, no progress since */
	bool pacer_held;           /**< stopped at an empty bucket this pass */
	bool draining;             /**< SQD: SQ_DRAINED not raised yet */
	bool uc_dropping;          /**< UC: rest of a broken message dropped */
	bool last_wqe_sent;        /**< SRQ: LAST_WQE_REACHED raised */
	bool acked_new;            /**< the last ACK moved una or retired */
	bool too_big;              /**< last rxd_tx_frame(): frame too big */
	uint32_t rewind_psn;
	/* responder */
	uint32_t epsn;
	uint32_t msn;
	bool nak_sent;             /**< one sequence NAK per gap */
	bool ack_due;              /**< a coalesced ACK waits for ack_psn */
	uint32_t ack_psn;
	uint8_t in_msg;            /**< 0, or RXD_OPF_SEND/WRITE of the message */
	struct rxd_rx_tmpl rxt;    /**< the peer's requests (fast path) */
	struct rxd_rx_tmpl ackt;   /**< the peer's responses (fast path) */
	bool have_rwqe;
	struct rxd_recv_wqe rwqe;
	uint32_t rcv_off;
	struct rxd_mr *wmr;        /**< WRITE in progress (rxd_mr_follow()) */
	struct rxd_mr_hold whold;
	uint64_t wva;
	uint32_t wleft;
	struct rxd_res *res;
	uint32_t n_res, res_next;
	uint32_t res_busy;         /**< oldest resource with responses to send */
	/* congestion control */
	uint64_t cnp_next;         /**< TSC before which no CNP is sent */
	bool paced;                /**< a rate law runs (x.dcqcn or x.delay) */
	struct rxd_dcqcn dcqcn;    /**< x.dcqcn: the rate (reaction point) */
	struct rxd_delay delay;    /**< x.delay: the rate */
	struct rxd_pacer pacer;
	double tsc_per_us;
	/* round-trip probe (rxd_rtt.c) */
	bool probe_on;             /**< a probe waits for its ACK */
	uint32_t probe_psn;        /**< the PSN probed */
	uint64_t probe_at;         /**< pass clock (TSC) when it left */
	/* keepalive (rxd_keepalive.c) */
	uint64_t ka_since;         /**< TSC of the last sign of the peer */
	uint64_t ka_heard;         /**< cnt.rx_pkts seen then */
	uint8_t ka_probes;         /**< probes unanswered */
	bool ka_armed;             /**< the peer was heard since RTR */
	struct rxd_qp_stats cnt;
};

static inline struct rxd_rc *
rxd_rc(const struct rxd_qp_core *qp)
{
	return qp->transport;
}

static inline struct rxd_swqe *
rxd_win(struct rxd_rc *rc, uint32_t i)
{
	return &rc->win[i % rc->win_size];
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
rxd_tx_backed_up(const struct rxd_rc *rc)
{
	return rc->x.held != NULL && *rc->x.held >= RXD_TX_HOLD_BACK;
}

/**
 * Something sent is not acknowledged (or answered) yet, or a WQE sent
 * (again, after a rewind) is not retired: an ACK that came before its
 * resend moved una but could not retire it.
 */
static inline bool
rxd_rc_outstanding(const struct rxd_rc *rc)
{
	return rc->una != rc->snd_nxt || rc->head != rc->cur;
}

/**
 * The ICRC of a frame whose check the parser deferred, checked now (true
 * for a frame checked by the parser).
 */
static inline bool
rxd_rc_icrc_ok(const struct rte_mbuf *m, const struct rxd_pkt *pkt)
{
	return !pkt->icrc_deferred ||
		rxd_wire_icrc_ok(rte_pktmbuf_mtod(m, const uint8_t *), pkt);
}

/* rxd_tx.c */
struct rte_mbuf *rxd_tx_frame(struct rxd_rc *rc, struct rxd_pkt *pkt,
			      uint32_t payload_len, uint8_t **payload);
void rxd_tx_send(struct rxd_rc *rc, struct rxd_pkt *pkt, struct rte_mbuf *m,
		 const void *src);
void rxd_tx_ack(struct rxd_rc *rc, uint32_t psn, uint8_t syndrome);
void rxd_tx_ack_later(struct rxd_rc *rc, uint32_t psn);
void rxd_tx_ack_flush(struct rxd_rc *rc);
void rxd_tx_ack_before(struct rxd_rc *rc, uint32_t psn);
void rxd_tx_cnp(struct rxd_rc *rc);

/* The QP's engine's clock of this pass (one TSC read a pass), or the TSC
 * for a QP not bound yet or an engine that has not run a pass. */
static inline uint64_t
rxd_rc_clock(const struct rxd_rc *rc)
{
	return rc->timers != NULL && rc->timers->now != 0 ?
		rc->timers->now : rte_rdtsc();
}

/* rxd_cc.c */
void rxd_cc_bind(struct rxd_rc *rc);
void rxd_cc_reset(struct rxd_rc *rc);
void rxd_cc_ce(struct rxd_rc *rc);
void rxd_cc_cnp(struct rxd_rc *rc);
bool rxd_cc_may_send(struct rxd_rc *rc);
void rxd_cc_sent(struct rxd_rc *rc, uint32_t len);
void rxd_cc_read_asked(struct rxd_rc *rc, uint32_t len);
void rxd_cc_rtt(struct rxd_rc *rc, uint64_t now, uint64_t rtt_us);
double rxd_cc_rate(const struct rxd_rc *rc);
uint64_t rxd_cc_cuts(const struct rxd_rc *rc);

/* Whether the QP's pacer holds its next frame (a law runs, the bucket is
 * empty), noted in pacer_held: requests and READ responses alike wait. */
static inline bool
rxd_cc_held(struct rxd_rc *rc)
{
	if (!rc->paced || rxd_cc_may_send(rc))
		return false;
	rc->pacer_held = true;
	return true;
}

/* rxd_rtt.c */
void rxd_rtt_sent(struct rxd_rc *rc, uint32_t psn);
void rxd_rtt_acked(struct rxd_rc *rc, uint32_t psn);

/* A rewind resends frames whose round trip would count the wait for the
 * loss: the probe is dropped (Karn's rule). */
static inline void
rxd_rtt_drop(struct rxd_rc *rc)
{
	rc->probe_on = false;
}

/* rxd_keepalive.c */
void rxd_keepalive_reset(struct rxd_rc *rc);

/* rxd_req.c */
void rxd_req_rewind(struct rxd_rc *rc, uint32_t psn);

/* rxd_comp.c */
void rxd_comp_retire(struct rxd_rc *rc);
bool rxd_comp_rx(struct rxd_rc *rc, struct rte_mbuf *m,
		 const struct rxd_pkt *pkt);
void rxd_comp_timeout(struct rxd_rc *rc, uint64_t now);
void rxd_comp_error(struct rxd_rc *rc, enum ibv_wc_status status);
void rxd_comp_error_at(struct rxd_rc *rc, uint32_t bad,
		       enum ibv_wc_status status);

/* rxd_resp_send.c */
struct rxd_res *rxd_resp_res_new(struct rxd_rc *rc);
void rxd_resp_respond(struct rxd_rc *rc, struct rxd_res *r, uint32_t from);
bool rxd_resp_continue(struct rxd_rc *rc);

/* rxd_resp.c */
bool rxd_resp_rx(struct rxd_rc *rc, struct rte_mbuf *m,
		 const struct rxd_pkt *pkt);
void rxd_resp_uc_rx(struct rxd_rc *rc, struct rte_mbuf *m,
		    const struct rxd_pkt *pkt);

/* rxd_ud.c */
void rxd_ud_fill(struct rxd_rc *rc, const struct rxd_send_wqe *w,
		 struct rxd_pkt *p);
void rxd_ud_rx(struct rxd_rc *rc, struct rte_mbuf *m,
	       const struct rxd_pkt *pkt);

/* rxd_rc.c */
void rxd_rc_check_drained(struct rxd_rc *rc);
void rxd_rc_timer_arm(struct rxd_rc *rc, uint64_t deadline);
void rxd_rc_to_error(struct rxd_rc *rc);
bool rxd_rc_copy_sges(const struct ibv_pd *pd, const struct ibv_sge *sge,
		      uint32_t num_sge, uint32_t off, uint8_t *buf,
		      uint32_t len, bool to_sge);
uint8_t *rxd_rc_sge_span(const struct ibv_pd *pd, const struct ibv_sge *sge,
			 uint32_t num_sge, uint32_t off, uint32_t len,
			 unsigned int need);
void rxd_rc_complete(struct rxd_qp_core *qp, struct rxd_cq_core *cq,
		     const struct ibv_wc *wc, uint32_t retired, bool solicited);

#endif /* RXD_RC_H */
