/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-testpmd: what the files of the console share.  The program state,
 * the parsed arguments of a command, the connections (an RC QP each, set
 * up over TCP) with their traffic flows, and the functions each file
 * offers the commands table.
 */
#ifndef TESTPMD_H
#define TESTPMD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <cmdline_parse.h>
#include <cmdline_parse_string.h>
#include <infiniband/verbs.h>

#include "rxd/rxd.h"

#define TP_PROMPT "rxd-testpmd> "
#define TP_MAX_CONNS 8

/* Every connection's registered buffer: three areas (testpmd_traffic.c). */
#define TP_TX_AREA (16u << 20)       /* sources of send/write, read targets */
#define TP_RECV_DEPTH 32u            /* receives kept posted per QP */
#define TP_RECV_SLOT (256u << 10)    /* bytes per receive */
#define TP_WRITE_AREA (32u << 20)    /* where the peer writes and reads */
#define TP_RECV_OFF TP_TX_AREA
#define TP_WRITE_OFF (TP_RECV_OFF + TP_RECV_DEPTH * TP_RECV_SLOT)
#define TP_BUF_SIZE (TP_WRITE_OFF + TP_WRITE_AREA)
#define TP_SQ_DEPTH 256u             /* send WRs of a QP */
#define TP_SLOT_ALIGN 64u            /* message slots start at multiples */
#define TP_HEADER_LEN 16u            /* a message's header (pattern.c) */

/** Program-wide state. */
struct tp_state {
	bool interactive;
	bool quit;                   /**< "quit" was given */
	bool cmd_failed;             /**< the last command reported an error */
	volatile sig_atomic_t interrupted;  /**< SIGINT/SIGTERM */
	unsigned int stats_period;   /**< seconds between traffic lines; 0 off */
	unsigned int conn_port;      /**< rxd port of new connections */
	unsigned int conn_gid;       /**< and their GID index */
	struct rxd_conf conf;        /**< fault settings as last set */
};

extern struct tp_state tp;

/** The arguments of a parsed command, filled by the cmdline tokens. */
struct tp_args {
	cmdline_fixed_string_t word[4];  /**< keywords, in order */
	cmdline_fixed_string_t text;     /**< HOST, FILE or VALUE */
	uint16_t port;                   /**< rxd port */
	uint16_t tcp_port;
	uint32_t size, depth, seconds, index;
	uint64_t count;
};

/** A command's handler: 0, or -1 after printing why it failed. */
typedef int (*tp_handler)(const struct tp_args *a);

/** What a QP's peer told us over TCP (and what we told it). */
struct tp_peer {
	uint32_t qpn, psn, rkey;
	uint8_t gid[16];
	uint64_t addr;               /**< its buffer (TP_BUF_SIZE bytes) */
	uint32_t mtu;                /**< active IB MTU in bytes */
};

enum tp_op { TP_OP_SEND, TP_OP_WRITE, TP_OP_READ };

/** The traffic of a run, as "start traffic" set it. */
struct tp_flow_cfg {
	enum tp_op op;
	uint32_t size, depth;
	uint64_t count;              /**< messages, 0 = until stopped */
};

/** Counters of the tool itself, per connection (written by the worker). */
struct tp_counts {
	uint64_t msgs_done, bytes_done;      /**< requester completions */
	uint64_t msgs_rx, bytes_rx;          /**< sends and writes received */
	uint64_t data_errors;                /**< received data not as sent */
	uint64_t wc_errors;                  /**< completions with an error */
};

/**
 * Traffic state of a connection.  "start traffic" sets cfg and resets the
 * run while the flow is idle, then sets active; the rest is the worker's.
 */
struct tp_flow {
	struct tp_flow_cfg cfg;
	uint32_t active;             /**< 1 while posting (atomic) */
	uint32_t broken;             /**< the QP failed (atomic) */
	uint64_t posted, completed;  /**< of this run */
	uint64_t outstanding;        /**< posted, not completed (atomic) */
	uint64_t tx_seq, rx_seq;     /**< receive-consuming messages so far */
	uint64_t run_start_ns;
	struct tp_counts cnt;
};

/** One connection: an RC QP with its CQ, buffer and peer. */
struct tp_conn {
	unsigned int port;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct tp_peer local, remote;
	struct tp_flow flow;
};

/* testpmd_main.c */
/** Block (true) or restore SIGINT/SIGTERM around creating a thread. */
void tp_hold_signals(bool hold);

/* testpmd_cmds.c */
extern cmdline_parse_ctx_t tp_ctx[];
int tp_cmd_help(const struct tp_args *a);

/* testpmd_batch.c */
int tp_run_file(struct cmdline *cl, const char *path);
int tp_run_string(struct cmdline *cl, const char *cmd, const char *origin);

/* testpmd_show.c */
int tp_show_ports(const struct tp_args *a);
int tp_show_gids(const struct tp_args *a);
int tp_show_neigh(const struct tp_args *a);
int tp_show_qps(const struct tp_args *a);
int tp_show_mem(const struct tp_args *a);
void tp_gid_str(const uint8_t gid[16], char *buf, size_t len);

/* testpmd_engines.c */
int tp_show_engines(const struct tp_args *a);

/* testpmd_stats.c */
int tp_show_stats(const struct tp_args *a);
int tp_set_stats_period(const struct tp_args *a);
void tp_stats_line(const struct tp_conn *c, double secs,
		   const struct tp_counts *prev);

/* testpmd_diag.c */
int tp_set_fault(const struct tp_args *a);
int tp_capture_start(const struct tp_args *a);
int tp_capture_stop(const struct tp_args *a);
int tp_wait_link(const struct tp_args *a);

/* testpmd_cm.c */
int tp_cm_listen(const struct tp_args *a);
int tp_show_cm(const struct tp_args *a);
int tp_wait_cm(const struct tp_args *a);
bool tp_port_ok(unsigned int port);
bool tp_sleep_ms(unsigned int ms);

/* testpmd_conn.c */
int tp_listen(const struct tp_args *a);
int tp_connect(const struct tp_args *a);
int tp_set_conn_gid(const struct tp_args *a);
unsigned int tp_conn_count(void);
struct tp_conn *tp_conn_get(unsigned int i);
uint32_t tp_conn_mtu(const struct tp_conn *c);
void tp_conns_close(void);

/* testpmd_tcp.c: sockets, or -1 after printing why */
int tp_tcp_accept(uint16_t port);
int tp_tcp_connect(const char *host, uint16_t port);
int tp_tcp_send_line(int fd, const char *line);
int tp_tcp_recv_line(int fd, char *buf, size_t size);

/* testpmd_traffic.c */
int tp_start_traffic(const struct tp_args *a);
int tp_stop_traffic(const struct tp_args *a);
int tp_wait_traffic(const struct tp_args *a);
int tp_wait_rx(const struct tp_args *a);
const char *tp_op_name(enum tp_op op);
uint64_t tp_load(const uint64_t *p);
uint64_t tp_now_ns(void);
uint32_t tp_slot_size(uint32_t size);
uint32_t tp_write_slots(uint32_t size);
void tp_report_run(const struct tp_conn *c, const char *how);

/* testpmd_worker.c */
int tp_flow_init(struct tp_conn *c);
int tp_worker_start(void);
void tp_worker_stop(void);

/* testpmd_pattern.c */
void tp_pattern_fill(uint8_t *buf, uint32_t len, uint64_t seq);
bool tp_pattern_check(const uint8_t *buf, uint32_t len, uint64_t seq,
		      uint32_t *bad_at);
bool tp_pattern_header(const uint8_t *buf, uint64_t *seq, uint32_t *len);

#endif /* TESTPMD_H */
