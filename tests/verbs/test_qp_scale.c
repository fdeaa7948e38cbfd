/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Many QPs in one process: 10,000 RC QPs (16 send and 16 receive WRs)
 * with EAL's -m 2048 are created, then destroyed, and DPDK's heap is back
 * where it started; past the memory there is, ibv_create_qp fails with
 * ENOMEM and nothing is left behind.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <infiniband/verbs.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "rxd/rxd.h"
#include "rxd_test_eal.h"

#define N_QPS 10000

static struct ibv_context *ctx;
static struct ibv_device **list;
static struct ibv_pd *pd;
static struct ibv_cq *cq;

static void
start(void)
{
	int n = 0;

	cr_assert_geq(rxd_test_eal("-l 0-1 -m 2048 --no-shconf "
		"--vdev=net_ring0"), 0);
	cr_assert_eq(rxd_test_rxd("--ip 10.0.0.1/24"), 0, "%s",
		     rxd_last_error());
	list = ibv_get_device_list(&n);
	cr_assert_eq(n, 1);
	ctx = ibv_open_device(list[0]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 1024, NULL, NULL, 0);
	cr_assert(ctx != NULL && pd != NULL && cq != NULL);
}

static void
stop(void)
{
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	rxd_stop();
	rte_eal_cleanup();
}

TestSuite(qp_scale, .init = start, .fini = stop, .timeout = 300);

static struct ibv_qp *
rc_qp(uint32_t wr)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &a);
}

static size_t
heap_in_use(void)
{
	struct rte_malloc_socket_stats s;

	cr_assert_eq(rte_malloc_get_socket_stats((int)rte_socket_id(), &s), 0);
	return s.heap_allocsz_bytes;
}

static void
destroy_all(struct ibv_qp **qps, int n)
{
	int i;

	for (i = 0; i < n; i++)
		cr_assert_eq(ibv_destroy_qp(qps[i]), 0, "destroy QP %d", i);
}

Test(qp_scale, ten_thousand_qps)
{
	struct ibv_qp **qps = calloc(N_QPS, sizeof(*qps));
	size_t before = heap_in_use();
	int i;

	for (i = 0; i < N_QPS; i++) {
		qps[i] = rc_qp(16);
		cr_assert_not_null(qps[i], "QP %d: %s", i, strerror(errno));
	}
	cr_assert_gt(heap_in_use(), before);
	destroy_all(qps, N_QPS);
	cr_assert_eq(heap_in_use(), before, "DPDK heap: %zu bytes before, "
		     "%zu after", before, heap_in_use());
	free(qps);
}

Test(qp_scale, memory_runs_out_with_enomem)
{
	struct ibv_qp **qps = calloc(N_QPS, sizeof(*qps));
	size_t before = heap_in_use();
	int n;

	for (n = 0; n < N_QPS && (qps[n] = rc_qp(1024)) != NULL; n++)
		;
	cr_assert_lt(n, N_QPS, "2 GiB held 10,000 QPs of 1024 WRs");
	cr_assert_eq(errno, ENOMEM, "%s", strerror(errno));
	destroy_all(qps, n);
	cr_assert_eq(heap_in_use(), before);
	qps[0] = rc_qp(16);
	cr_assert_not_null(qps[0], "a QP after the others went");
	destroy_all(qps, 1);
	free(qps);
}
