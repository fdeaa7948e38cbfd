/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fork-after-start: fork() after rxd started, as ibv_fork_init's rules
 * describe it.  The program starts rxd lazily (ibv_get_device_list, from
 * RXD_EAL_ARGS and RXD_ADDR), sets up an RC QP, then forks a child that
 * must get a clear error from ibv_get_device_list and ibv_open_device
 * (ENODEV) and exits through exit(), running the atexit handlers.  The
 * parent must be unharmed: it then connects its QP to the peer process
 * (the same program in the other role, QPNs exchanged over a UNIX socket)
 * and one 4 KiB SEND must arrive intact.  Exit 0 only if all held.
 *
 * Usage: fork-after-start server|client SOCKET_PATH
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "rxd_test_pattern.h"
#include "rxd_test_qp.h"
#include "rxd_test_sock.h"

#define LEN 4096u

static struct ibv_device **list;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static uint8_t buf[LEN];
static int failures;

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } while (0)

static void
setup(void)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_context *ctx;
	struct ibv_pd *pd;

	list = ibv_get_device_list(NULL);
	if (list == NULL || list[0] == NULL) {
		fprintf(stderr, "fork-after-start: no device: %s\n",
			strerror(errno));
		exit(2);
	}
	ctx = ibv_open_device(list[0]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = ctx ? ibv_create_cq(ctx, 8, NULL, NULL, 0) : NULL;
	mr = pd ? ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE) : NULL;
	qa.send_cq = qa.recv_cq = cq;
	qp = pd && cq ? ibv_create_qp(pd, &qa) : NULL;
	if (qp == NULL || mr == NULL) {
		fprintf(stderr, "fork-after-start: verbs setup failed\n");
		exit(2);
	}
}

/* The child: rxd is its parent's; it must say so and leave it alone. */
static void
child(void)
{
	int bad = 0;

	errno = 0;
	if (ibv_get_device_list(NULL) != NULL || errno != ENODEV) {
		fprintf(stderr, "FAIL: child: ibv_get_device_list: %s\n",
			strerror(errno));
		bad = 1;
	}
	errno = 0;
	if (ibv_open_device(list[0]) != NULL || errno != ENODEV) {
		fprintf(stderr, "FAIL: child: ibv_open_device: %s\n",
			strerror(errno));
		bad = 1;
	}
	exit(bad);
}

static void
fork_child(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		child();
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("the fork child did not get its ENODEV and exit 0");
}

/* One completion within 20 s; status -1 when none came. */
static struct ibv_wc
wait_wc(void)
{
	struct ibv_wc wc = { .status = (enum ibv_wc_status)-1 };
	time_t end = time(NULL) + 20;

	while (time(NULL) < end)
		if (ibv_poll_cq(cq, 1, &wc) == 1)
			return wc;
	wc.status = (enum ibv_wc_status)-1;
	return wc;
}

static void
transfer(bool is_server, int s)
{
	struct ibv_sge sge = { (uintptr_t)buf, LEN, mr->lkey };
	struct ibv_recv_wr rw = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr sw = { .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_wc wc;
	char r;

	if (is_server) {
		if (ibv_post_recv(qp, &rw, &rbad) || write(s, "R", 1) != 1)
			FAIL("post receive");
	} else {
		rxd_test_fill(buf, LEN, 7);
		if (read(s, &r, 1) != 1 || ibv_post_send(qp, &sw, &sbad))
			FAIL("post send");
	}
	wc = wait_wc();
	if (wc.status != IBV_WC_SUCCESS)
		FAIL("completion status %d", (int)wc.status);
	if (is_server && !rxd_test_holds(buf, LEN, 7))
		FAIL("the SEND arrived damaged");
}

int
main(int argc, char **argv)
{
	struct rxd_test_rc_path path = { .rq_psn = 0x10, .sq_psn = 0x10,
		.rd_atomic = 1, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.path_mtu = IBV_MTU_1024 };
	uint32_t peer_qpn;
	bool is_server;
	int s;

	if (argc != 3) {
		fprintf(stderr, "usage: fork-after-start server|client SOCKET\n");
		return 2;
	}
	is_server = strcmp(argv[1], "server") == 0;
	setup();
	fork_child();
	s = rxd_test_sock_open(is_server, argv[2]);
	if (s < 0 || write(s, &qp->qp_num, 4) != 4 ||
	    read(s, &peer_qpn, 4) != 4) {
		fprintf(stderr, "fork-after-start: exchange failed\n");
		return 2;
	}
	path.dest_qpn = peer_qpn;
	rxd_test_gid_v4(path.dgid, 10, 0, 0, is_server ? 2 : 1);
	if (rxd_test_rc_connect(qp, &path))
		FAIL("INIT/RTR/RTS");
	else
		transfer(is_server, s);
	close(s);
	printf("%s: %s\n", argv[1], failures ? "FAILED" : "all checks passed");
	return failures ? 1 : 0;
}
