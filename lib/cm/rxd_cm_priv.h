/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/cm internals shared by its files: the per-port CM device (default
 * PD and the GSI QP carrying MADs), the rdma_cm_id behind the public
 * handle and its connection state, event channels, the global CM state
 * and its one lock.
 */
#ifndef RXD_CM_PRIV_H
#define RXD_CM_PRIV_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rdma/rdma_cma.h>

#include "rxd/rxd_cm.h"

#include "rxd_cm_mad.h"

#define RXD_CM_MAX_DEVS 8
/**
 * Receive buffers of each GSI QP: a storm of N connections brings N
 * REQs and N RTUs (then N DREQs and N DREPs) at once, faster than the CM
 * thread takes them, and a UD QP without a posted buffer drops the MAD,
 * which then costs its sender a response timeout.  QP1 has limits of its
 * own (RXD_GSI_MAX_WR), so [limits] rq_depth does not bound it.
 */
#define RXD_CM_GSI_DEPTH 8192
#define RXD_CM_GRH_LEN 40
#define RXD_CM_PKT_LIFE 16           /**< packet lifetime, IBTA time code */
#define RXD_CM_RESP_TIMEOUT 20       /**< CM response timeout (4.096us*2^x) */
#define RXD_CM_MAX_RETRIES 15
/** Default QP ack timeout code: packet lifetime + 1, as Linux's CM gives
 * RoCE QPs (4.096 us * 2^17 = 0.54 s a try): a peer starved of CPU for
 * half a second must not cost the connection. */
#define RXD_CM_ACK_TIMEOUT (RXD_CM_PKT_LIFE + 1)
#define RXD_CM_MIN_RNR_TIMER 12
#define RXD_CM_RD_ATOMIC 16          /**< reads in flight without conn_param */
#define RXD_CM_REJ_INVALID_SID 8
#define RXD_CM_REJ_CONSUMER 28
#define RXD_CM_REJ_TIMEOUT 1
#define RXD_CM_SIDR_OK 0
#define RXD_CM_SIDR_UNSUPPORTED 1
#define RXD_CM_SIDR_REJECT 2

/** One rxd port as the CM sees it. */
struct rxd_cm_dev {
	struct ibv_context *verbs;
	struct ibv_pd *pd;            /**< default PD (rdma_cm_id.pd) */
	unsigned int port;            /**< rxd port index */
	uint64_t guid;                /**< host order */
	enum ibv_mtu mtu;             /**< the port's active MTU */
	struct ibv_comp_channel *gsi_ch;
	struct ibv_cq *gsi_cq;
	struct ibv_qp *gsi_qp;
	struct ibv_mr *rx_mr;
	uint8_t *rx_buf;              /**< rx_depth x (GRH + MAD) */
	unsigned int rx_depth;        /**< receive buffers posted on gsi_qp */
	unsigned int tx_depth;        /**< gsi_qp's send queue */
	unsigned int cqe;             /**< gsi_cq's size */
	uint64_t rx_dropped;          /**< QP1's drops already reported */
	struct rxd_cm_pending *backlog;      /**< MADs the send queue had */
	struct rxd_cm_pending *backlog_tail; /**< no room for, oldest first */
};

/** Connection states of an id (a subset of IBTA's CM states). */
enum rxd_cm_state {
	RXD_CMS_IDLE,
	RXD_CMS_BOUND,
	RXD_CMS_ADDR_RESOLVED,
	RXD_CMS_ROUTE_RESOLVED,
	RXD_CMS_LISTEN,
	RXD_CMS_REQ_SENT,
	RXD_CMS_REQ_RCVD,             /**< passive, waiting for accept */
	RXD_CMS_REP_RCVD,             /**< active, app moves its own QP */
	RXD_CMS_REP_SENT,
	RXD_CMS_ESTABLISHED,
	RXD_CMS_DREQ_SENT,
	RXD_CMS_TIMEWAIT,             /**< disconnected */
	RXD_CMS_SIDR_REQ_SENT,
	RXD_CMS_SIDR_REQ_RCVD,
	RXD_CMS_ERROR,                /**< rejected, unreachable */
};

/** A MAD waiting for its answer, resent on timeout. */
struct rxd_cm_retry {
	uint8_t mad[RXD_MAD_LEN];
	uint16_t attr_id;             /**< of mad, for the resend notice */
	uint64_t deadline_ms;         /**< 0: nothing pending */
	unsigned int timeout_ms;
	unsigned int left;            /**< resends left */
};

struct rxd_cm_channel;
struct rxd_cm_pending;
struct rxd_cm_mcast;

/** The id behind struct rdma_cm_id (which comes first). */
struct rxd_cm_id {
	struct rdma_cm_id id;
	struct rxd_cm_dev *dev;       /**< NULL until bound to a port */
	enum rxd_cm_state state;
	bool sync;                    /**< created without a channel */
	bool own_cqs;                 /**< rdma_create_qp made the CQs */
	bool qp_made;                 /**< rdma_create_qp made the QP */
	uint8_t sgid_index;
	uint8_t sgid[16], dgid[16];
	uint16_t sport, dport;
	bool passive;                 /**< made by a listener for a REQ */
	bool afonly;                  /**< AF-only: IPv4 ids unless told */
	bool afonly_set;              /**< by RDMA_OPTION_ID_AFONLY */
	bool reuseaddr;               /**< RDMA_OPTION_ID_REUSEADDR */
	/* connection */
	uint32_t local_comm_id, remote_comm_id;
	uint64_t tid;
	uint32_t local_psn;           /**< advertised: we receive from it */
	uint32_t remote_psn;          /**< the peer's: we send from it */
	uint32_t remote_qpn, remote_qkey;
	uint8_t resp_res, init_depth;     /**< of this side's QP */
	uint8_t retry_cnt, rnr_retry;     /**< this side sends with them */
	uint8_t ack_timeout;
	enum ibv_mtu mtu;
	uint8_t tos;
	/** The REQ's primary path flow label (0 when rxd asked): both QPs
	 *  of the connection send from the UDP port it folds to, as
	 *  Soft-RoCE's do (rxd_sport_connected()) */
	uint32_t flow_label;
	uint64_t rx_base;             /**< QP rx packets at REP time */
	unsigned int data_poll_ms;    /**< REP_SENT: next look at rx_base */
	struct rxd_cm_retry retry;
	/* rdma_create_ep's QP attributes, for rdma_get_request */
	struct ibv_qp_init_attr *ep_attr;
	struct ibv_pd *ep_pd;
	unsigned int events_out;      /**< delivered, not acknowledged */
	pthread_cond_t acked;
	struct rxd_cm_mcast *mcast;   /**< groups joined (rxd_cma_mcast.c) */
	struct rxd_cm_id *next, *prev;  /**< in rxd_cm.ids */
	/* rxd_cm_index.c */
	struct rxd_cm_id *comm_next;  /**< chain by local_comm_id */
	struct rxd_cm_id *peer_next;  /**< chain by remote_comm_id, dgid */
	struct rxd_cm_id *listen_next;
	bool peer_indexed, listening;
	unsigned int heap_pos;        /**< 1 + place in the timer heap, or 0 */
	uint64_t timer_ms;            /**< when the timer heap runs it */
};

/** An event and the private data it points at. */
struct rxd_cm_event {
	struct rdma_cm_event ev;
	uint8_t pdata[RXD_CM_PDATA_MAX];
	struct rxd_cm_event *next;
};

/** struct rdma_event_channel and its queue. */
struct rxd_cm_channel {
	struct rdma_event_channel ch;  /**< fd: eventfd, readable iff queued */
	struct rxd_cm_event *head, *tail;
	unsigned int waiters;          /**< threads in rdma_get_cm_event() on it */
	bool dead;                     /**< destroyed while some waited */
	struct rxd_cm_channel *live_next;  /**< in the live channels' list */
};

/** Everything the CM knows; `lock` guards ids, channels, states. */
struct rxd_cm {
	pthread_mutex_t lock;
	bool started;
	unsigned int n_dev;
	struct rxd_cm_dev dev[RXD_CM_MAX_DEVS];
	struct rxd_cm_id *ids;
	pthread_t thread;
	int wake_fd;
	bool stop;
	uint64_t tid_next;
	struct rxd_cm_counters count;   /**< but drop_qp1, mem_bytes */
	uint64_t n_events, n_backlog;   /**< allocated, for mem_bytes */
};

extern struct rxd_cm rxd_cm;

static inline struct rxd_cm_id *
rxd_cm_id(struct rdma_cm_id *id)
{
	return (struct rxd_cm_id *)id;
}

/* rxd_cm_backlog.c (callers hold rxd_cm.lock) */
/** Keep a MAD the send queue has no room for. 0 or ENOMEM. */
int rxd_cm_backlog_add(struct rxd_cm_dev *dev, uint8_t sgid_index,
		       const uint8_t dgid[16], const uint8_t mad[RXD_MAD_LEN]);
/** Post kept MADs, oldest first, while the send queue takes them. */
void rxd_cm_backlog_flush(struct rxd_cm_dev *dev);
/** Bytes one kept MAD takes. */
size_t rxd_cm_backlog_entry_bytes(void);

/* rxd_cm_counters.c */
/** Print every counter, one "rxd cm: NAME VALUE" line each. */
void rxd_cm_counters_print(FILE *f);

/* rxd_cm_gsi.c */
/** Start the CM once per process (devices, GSI QPs, thread). 0 or errno. */
int rxd_cm_start(void);
/**
 * Send a MAD from @p dev's QP1 to QP1 at @p dgid, after those kept in the
 * backlog; kept there too when the send queue is full (lock held).
 * 0 or errno.
 */
int rxd_cm_gsi_send(struct rxd_cm_dev *dev, uint8_t sgid_index,
		    const uint8_t dgid[16], const uint8_t mad[RXD_MAD_LEN]);
/** Post a MAD on QP1 now. 0 or errno (ENOMEM: send queue full). */
int rxd_cm_gsi_post(struct rxd_cm_dev *dev, uint8_t sgid_index,
		    const uint8_t dgid[16], const uint8_t mad[RXD_MAD_LEN]);
/** Wake the CM thread (a timer changed). */
void rxd_cm_wake(void);
/** Milliseconds of a monotonic clock. */
uint64_t rxd_cm_now_ms(void);

/* rxd_cm_event.c (callers hold rxd_cm.lock) */
/**
 * Queue an event for @p id on its (or the listener's) channel; pdata may
 * be NULL.  @return the event, to add UD parameters, or NULL (no memory).
 */
struct rdma_cm_event *rxd_cm_event_push(struct rxd_cm_id *id, struct rxd_cm_id *listen,
		       enum rdma_cm_event_type type, int status,
		       const uint8_t *pdata, uint8_t pdata_len);
/** Drop queued events of @p id (destroy). */
void rxd_cm_event_drop(struct rxd_cm_id *id);
/**
 * Take the next event of a channel (lock not held): blocks unless the fd
 * is O_NONBLOCK.  0 or -1 with errno.
 */
int rxd_cm_event_take(struct rxd_cm_channel *ch, struct rdma_cm_event **ev);

/* rxd_cma.c */
/**
 * For a synchronous id (made without a channel): take its next event and
 * succeed if it is @p want without error, else -1 with errno as librdmacm
 * sets it (ECONNREFUSED for a rejection).  0 at once for other ids.
 */
int rxd_cm_sync_wait(struct rxd_cm_id *c, enum rdma_cm_event_type want);

#define RXD_CM_REQ_PDATA_MAX (92 - RXD_CM_IP_HDR_LEN)
#define RXD_CM_SIDR_PDATA_MAX (216 - RXD_CM_IP_HDR_LEN)

/* rxd_cm_id.c (callers hold rxd_cm.lock) */
/** Link a new id into rxd_cm.ids / unlink it (and from every index). */
void rxd_cm_id_link(struct rxd_cm_id *c);
void rxd_cm_id_unlink(struct rxd_cm_id *c);
/** A random 24-bit starting PSN. */
uint32_t rxd_cm_new_psn(void);
/** Give @p c a comm ID no id uses (indexed); a new transaction ID. */
void rxd_cm_take_comm_id(struct rxd_cm_id *c);
uint64_t rxd_cm_new_tid(void);
/** Run @p c's timer when its resend is due (and poll REP_SENT's QP). */
void rxd_cm_schedule(struct rxd_cm_id *c);
/** The service ID of a port space and port. */
uint64_t rxd_cm_service_id(enum rdma_port_space ps, uint16_t port);
/** An IBTA time code (4.096 us * 2^code) in ms, as Linux rounds it. */
unsigned int rxd_cm_time_ms(unsigned int code);
/** Send a message; with @p keep, copy the MAD there too. */
void rxd_cm_send_to(struct rxd_cm_dev *dev, uint8_t sgid_index,
		    const uint8_t dgid[16], const struct rxd_cm_msg *m,
		    uint8_t *keep);
/** Send to the id's peer; armed: resent until answered (or given up). */
void rxd_cm_send(struct rxd_cm_id *c, const struct rxd_cm_msg *m);
void rxd_cm_send_armed(struct rxd_cm_id *c, const struct rxd_cm_msg *m);
void rxd_cm_send_rtu(struct rxd_cm_id *c);
/** Stop resending. */
void rxd_cm_disarm(struct rxd_cm_id *c);
/** The id with our comm ID @p local (not a listener), or NULL. */
struct rxd_cm_id *rxd_cm_id_by_comm_id(uint32_t local);
/** The passive id of the peer's comm ID @p remote from @p sgid. */
struct rxd_cm_id *rxd_cm_id_by_peer(uint32_t remote, const uint8_t sgid[16]);
/** The listener of a service ID and local address on @p dev, or NULL. */
struct rxd_cm_id *rxd_cm_listener(struct rxd_cm_dev *dev, uint64_t sid,
				  const uint8_t dst[16]);
/** Our GID index of a local address on @p dev (1 if unknown). */
uint8_t rxd_cm_sgid_index(struct rxd_cm_dev *dev, const uint8_t gid[16]);
/** A passive id for a request from @p sgid to listener @p l. */
struct rxd_cm_id *rxd_cm_id_child(struct rxd_cm_id *l, struct rxd_cm_dev *dev,
				  const uint8_t sgid[16],
				  const struct rxd_cm_ip_hdr *h);
/** Fill an event's connection / UD parameters (ev may be NULL). */
void rxd_cm_conn_params(struct rdma_cm_event *ev, const struct rxd_cm_msg *m);
void rxd_cm_ud_params(struct rdma_cm_event *ev, struct rxd_cm_id *c,
		      uint32_t qpn, uint32_t qkey);
/** The connection is up: ESTABLISHED with @p m's private data (or none). */
void rxd_cm_established(struct rxd_cm_id *c, const struct rxd_cm_msg *m);
/** The connection failed: QP to ERR, event @p type with @p status. */
void rxd_cm_fail(struct rxd_cm_id *c, enum rdma_cm_event_type type,
		 int status, const struct rxd_cm_msg *m);
/** Run due timers; @return ms until the next one (or a cap). */
unsigned int rxd_cm_id_timers(uint64_t now);

/* rxd_cm_index.c (callers hold rxd_cm.lock) */
/** Index @p c under a new local comm ID (which it takes). */
void rxd_cm_index_comm_id(struct rxd_cm_id *c, uint32_t comm_id);
/** Index passive @p c under the peer's comm ID (which it takes). */
void rxd_cm_index_peer(struct rxd_cm_id *c, uint32_t remote);
/** Add @p c to the listeners / the first listener (then listen_next). */
void rxd_cm_index_listen(struct rxd_cm_id *c);
struct rxd_cm_id *rxd_cm_index_listeners(void);
/** The id of a local comm ID / of a peer's comm ID and GID, or NULL. */
struct rxd_cm_id *rxd_cm_index_find_comm_id(uint32_t comm_id);
struct rxd_cm_id *rxd_cm_index_find_peer(uint32_t remote, const uint8_t gid[16]);
/** Drop @p c from every index and the timer heap. */
void rxd_cm_index_forget(struct rxd_cm_id *c);
/** Bytes the indexes hold. */
size_t rxd_cm_index_bytes(void);
/** Run @p c's timer at @p when (ms) / not at all. 0 or ENOMEM. */
int rxd_cm_timer_at(struct rxd_cm_id *c, uint64_t when);
void rxd_cm_timer_stop(struct rxd_cm_id *c);
/** Take the id whose timer is due first, if due by @p now, or NULL. */
struct rxd_cm_id *rxd_cm_timer_due(uint64_t now);
/** When the first timer is due (UINT64_MAX: none). */
uint64_t rxd_cm_timer_next(void);

/* rxd_cm_recv.c (callers hold rxd_cm.lock) */
/** Handle a MAD from @p sgid on @p dev. */
void rxd_cm_id_input(struct rxd_cm_dev *dev, const uint8_t sgid[16],
		     const struct rxd_cm_msg *m);

/* rxd_cm_send.c (callers hold rxd_cm.lock) */
/** Send REQ or SIDR_REQ. 0 or errno. */
int rxd_cm_id_connect(struct rxd_cm_id *c, const struct rdma_conn_param *p);
/** Send REP or SIDR_REP. 0 or errno. */
int rxd_cm_id_accept(struct rxd_cm_id *c, const struct rdma_conn_param *p);
/** Send REJ (or SIDR_REP reject). 0 or errno. */
int rxd_cm_id_reject(struct rxd_cm_id *c, const void *pdata, uint8_t len);
/** Send DREQ. 0 or errno. */
int rxd_cm_id_disconnect(struct rxd_cm_id *c);
/** Send RTU (rdma_establish). 0 or errno. */
int rxd_cm_id_establish(struct rxd_cm_id *c);

/* rxd_cm_qp.c */
/** Attributes for moving the id's QP to @p state; 0 or errno. */
int rxd_cm_qp_attr(struct rxd_cm_id *c, enum ibv_qp_state state,
		   struct ibv_qp_attr *a, int *mask);
/** Move the id's QP (if any) through RTR to RTS / to ERR. 0 or errno. */
int rxd_cm_qp_ready(struct rxd_cm_id *c);
void rxd_cm_qp_error(struct rxd_cm_id *c);
/** The QP's received packet count (data before RTU). */
uint64_t rxd_cm_qp_rx(struct rxd_cm_id *c);

/* rxd_cma_mcast.c */
/** Leave every group the id joined (rdma_destroy_id). */
void rxd_cm_mcast_leave_all(struct rxd_cm_id *c);

/* rxd_cm_addr.c */
/** Find the port and GID index of a local address. 0 or errno. */
/**
 * A loopback address (127.0.0.0/8, ::1) as rxd's host address: the first
 * address of its family on the first rxd port, with sa's port, in *host.
 * @return 0, ENOENT when sa is no loopback address, or EADDRNOTAVAIL.
 */
int rxd_cm_addr_loopback(const struct sockaddr *sa,
			 struct sockaddr_storage *host);

int rxd_cm_addr_local(const struct sockaddr *sa, struct rxd_cm_dev **dev,
		      uint8_t *sgid_index, uint8_t gid[16]);
/** GID of a socket address (IPv4 as ::ffff:a.b.c.d). 0 or EAFNOSUPPORT. */
int rxd_cm_addr_gid(const struct sockaddr *sa, uint8_t gid[16]);
/** Socket address of a GID and port. */
void rxd_cm_addr_from_gid(const uint8_t gid[16], uint16_t port,
			  struct sockaddr_storage *ss);
/** Resolve @p dst (pick the port unless bound). 0 or errno. */
int rxd_cm_addr_resolve(struct rxd_cm_id *c, const struct sockaddr *dst,
			int timeout_ms);
/** The port of a socket address (host order). */
uint16_t rxd_cm_addr_port(const struct sockaddr *sa);
/** A free ephemeral port. */
uint16_t rxd_cm_addr_ephemeral(void);

/** The librdmacm convention: 0, or -1 with errno set to rc. */
static inline int
rxd_cm_result(int rc)
{
	if (rc == 0)
		return 0;
	errno = rc;
	return -1;
}

#endif /* RXD_CM_PRIV_H */
