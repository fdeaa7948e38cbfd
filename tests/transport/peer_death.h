/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer-death: what the survivor and the victim of tests/transport/
 * peer-death.sh share: the workloads, the messages on the UNIX socket,
 * the buffer layout and the verbs helpers of peer_death_qp.c.
 */
#ifndef PEER_DEATH_H
#define PEER_DEATH_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* What runs when the victim is killed. */
enum pd_work {
	W_VICTIM_WRITE,     /* the victim WRITEs into the survivor */
	W_VICTIM_READ,      /* the victim READs: the survivor mid-response */
	W_VICTIM_ATOMIC,    /* the victim's fetch-and-adds, compare-and-swaps */
	W_SURVIVOR_WRITE,   /* the survivor WRITEs into the victim */
	W_SURVIVOR_READ,    /* the survivor READs from the victim */
	W_CM,               /* the victim dies in the rdma_cm handshake */
	W_COUNT,
	W_FINAL = W_COUNT,  /* no kill: a clean verbs and rdma_cm connection */
};

extern const char *const pd_work_name[W_COUNT + 1];

/* Survivor → victim, first thing on the socket. */
struct pd_order {
	uint32_t work;
	uint32_t round;
};

/* Both ways: where to reach a side's QP and buffer. */
struct pd_peer {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
};

/* Buffer of each side: the peer's target area, then the local area. */
#define PD_AREA (1u << 20)
#define PD_BUF (2 * PD_AREA)
#define PD_LOCAL PD_AREA
#define PD_CHECK_LEN 65536          /* the byte-exact transfer of a round */
#define PD_STREAM_LEN (256u << 10)  /* WRITE and READ sizes of the streams */
#define PD_WINDOW 4                 /* WRs each stream keeps in flight */

/* QP timing: every kill resolves in tens of milliseconds. */
#define PD_TIMEOUT 12               /* 4.096 us * 2^12 = 16.8 ms */
#define PD_RETRY_CNT 3
#define PD_CM_PORT "7471"
#define PD_PERIOD_MS (4.096e-3 * (1u << PD_TIMEOUT))
/* A kill resolves in (retry_cnt + 1) timeouts; one not resolved in 10 s
 * fails.  Only the median of a run is held to 4 times the nominal time:
 * a loaded machine (load 13 on two cores seen here) stalls a process
 * for seconds now and then. */
#define PD_NOMINAL_MS ((PD_RETRY_CNT + 1) * PD_PERIOD_MS)
#define PD_STUCK_MS 10000.0

/* The device, PD and registered buffer of this process. */
struct pd_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
};

/* One connection's CQ and QP. */
struct pd_conn {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

extern struct pd_dev pd_dev;

void pd_dev_open(void);
int pd_conn_create(struct pd_conn *c);
void pd_conn_destroy(struct pd_conn *c);
int pd_conn_connect(struct pd_conn *c, const struct pd_peer *r,
		    uint8_t peer_octet);
struct pd_peer pd_conn_self(const struct pd_conn *c);
int pd_post_recv(struct ibv_qp *qp, uint64_t id);
int pd_post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t id,
	    uint64_t off, uint32_t len, const struct pd_peer *r, uint64_t roff);
int pd_wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int ms);
void pd_idle(unsigned int *spins);
double pd_now_ms(void);

int pd_sock_read(int s, void *p, size_t n);
int pd_sock_write(int s, const void *p, size_t n);

int pd_survivor(const char *sock_path, unsigned int kills, uint64_t seed,
		const char *port_name);
int pd_victim(const char *sock_path);

/* rdma_cm of both sides (peer_death_cm.c). */
int pd_cm_listen(const char *addr);
void pd_cm_close(void);
int pd_cm_survivor_kill(int pid, uint64_t *rng, const char *tag);
int pd_cm_survivor_clean(void);
int pd_cm_victim(const char *addr, bool clean);

uint64_t pd_rand(uint64_t *s);
void pd_diag(const char *who, uint32_t qpn);

#endif
