/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-memif-raw: raw frame rate and round trip of a DPDK port (made for
 * net_memif between two processes) with no RDMA stack: what its files
 * share — the options, the port, the frame header, the results.
 */
#ifndef MEMIF_RAW_H
#define MEMIF_RAW_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

enum raw_mode { RAW_TX, RAW_RX, RAW_FWD, RAW_PING };

/* What the command line sets. */
struct raw_opts {
	enum raw_mode mode;
	uint32_t size;          /* Ethernet frame, no FCS */
	double seconds;         /* measuring time */
	double link_wait;       /* longest wait for the link, seconds */
	uint16_t burst;
	uint16_t seg;           /* mbuf data room: longer frames are chains */
	bool json;
};

/* The one port the tool drives. */
struct raw_port {
	uint16_t id;
	struct rte_mempool *pool;
	struct rte_ether_addr mac;
	uint16_t seg;
};

/* After the Ethernet header (EtherType RAW_ETHERTYPE) of every frame. */
struct raw_hdr {
	uint32_t magic;
	uint16_t kind;          /* enum raw_kind */
	uint16_t reserved;
	uint64_t seq;
	uint64_t value;         /* TSC of a ping, or a count at the end */
} __rte_packed;

#define RAW_ETHERTYPE 0x88b5    /* IEEE 802 local experimental 1 */
#define RAW_MAGIC 0x4d524157u   /* "MRAW" */
#define RAW_HDR_LEN (RTE_ETHER_HDR_LEN + sizeof(struct raw_hdr))
#define RAW_MIN_FRAME 60
#define RAW_MAX_FRAME 65535

enum raw_kind {
	RAW_DATA = 1,           /* counted (rx), echoed (fwd), timed (ping) */
	RAW_END = 2,            /* the sender is done; value = frames sent */
	RAW_END_ACK = 3,        /* reply to RAW_END; value = frames received */
};

/* One key of a result line. */
struct raw_field {
	const char *key;
	bool is_real;
	int64_t i;
	double d;
};

#define RAW_INT(k, v) { .key = (k), .i = (int64_t)(v) }
#define RAW_REAL(k, v) { .key = (k), .is_real = true, .d = (v) }

/* raw_opts.c */
int raw_opts_parse(int argc, char **argv, struct raw_opts *o);
void raw_opts_usage(const char *prog);

/* raw_port.c */
int raw_port_open(struct raw_port *p, const struct raw_opts *o);
int raw_port_wait_link(const struct raw_port *p, double seconds, bool up);

/* raw_intr.c */
void raw_intr_sync(void);
void raw_port_close(struct raw_port *p);

/* raw_frame.c */
unsigned int raw_frames_build(const struct raw_port *p, struct rte_mbuf **m,
	unsigned int n, uint32_t size, enum raw_kind kind, uint64_t seq,
	uint64_t value);
bool raw_frame_parse(const struct rte_mbuf *m, struct raw_hdr *h);
int raw_send_one(const struct raw_port *p, enum raw_kind kind, uint64_t seq,
	uint64_t value);

/* raw_stream.c: tx, rx and fwd */
int raw_run_tx(const struct raw_port *p, const struct raw_opts *o);
int raw_run_rx(const struct raw_port *p, const struct raw_opts *o);
int64_t raw_end_exchange(const struct raw_port *p, uint64_t sent);

/* raw_ping.c */
int raw_run_ping(const struct raw_port *p, const struct raw_opts *o);

/* raw_report.c */
void raw_report(const struct raw_opts *o, const char *measure,
	const struct raw_field *f, unsigned int n);
double raw_seconds(uint64_t tsc_cycles);

#endif
