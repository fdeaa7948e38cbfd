/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC example's resources: find and open the device; later wait for
 * its port to be active and make a PD, a CQ, a registered buffer and an RC
 * QP; and their release, in reverse order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rxd/rxd.h"

#include "rc_example.h"

#define PORT_WAIT_MS 30000

static struct ibv_context *
open_device(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (list == NULL || n == 0) {
		fprintf(stderr, "rc-example: no verbs device found\n");
		ibv_free_device_list(list);
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (name == NULL || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n)
		fprintf(stderr, "rc-example: no device named %s\n", name);
	else
		ctx = ibv_open_device(list[i]);
	if (i < n && ctx == NULL)
		fprintf(stderr, "rc-example: cannot open %s\n", name);
	ibv_free_device_list(list);
	return ctx;
}

/* A memif port is up only once its peer is there: wait for it. */
static int
wait_port_active(struct rc_res *res, uint8_t port)
{
	int ms;

	for (ms = 0; ms < PORT_WAIT_MS; ms++) {
		if (ibv_query_port(res->ctx, port, &res->port_attr) != 0) {
			fprintf(stderr, "rc-example: cannot query port %u\n",
				port);
			return -1;
		}
		if (res->port_attr.state == IBV_PORT_ACTIVE)
			return 0;
		if (rxd_inline_progress())
			rxd_poll();
		usleep(1000);
	}
	fprintf(stderr, "rc-example: port %u still down after %d ms\n", port,
		PORT_WAIT_MS);
	return -1;
}

static int
create_qp(struct rc_res *res)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = res->cq,
		.recv_cq = res->cq,
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	res->qp = ibv_create_qp(res->pd, &attr);
	if (res->qp == NULL) {
		fprintf(stderr, "rc-example: cannot create the QP\n");
		return -1;
	}
	printf("QP 0x%x created\n", res->qp->qp_num);
	return 0;
}

int
rc_res_open(struct rc_res *res, const struct rc_config *cfg)
{
	res->ctx = open_device(cfg->dev_name);
	return res->ctx != NULL ? 0 : -1;
}

int
rc_res_create(struct rc_res *res, const struct rc_config *cfg)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_WRITE;

	if (wait_port_active(res, cfg->ib_port) < 0)
		return -1;
	res->pd = ibv_alloc_pd(res->ctx);
	if (res->pd == NULL) {
		fprintf(stderr, "rc-example: cannot allocate a PD\n");
		return -1;
	}
	res->cq = ibv_create_cq(res->ctx, 1, NULL, NULL, 0);
	if (res->cq == NULL) {
		fprintf(stderr, "rc-example: cannot create a CQ\n");
		return -1;
	}
	res->buf = calloc(1, RC_MSG_SIZE);
	if (res->buf == NULL) {
		fprintf(stderr, "rc-example: out of memory\n");
		return -1;
	}
	if (cfg->server_name == NULL)
		strcpy(res->buf, RC_MSG_SEND);
	res->mr = ibv_reg_mr(res->pd, res->buf, RC_MSG_SIZE, access);
	if (res->mr == NULL) {
		fprintf(stderr, "rc-example: cannot register the buffer\n");
		return -1;
	}
	printf("MR registered: addr %p, lkey 0x%x, rkey 0x%x, flags 0x%x\n",
	       (void *)res->buf, res->mr->lkey, res->mr->rkey, access);
	return create_qp(res);
}

/* Release whatever rc_res_create() made, even after it failed midway. */
void
rc_res_destroy(struct rc_res *res)
{
	if (res->qp != NULL && ibv_destroy_qp(res->qp) != 0)
		fprintf(stderr, "rc-example: cannot destroy the QP\n");
	if (res->mr != NULL && ibv_dereg_mr(res->mr) != 0)
		fprintf(stderr, "rc-example: cannot deregister the MR\n");
	free(res->buf);
	if (res->cq != NULL && ibv_destroy_cq(res->cq) != 0)
		fprintf(stderr, "rc-example: cannot destroy the CQ\n");
	if (res->pd != NULL && ibv_dealloc_pd(res->pd) != 0)
		fprintf(stderr, "rc-example: cannot deallocate the PD\n");
	if (res->ctx != NULL && ibv_close_device(res->ctx) != 0)
		fprintf(stderr, "rc-example: cannot close the device\n");
	*res = (struct rc_res){ .sock = res->sock };
}
