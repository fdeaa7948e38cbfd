/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC example (the flow of the "RDMA Aware Networks Programming User
 * Manual" example, written for rxd): what its parts share — the options,
 * the resources of one side, the peer's connection data — and the calls
 * between its files.
 */
#ifndef RC_EXAMPLE_H
#define RC_EXAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define RC_MSG_SIZE 64                    /* the buffer every step moves */
#define RC_MSG_SEND "SEND operation"
#define RC_MSG_READ "RDMA read operation"
#define RC_MSG_WRITE "RDMA write operation"

/* What the command line sets. */
struct rc_config {
	const char *dev_name;     /* NULL: the first device */
	const char *server_name;  /* NULL: run as the server */
	uint16_t tcp_port;
	uint8_t ib_port;
	uint8_t gid_idx;
};

/* What each side tells the other over TCP before connecting the QPs. */
struct rc_con_data {
	uint64_t addr;            /* buffer address */
	uint32_t rkey;
	uint32_t qp_num;
	uint16_t lid;
	uint8_t gid[16];
};

/* One side's verbs objects, its buffer and its TCP socket. */
struct rc_res {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_port_attr port_attr;
	char *buf;
	int sock;
	struct rc_con_data remote;
};

/* rc_opts.c */
int rc_opts_parse(int argc, char **argv, struct rc_config *cfg);
void rc_opts_usage(const char *prog);

/* rc_tcp.c: the TCP side channel */
int rc_tcp_connect(const struct rc_config *cfg);
int rc_tcp_exchange(int fd, const void *out, void *in, unsigned int len);
int rc_tcp_sync(int fd, char tag);
void rc_tcp_wait_close(int fd);

/* rc_res.c: device, PD, CQ, MR, QP */
int rc_res_open(struct rc_res *res, const struct rc_config *cfg);
int rc_res_create(struct rc_res *res, const struct rc_config *cfg);
void rc_res_destroy(struct rc_res *res);

/* rc_qp.c: connecting the QP, posting and polling */
int rc_qp_connect(struct rc_res *res, const struct rc_config *cfg);
int rc_post_send(struct rc_res *res, enum ibv_wr_opcode opcode);
int rc_post_receive(struct rc_res *res);
int rc_poll_completion(struct rc_res *res);

#endif
