/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection state of an RC or UC QP (struct rxd_rc): the headers
 * built at RTR and the peer's MAC, the responder's PSN and message state;
 * and what only RC uses of it: the requester's acknowledgement, retry and
 * RNR state, coalesced ACKs, the responder resources of duplicate READs
 * and atomics, the receive fast path's templates, the round-trip probe
 * (it needs ACKs; its samples feed the rate law in struct rxd_tqp), the
 * keepalive.  A UD QP has none of it: its state is a bare struct rxd_tqp.
 */
#ifndef RXD_RC_H
#define RXD_RC_H

#include "rxd_rx_tmpl.h"
#include "rxd_tqp.h"

#define RXD_ACKREQ_EVERY 32        /* AckReq inside long messages */
#define RXD_MAX_INFLIGHT 256       /* PSNs sent beyond the last ACKed one */

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

/** Per-QP state of a connected (RC or UC) QP. */
struct rxd_rc {
	struct rxd_tqp t;          /**< what every QP type has */
	struct rxd_wire_hdr txh;   /**< t.tmpl's bytes, built at RTR */
	struct rxd_net_hint peer;  /**< where the last frame went */
	/* RC requester: acknowledgements and retries */
	uint32_t una;              /**< oldest PSN not yet acknowledged */
	uint32_t acked;            /**< PSN after the highest one ACKed */
	uint8_t retry_left, rnr_left;
	bool rewound;              /**< rewound to rewind_psn, no progress since */
	bool acked_new;            /**< the last ACK moved una or retired */
	uint32_t rewind_psn;
	/* responder */
	uint32_t epsn;
	uint32_t msn;
	bool uc_dropping;          /**< UC: rest of a broken message dropped */
	bool nak_sent;             /**< one sequence NAK per gap */
	bool ack_due;              /**< a coalesced ACK waits for ack_psn */
	uint32_t ack_psn;
	uint8_t in_msg;            /**< 0, or RXD_OPF_SEND/WRITE of the message */
	struct rxd_rx_tmpl rxt;    /**< RC: the peer's requests (fast path) */
	struct rxd_rx_tmpl ackt;   /**< RC: the peer's responses (fast path) */
	bool have_rwqe;
	struct rxd_recv_wqe rwqe;
	uint32_t rcv_off;
	struct rxd_mr *wmr;        /**< WRITE in progress (rxd_mr_follow()) */
	struct rxd_mr_hold whold;
	uint64_t wva;
	uint32_t wleft;
	struct rxd_res *res;       /**< RC: RXD_MAX_RD_ATOMIC; UC: none */
	uint32_t n_res, res_next;
	uint32_t res_busy;         /**< oldest resource with responses to send */
	/* round-trip probe (rxd_rtt.c), RC */
	bool probe_on;             /**< a probe waits for its ACK */
	uint32_t probe_psn;        /**< the PSN probed */
	uint64_t probe_at;         /**< pass clock (TSC) when it left */
	/* keepalive (rxd_keepalive.c), RC */
	uint64_t ka_since;         /**< TSC of the last sign of the peer */
	uint64_t ka_heard;         /**< cnt.rx_pkts seen then */
	uint8_t ka_probes;         /**< probes unanswered */
	bool ka_armed;             /**< the peer was heard since RTR */
};

/** Whether a QP of this type has a struct rxd_rc (RC, UC). */
static inline bool
rxd_qp_connected(const struct rxd_qp_core *qp)
{
	return qp->type != IBV_QPT_UD;
}

/** The connection state around t, of an RC or UC QP. */
static inline struct rxd_rc *
rxd_rc_of(const struct rxd_tqp *t)
{
	return (struct rxd_rc *)(uintptr_t)t;
}

static inline struct rxd_rc *
rxd_rc(const struct rxd_qp_core *qp)
{
	return qp->transport;
}

/**
 * Something sent is not acknowledged (or answered) yet, or a WQE sent
 * (again, after a rewind) is not retired: an ACK that came before its
 * resend moved una but could not retire it.
 */
static inline bool
rxd_rc_outstanding(const struct rxd_rc *rc)
{
	return rc->una != rc->t.snd_nxt || rc->t.head != rc->t.cur;
}

/* rxd_rc.c */
void rxd_rc_reset(struct rxd_rc *rc);
void rxd_rc_modify(struct rxd_rc *rc, enum ibv_qp_state from);

/* rxd_tx.c: ACKs and NAKs */
void rxd_tx_ack(struct rxd_rc *rc, uint32_t psn, uint8_t syndrome);
void rxd_tx_ack_later(struct rxd_rc *rc, uint32_t psn);
void rxd_tx_ack_flush(struct rxd_rc *rc);
void rxd_tx_ack_before(struct rxd_rc *rc, uint32_t psn);

/* rxd_rtt.c */
void rxd_rtt_probe(struct rxd_rc *rc, uint32_t psn);
void rxd_rtt_acked(struct rxd_rc *rc, uint32_t psn);

/* A frame of PSN psn of an RC QP left: probed if no probe runs and it is
 * new.  Inline: a probe runs for most frames, and the test is all they
 * cost on the send path. */
static inline void
rxd_rtt_sent(struct rxd_rc *rc, uint32_t psn)
{
	if (!rc->probe_on)
		rxd_rtt_probe(rc, psn);
}

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
bool rxd_comp_rx(struct rxd_rc *rc, struct rte_mbuf *m,
		 const struct rxd_pkt *pkt);
void rxd_comp_timeout(struct rxd_rc *rc, uint64_t now);
void rxd_comp_error(struct rxd_rc *rc, enum ibv_wc_status status);

/* rxd_resp_send.c */
struct rxd_res *rxd_resp_res_new(struct rxd_rc *rc);
void rxd_resp_respond(struct rxd_rc *rc, struct rxd_res *r, uint32_t from);
bool rxd_resp_continue(struct rxd_rc *rc);

/* rxd_resp.c */
bool rxd_resp_rx(struct rxd_rc *rc, struct rte_mbuf *m,
		 const struct rxd_pkt *pkt);
void rxd_resp_uc_rx(struct rxd_rc *rc, struct rte_mbuf *m,
		    const struct rxd_pkt *pkt);

#endif /* RXD_RC_H */
