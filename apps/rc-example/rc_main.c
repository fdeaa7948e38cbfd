/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-rc-example: the RC example of the "RDMA Aware Networks Programming
 * User Manual", written for rxd.  The server SENDs a message, the client
 * receives it, RDMA READs the server's buffer and RDMA WRITEs its own
 * message into it; the sides meet over TCP between the steps.
 *
 *   rxd-rc-example EAL... -- --ip 10.0.0.1/24 [options]           (server)
 *   rxd-rc-example EAL... -- --ip 10.0.0.2/24 [options] SERVER    (client)
 *
 * Without EAL arguments (no "--") rxd starts on the first verbs call from
 * RXD_EAL_ARGS and RXD_ADDR, as for unmodified verbs programs.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>

#include "rxd/rxd.h"

#include "rc_example.h"

static bool
has_eal_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return true;
	return false;
}

/* rte_eal_init() and rxd_start(); argv keeps only the example's options. */
static int
start_rxd(int *argc, char ***argv)
{
	int n = rte_eal_init(*argc, *argv);

	if (n < 0) {
		fprintf(stderr, "rc-example: EAL initialisation failed\n");
		return -1;
	}
	*argc -= n;
	*argv += n;
	if (rxd_start(argc, *argv) != 0) {
		fprintf(stderr, "rc-example: %s\n", rxd_last_error());
		rte_eal_cleanup();
		return -1;
	}
	return 0;
}

static void
print_config(const struct rc_config *cfg)
{
	printf(" ------------------------------------------------\n");
	printf(" Device name : \"%s\"\n", cfg->dev_name ? cfg->dev_name :
	       "(first)");
	printf(" IB port : %u\n", cfg->ib_port);
	if (cfg->server_name != NULL)
		printf(" IP : %s\n", cfg->server_name);
	printf(" TCP port : %u\n", cfg->tcp_port);
	printf(" GID index : %u\n", cfg->gid_idx);
	printf(" ------------------------------------------------\n");
}

static void
show(const char *what, const char *buf)
{
	printf("%s: '%.*s'\n", what, (int)strnlen(buf, RC_MSG_SIZE), buf);
}

static void
set_message(char *buf, const char *msg)
{
	memset(buf, 0, RC_MSG_SIZE);
	strcpy(buf, msg);
}

/* The server's steps: SEND, offer the buffer to READ, show the WRITE. */
static int
run_server(struct rc_res *res)
{
	if (rc_post_send(res, IBV_WR_SEND) < 0 || rc_poll_completion(res) < 0)
		return -1;
	show("Message sent by SEND", res->buf);
	set_message(res->buf, RC_MSG_READ);
	show("Buffer offered to RDMA READ", res->buf);
	if (rc_tcp_sync(res->sock, 'R') < 0 || rc_tcp_sync(res->sock, 'W') < 0)
		return -1;
	show("Buffer after the client's RDMA WRITE", res->buf);
	return 0;
}

/* The client's steps: receive the SEND, READ then WRITE the server's. */
static int
run_client(struct rc_res *res)
{
	if (rc_poll_completion(res) < 0)
		return -1;
	show("Message received by SEND", res->buf);
	if (rc_tcp_sync(res->sock, 'R') < 0)
		return -1;
	if (rc_post_send(res, IBV_WR_RDMA_READ) < 0 ||
	    rc_poll_completion(res) < 0)
		return -1;
	show("Server's buffer read by RDMA READ", res->buf);
	set_message(res->buf, RC_MSG_WRITE);
	if (rc_post_send(res, IBV_WR_RDMA_WRITE) < 0 ||
	    rc_poll_completion(res) < 0)
		return -1;
	show("Written to the server's buffer by RDMA WRITE", res->buf);
	return rc_tcp_sync(res->sock, 'W');
}

/*
 * The manual's example connects over TCP first and then opens the device;
 * here the device comes first, so that rxd (started lazily by the device
 * list) has its memif port up before the peer looks for it.
 */
static int
run(const struct rc_config *cfg, struct rc_res *res)
{
	if (rc_res_open(res, cfg) < 0)
		return -1;
	res->sock = rc_tcp_connect(cfg);
	if (res->sock < 0 || rc_res_create(res, cfg) < 0 ||
	    rc_qp_connect(res, cfg) < 0)
		return -1;
	return cfg->server_name ? run_client(res) : run_server(res);
}

/*
 * Release the verbs objects, then stop rxd.  The memif server must
 * outlive the client (DPDK 22.11 memif cleanup race), so the client closes
 * the TCP socket only after its stack is down and the server waits for
 * that before stopping its own.
 */
static void
teardown(const struct rc_config *cfg, struct rc_res *res, bool own_eal)
{
	rc_res_destroy(res);
	if (res->sock >= 0 && cfg->server_name == NULL)
		rc_tcp_wait_close(res->sock);
	rxd_stop();
	if (res->sock >= 0)
		close(res->sock);
	if (own_eal)
		rte_eal_cleanup();
}

int
main(int argc, char **argv)
{
	bool own_eal = has_eal_args(argc, argv);
	const char *prog = argv[0];
	struct rc_res res = { .sock = -1 };
	struct rc_config cfg;
	int rc;

	if (own_eal && start_rxd(&argc, &argv) < 0)
		return 1;
	if (rc_opts_parse(argc, argv, &cfg) < 0) {
		rc_opts_usage(prog);
		if (own_eal) {
			rxd_stop();
			rte_eal_cleanup();
		}
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	print_config(&cfg);
	rc = run(&cfg, &res);
	teardown(&cfg, &res, own_eal);
	printf("test result is %d\n", rc);
	return rc == 0 ? 0 : 1;
}
