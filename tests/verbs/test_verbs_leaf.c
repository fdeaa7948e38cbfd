/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/verbs: unit tests of the device-independent libibverbs calls in
 * lib/verbs (rxd_verbs_str.c, rxd_verbs_kern.c, rxd_verbs_sysfs.c,
 * rxd_verbs_fork.c, rxd_verbs_unsupported.c, rxd_verbs_private.c): the
 * text of every enum value, the rate conversions, the kernel-structure
 * copies field by field, sysfs file reads, and the error each unsupported
 * call reports.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

/* what lib/verbs exports and no installed header declares */
#include "rxd_verbs_compat.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Strings                                                              */

struct str_case {
	int value;
	const char *text;
};

static const struct str_case wc_cases[] = {
	{ IBV_WC_SUCCESS, "success" },
	{ IBV_WC_LOC_LEN_ERR, "local length error" },
	{ IBV_WC_LOC_QP_OP_ERR, "local QP operation error" },
	{ IBV_WC_LOC_EEC_OP_ERR, "local EE context operation error" },
	{ IBV_WC_LOC_PROT_ERR, "local protection error" },
	{ IBV_WC_WR_FLUSH_ERR, "Work Request Flushed Error" },
	{ IBV_WC_MW_BIND_ERR, "memory management operation error" },
	{ IBV_WC_BAD_RESP_ERR, "bad response error" },
	{ IBV_WC_LOC_ACCESS_ERR, "local access error" },
	{ IBV_WC_REM_INV_REQ_ERR, "remote invalid request error" },
	{ IBV_WC_REM_ACCESS_ERR, "remote access error" },
	{ IBV_WC_REM_OP_ERR, "remote operation error" },
	{ IBV_WC_RETRY_EXC_ERR, "transport retry counter exceeded" },
	{ IBV_WC_RNR_RETRY_EXC_ERR, "RNR retry counter exceeded" },
	{ IBV_WC_LOC_RDD_VIOL_ERR, "local RDD violation error" },
	{ IBV_WC_REM_INV_RD_REQ_ERR, "remote invalid RD request" },
	{ IBV_WC_REM_ABORT_ERR, "aborted error" },
	{ IBV_WC_INV_EECN_ERR, "invalid EE context number" },
	{ IBV_WC_INV_EEC_STATE_ERR, "invalid EE context state" },
	{ IBV_WC_FATAL_ERR, "fatal error" },
	{ IBV_WC_RESP_TIMEOUT_ERR, "response timeout error" },
	{ IBV_WC_GENERAL_ERR, "general error" },
	{ IBV_WC_TM_ERR, "TM error" },
	{ IBV_WC_TM_RNDV_INCOMPLETE, "TM software rendezvous" },
	{ IBV_WC_TM_RNDV_INCOMPLETE + 1, "unknown" },
	{ 1000, "unknown" },
	{ -1, "unknown" },
};

static const struct str_case event_cases[] = {
	{ IBV_EVENT_CQ_ERR, "CQ error" },
	{ IBV_EVENT_QP_FATAL, "local work queue catastrophic error" },
	{ IBV_EVENT_QP_REQ_ERR, "invalid request local work queue error" },
	{ IBV_EVENT_QP_ACCESS_ERR, "local access violation work queue error" },
	{ IBV_EVENT_COMM_EST, "communication established" },
	{ IBV_EVENT_SQ_DRAINED, "send queue drained" },
	{ IBV_EVENT_PATH_MIG, "path migrated" },
	{ IBV_EVENT_PATH_MIG_ERR, "path migration request error" },
	{ IBV_EVENT_DEVICE_FATAL, "local catastrophic error" },
	{ IBV_EVENT_PORT_ACTIVE, "port active" },
	{ IBV_EVENT_PORT_ERR, "port error" },
	{ IBV_EVENT_LID_CHANGE, "LID change" },
	{ IBV_EVENT_PKEY_CHANGE, "P_Key change" },
	{ IBV_EVENT_SM_CHANGE, "SM change" },
	{ IBV_EVENT_SRQ_ERR, "SRQ catastrophic error" },
	{ IBV_EVENT_SRQ_LIMIT_REACHED, "SRQ limit reached" },
	{ IBV_EVENT_QP_LAST_WQE_REACHED, "last WQE reached" },
	{ IBV_EVENT_CLIENT_REREGISTER, "client reregistration" },
	{ IBV_EVENT_GID_CHANGE, "GID table change" },
	{ IBV_EVENT_WQ_FATAL, "WQ fatal" },
	{ IBV_EVENT_WQ_FATAL + 1, "unknown" },
	{ -5, "unknown" },
};

static const struct str_case node_cases[] = {
	{ IBV_NODE_UNKNOWN, "unknown" },
	{ 0, "unknown" },
	{ IBV_NODE_CA, "InfiniBand channel adapter" },
	{ IBV_NODE_SWITCH, "InfiniBand switch" },
	{ IBV_NODE_ROUTER, "InfiniBand router" },
	{ IBV_NODE_RNIC, "iWARP NIC" },
	{ IBV_NODE_USNIC, "usNIC" },
	{ IBV_NODE_USNIC_UDP, "usNIC UDP" },
	{ IBV_NODE_UNSPECIFIED, "unspecified" },
	{ IBV_NODE_UNSPECIFIED + 1, "unknown" },
};

static const struct str_case port_cases[] = {
	{ IBV_PORT_NOP, "no state change (NOP)" },
	{ IBV_PORT_DOWN, "down" },
	{ IBV_PORT_INIT, "init" },
	{ IBV_PORT_ARMED, "armed" },
	{ IBV_PORT_ACTIVE, "active" },
	{ IBV_PORT_ACTIVE_DEFER, "active defer" },
	{ IBV_PORT_ACTIVE_DEFER + 1, "unknown" },
	{ -1, "unknown" },
};

Test(verbs_str, wc_status)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wc_cases); i++)
		cr_expect_str_eq(ibv_wc_status_str(wc_cases[i].value),
				 wc_cases[i].text, "status %d",
				 wc_cases[i].value);
}

Test(verbs_str, event_type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(event_cases); i++)
		cr_expect_str_eq(ibv_event_type_str(event_cases[i].value),
				 event_cases[i].text, "event %d",
				 event_cases[i].value);
}

Test(verbs_str, node_type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(node_cases); i++)
		cr_expect_str_eq(ibv_node_type_str(node_cases[i].value),
				 node_cases[i].text, "node type %d",
				 node_cases[i].value);
}

Test(verbs_str, port_state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(port_cases); i++)
		cr_expect_str_eq(ibv_port_state_str(port_cases[i].value),
				 port_cases[i].text, "port state %d",
				 port_cases[i].value);
}

/* ------------------------------------------------------------------ */
/* Rates                                                                */

struct rate_case {
	enum ibv_rate rate;
	int mult;       /* -1: no multiple */
	int mbps;
};

static const struct rate_case rate_cases[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },
	{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },
	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },
	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, -1, 14062 },
	{ IBV_RATE_56_GBPS, -1, 56250 },
	{ IBV_RATE_112_GBPS, -1, 112500 },
	{ IBV_RATE_168_GBPS, -1, 168750 },
	{ IBV_RATE_25_GBPS, -1, 25781 },
	{ IBV_RATE_100_GBPS, -1, 103125 },
	{ IBV_RATE_200_GBPS, -1, 206250 },
	{ IBV_RATE_300_GBPS, -1, 309375 },
	{ IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },
	{ IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },
	{ IBV_RATE_800_GBPS, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};

Test(verbs_rate, every_rate)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rate_cases); i++) {
		const struct rate_case *c = &rate_cases[i];

		cr_expect_eq(ibv_rate_to_mult(c->rate), c->mult, "rate %d",
			     c->rate);
		cr_expect_eq(ibv_rate_to_mbps(c->rate), c->mbps, "rate %d",
			     c->rate);
	}
}

Test(verbs_rate, round_trip)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rate_cases); i++) {
		const struct rate_case *c = &rate_cases[i];

		cr_expect_eq(mbps_to_ibv_rate(ibv_rate_to_mbps(c->rate)),
			     c->rate, "rate %d", c->rate);
		if (c->mult < 0)
			continue;
		cr_expect_eq(mult_to_ibv_rate(ibv_rate_to_mult(c->rate)),
			     c->rate, "rate %d", c->rate);
	}
}

Test(verbs_rate, unknown_values)
{
	static const int bad_rates[] = { -1, 0, 1, 25, 1000 };
	static const int bad_mults[] = { -1, 0, 3, 10, 40, 1000 };
	static const int bad_mbps[] = { -1, 0, 1, 2499, 25000, 100000 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_rates); i++) {
		cr_expect_eq(ibv_rate_to_mult(bad_rates[i]), -1);
		cr_expect_eq(ibv_rate_to_mbps(bad_rates[i]), -1);
	}
	for (i = 0; i < ARRAY_SIZE(bad_mults); i++)
		cr_expect_eq(mult_to_ibv_rate(bad_mults[i]), IBV_RATE_MAX,
			     "mult %d", bad_mults[i]);
	for (i = 0; i < ARRAY_SIZE(bad_mbps); i++)
		cr_expect_eq(mbps_to_ibv_rate(bad_mbps[i]), IBV_RATE_MAX,
			     "mbps %d", bad_mbps[i]);
}

/* ------------------------------------------------------------------ */
/* Kernel structure copies                                              */

static void
fill_kern_ah(struct ib_uverbs_ah_attr *a, uint8_t seed)
{
	unsigned int i;

	for (i = 0; i < sizeof(a->grh.dgid); i++)
		a->grh.dgid[i] = (uint8_t)(seed + i);
	a->grh.flow_label = 0x12345u + seed;
	a->grh.sgid_index = (uint8_t)(seed + 1);
	a->grh.hop_limit = (uint8_t)(seed + 2);
	a->grh.traffic_class = (uint8_t)(seed + 3);
	a->dlid = (uint16_t)(0x1200 + seed);
	a->sl = (uint8_t)(seed + 4);
	a->src_path_bits = (uint8_t)(seed + 5);
	a->static_rate = (uint8_t)(seed + 6);
	a->is_global = 1;
	a->port_num = (uint8_t)(seed + 7);
}

static void
check_ah(const struct ibv_ah_attr *d, const struct ib_uverbs_ah_attr *s)
{
	cr_expect_arr_eq(d->grh.dgid.raw, s->grh.dgid, 16);
	cr_expect_eq(d->grh.flow_label, s->grh.flow_label);
	cr_expect_eq(d->grh.sgid_index, s->grh.sgid_index);
	cr_expect_eq(d->grh.hop_limit, s->grh.hop_limit);
	cr_expect_eq(d->grh.traffic_class, s->grh.traffic_class);
	cr_expect_eq(d->dlid, s->dlid);
	cr_expect_eq(d->sl, s->sl);
	cr_expect_eq(d->src_path_bits, s->src_path_bits);
	cr_expect_eq(d->static_rate, s->static_rate);
	cr_expect_eq(d->is_global, s->is_global);
	cr_expect_eq(d->port_num, s->port_num);
}

Test(verbs_kern, ah_attr)
{
	struct ib_uverbs_ah_attr k;
	struct ibv_ah_attr a;

	memset(&k, 0, sizeof(k));
	memset(&a, 0xa5, sizeof(a));
	fill_kern_ah(&k, 0x10);
	ibv_copy_ah_attr_from_kern(&a, &k);
	check_ah(&a, &k);
}

Test(verbs_kern, qp_attr)
{
	struct ib_uverbs_qp_attr k;
	struct ibv_qp_attr q;

	memset(&k, 0, sizeof(k));
	k.qp_attr_mask = 0xffffffffu;
	k.qp_state = IBV_QPS_RTS;
	k.cur_qp_state = IBV_QPS_RTR;
	k.path_mtu = IBV_MTU_4096;
	k.path_mig_state = IBV_MIG_ARMED;
	k.qkey = 0x11111111;
	k.rq_psn = 0x222222;
	k.sq_psn = 0x333333;
	k.dest_qp_num = 0x444444;
	k.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	fill_kern_ah(&k.ah_attr, 0x20);
	fill_kern_ah(&k.alt_ah_attr, 0x40);
	k.max_send_wr = 101;
	k.max_recv_wr = 102;
	k.max_send_sge = 103;
	k.max_recv_sge = 104;
	k.max_inline_data = 105;
	k.pkey_index = 106;
	k.alt_pkey_index = 107;
	k.en_sqd_async_notify = 1;
	k.sq_draining = 1;
	k.max_rd_atomic = 108;
	k.max_dest_rd_atomic = 109;
	k.min_rnr_timer = 110;
	k.port_num = 1;
	k.timeout = 111;
	k.retry_cnt = 7;
	k.rnr_retry = 6;
	k.alt_port_num = 2;
	k.alt_timeout = 112;

	memset(&q, 0, sizeof(q));
	q.qp_state = IBV_QPS_INIT;      /* the caller's: kept, as in Debian */
	q.rate_limit = 0xdeadbeef;      /* no kernel counterpart: kept */
	ibv_copy_qp_attr_from_kern(&q, &k);
	cr_expect_eq(q.qp_state, IBV_QPS_INIT);
	cr_expect_eq(q.cur_qp_state, IBV_QPS_RTR);
	cr_expect_eq(q.path_mtu, IBV_MTU_4096);
	cr_expect_eq(q.path_mig_state, IBV_MIG_ARMED);
	cr_expect_eq(q.qkey, 0x11111111u);
	cr_expect_eq(q.rq_psn, 0x222222u);
	cr_expect_eq(q.sq_psn, 0x333333u);
	cr_expect_eq(q.dest_qp_num, 0x444444u);
	cr_expect_eq(q.qp_access_flags,
		     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	cr_expect_eq(q.cap.max_send_wr, 101u);
	cr_expect_eq(q.cap.max_recv_wr, 102u);
	cr_expect_eq(q.cap.max_send_sge, 103u);
	cr_expect_eq(q.cap.max_recv_sge, 104u);
	cr_expect_eq(q.cap.max_inline_data, 105u);
	check_ah(&q.ah_attr, &k.ah_attr);
	check_ah(&q.alt_ah_attr, &k.alt_ah_attr);
	cr_expect_eq(q.pkey_index, 106);
	cr_expect_eq(q.alt_pkey_index, 107);
	cr_expect_eq(q.en_sqd_async_notify, 1);
	cr_expect_eq(q.sq_draining, 1);
	cr_expect_eq(q.max_rd_atomic, 108);
	cr_expect_eq(q.max_dest_rd_atomic, 109);
	cr_expect_eq(q.min_rnr_timer, 110);
	cr_expect_eq(q.port_num, 1);
	cr_expect_eq(q.timeout, 111);
	cr_expect_eq(q.retry_cnt, 7);
	cr_expect_eq(q.rnr_retry, 6);
	cr_expect_eq(q.alt_port_num, 2);
	cr_expect_eq(q.alt_timeout, 112);
	cr_expect_eq(q.rate_limit, 0xdeadbeefu);
}

static void
fill_kern_path(struct ib_user_path_rec *p)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < 16; i++) {
		p->dgid[i] = (uint8_t)(0x80 + i);
		p->sgid[i] = (uint8_t)(0xc0 + i);
	}
	p->dlid = htobe16(0x1234);
	p->slid = htobe16(0x5678);
	p->raw_traffic = 1;
	p->flow_label = htobe32(0xabcde);
	p->reversible = 1;
	p->mtu = IBV_MTU_1024;
	p->pkey = htobe16(0xffff);
	p->hop_limit = 64;
	p->traffic_class = 0x28;
	p->numb_path = 3;
	p->sl = 5;
	p->mtu_selector = 2;
	p->rate_selector = 1;
	p->rate = IBV_RATE_100_GBPS;
	p->packet_life_time_selector = 3;
	p->packet_life_time = 18;
	p->preference = 9;
}

Test(verbs_kern, path_rec_from_kern)
{
	struct ib_user_path_rec k;
	struct ibv_sa_path_rec p;

	fill_kern_path(&k);
	memset(&p, 0x5a, sizeof(p));
	ibv_copy_path_rec_from_kern(&p, &k);
	cr_expect_arr_eq(p.dgid.raw, k.dgid, 16);
	cr_expect_arr_eq(p.sgid.raw, k.sgid, 16);
	cr_expect_eq(p.dlid, htobe16(0x1234));
	cr_expect_eq(p.slid, htobe16(0x5678));
	cr_expect_eq(p.raw_traffic, 1);
	cr_expect_eq(p.flow_label, htobe32(0xabcde));
	cr_expect_eq(p.reversible, 1);
	cr_expect_eq(p.mtu, IBV_MTU_1024);
	cr_expect_eq(p.pkey, htobe16(0xffff));
	cr_expect_eq(p.hop_limit, 64);
	cr_expect_eq(p.traffic_class, 0x28);
	cr_expect_eq(p.numb_path, 3);
	cr_expect_eq(p.sl, 5);
	cr_expect_eq(p.mtu_selector, 2);
	cr_expect_eq(p.rate_selector, 1);
	cr_expect_eq(p.rate, IBV_RATE_100_GBPS);
	cr_expect_eq(p.packet_life_time_selector, 3);
	cr_expect_eq(p.packet_life_time, 18);
	cr_expect_eq(p.preference, 9);
}

Test(verbs_kern, path_rec_round_trip)
{
	struct ib_user_path_rec k, back;
	struct ibv_sa_path_rec p;

	fill_kern_path(&k);
	memset(&back, 0xee, sizeof(back));
	ibv_copy_path_rec_from_kern(&p, &k);
	ibv_copy_path_rec_to_kern(&back, &p);
	cr_expect_arr_eq(&back, &k, sizeof(k));
}

/* ------------------------------------------------------------------ */
/* sysfs                                                                */

static char sysfs_dir[64];

static void
write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysfs_dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static void
sysfs_setup(void)
{
	strcpy(sysfs_dir, "/tmp/rxd-verbs-sysfs-XXXXXX");
	cr_assert_not_null(mkdtemp(sysfs_dir));
	write_file("nl", "abc\n");
	write_file("nonl", "abc");
	write_file("empty", "");
	write_file("twonl", "a\n\n");
}

static void
sysfs_teardown(void)
{
	static const char *const names[] = { "nl", "nonl", "empty", "twonl" };
	char path[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", sysfs_dir, names[i]);
		unlink(path);
	}
	rmdir(sysfs_dir);
}

/* Read @file into a buffer of @size bytes pre-filled with 'Z'. */
static int
read_case(const char *file, size_t size, char *buf)
{
	memset(buf, 'Z', 16);
	errno = 0;
	return ibv_read_sysfs_file(sysfs_dir, file, buf, size);
}

Test(verbs_sysfs, read_strips_newline, .init = sysfs_setup,
     .fini = sysfs_teardown)
{
	char buf[16];

	cr_expect_eq(read_case("nl", sizeof(buf), buf), 3);
	cr_expect_str_eq(buf, "abc");
	cr_expect_eq(read_case("nl", 4, buf), 3, "newline makes room");
	cr_expect_str_eq(buf, "abc");
	cr_expect_eq(read_case("twonl", sizeof(buf), buf), 2);
	cr_expect_str_eq(buf, "a\n", "only one newline dropped");
}

Test(verbs_sysfs, read_without_newline, .init = sysfs_setup,
     .fini = sysfs_teardown)
{
	char buf[16];

	cr_expect_eq(read_case("nonl", sizeof(buf), buf), 3);
	cr_expect_str_eq(buf, "abc");
	cr_expect_eq(read_case("nonl", 4, buf), 3);
	cr_expect_str_eq(buf, "abc");
}

Test(verbs_sysfs, read_too_long, .init = sysfs_setup,
     .fini = sysfs_teardown)
{
	char buf[16];

	cr_expect_eq(read_case("nonl", 3, buf), -1);
	cr_expect_eq(errno, EOVERFLOW);
	cr_expect_eq(read_case("nl", 3, buf), -1);
	cr_expect_eq(buf[3], 'Z', "nothing written past the buffer");
}

Test(verbs_sysfs, read_empty_and_errors, .init = sysfs_setup,
     .fini = sysfs_teardown)
{
	char buf[16];

	cr_expect_eq(read_case("empty", sizeof(buf), buf), 0);
	cr_expect_eq(buf[0], '\0');
	cr_expect_eq(read_case("nl", 0, buf), 0, "size 0 reads nothing");
	cr_expect_eq(buf[0], 'Z');
	cr_expect_eq(read_case("absent", sizeof(buf), buf), -1);
	cr_expect_eq(errno, ENOENT);
	memset(buf, 'Z', sizeof(buf));
	cr_expect_eq(ibv_read_sysfs_file("/tmp", sysfs_dir + 5, buf,
					 sizeof(buf)), -1, "a directory");
	cr_expect_eq(errno, EISDIR);
	cr_expect_eq(ibv_read_sysfs_file("/sys/class/infiniband/rxd0",
					 "board_id", buf, sizeof(buf)), -1,
		     "rxd devices are not in sysfs");
}

/* Each Criterion test runs in a fresh process: the path is not cached. */
Test(verbs_sysfs, path_default)
{
	unsetenv("SYSFS_PATH");
	cr_expect_str_eq(ibv_get_sysfs_path(), "/sys");
}

Test(verbs_sysfs, path_from_env)
{
	setenv("SYSFS_PATH", "/tmp/fake-sys//", 1);
	cr_expect_str_eq(ibv_get_sysfs_path(), "/tmp/fake-sys");
	setenv("SYSFS_PATH", "/elsewhere", 1);
	cr_expect_str_eq(ibv_get_sysfs_path(), "/tmp/fake-sys",
			 "fixed by the first call");
}

Test(verbs_sysfs, path_env_limits)
{
	char longp[400];

	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	setenv("SYSFS_PATH", longp, 1);
	cr_expect_eq(strlen(ibv_get_sysfs_path()), 256u);
	cr_expect_eq(strncmp(ibv_get_sysfs_path(), longp, 256), 0);
}

Test(verbs_sysfs, path_env_root)
{
	setenv("SYSFS_PATH", "/", 1);
	cr_expect_str_eq(ibv_get_sysfs_path(), "", "trailing '/' removed");
}

/* ------------------------------------------------------------------ */
/* fork                                                                 */

Test(verbs_fork, unneeded)
{
	char page[64];

	cr_expect_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	cr_expect_eq(ibv_fork_init(), 0);
	cr_expect_eq(ibv_fork_init(), 0, "again, any time");
	cr_expect_eq(ibv_is_fork_initialized(), IBV_FORK_UNNEEDED);
	cr_expect_eq(ibv_dontfork_range(page, sizeof(page)), 0);
	cr_expect_eq(ibv_dofork_range(page, sizeof(page)), 0);
}

/* ------------------------------------------------------------------ */
/* Unsupported public verbs                                             */

/* Check a NULL return with errno @err. */
#define expect_null_errno(call, err) do { \
		errno = 0; \
		cr_expect_null(call, #call); \
		cr_expect_eq(errno, err, #call " errno %d", errno); \
	} while (0)

Test(verbs_unsupported, pointer_calls)
{
	expect_null_errno(ibv_import_device(3), EOPNOTSUPP);
	expect_null_errno(ibv_import_pd(NULL, 1), EOPNOTSUPP);
	expect_null_errno(ibv_import_mr(NULL, 1), EOPNOTSUPP);
	expect_null_errno(ibv_import_dm(NULL, 1), EOPNOTSUPP);
	expect_null_errno(ibv_reg_dmabuf_mr(NULL, 0, 4096, 0, 3,
					    IBV_ACCESS_LOCAL_WRITE),
			  EOPNOTSUPP);
}

Test(verbs_unsupported, int_calls)
{
	struct ibv_ece ece = { 0 };
	uint8_t mac[ETHERNET_LL_SIZE];
	struct ibv_ah_attr ah = { 0 };
	uint16_t vid;

	errno = ECONNREFUSED;
	cr_expect_eq(ibv_query_ece(NULL, &ece), EOPNOTSUPP);
	cr_expect_eq(errno, EOPNOTSUPP);
	errno = ECONNREFUSED;   /* librdmacm would reject the connection */
	cr_expect_eq(ibv_set_ece(NULL, &ece), EOPNOTSUPP);
	cr_expect_eq(errno, EOPNOTSUPP);
	cr_expect_eq(ibv_query_qp_data_in_order(NULL, IBV_WR_RDMA_WRITE, 0),
		     0, "no in-order guarantee");
	errno = 0;
	cr_expect_eq(ibv_resolve_eth_l2_from_gid(NULL, &ah, mac, &vid),
		     -EOPNOTSUPP);
	cr_expect_eq(errno, EOPNOTSUPP);
}

Test(verbs_unsupported, unimport_is_harmless)
{
	ibv_unimport_pd(NULL);
	ibv_unimport_mr(NULL);
	ibv_unimport_dm(NULL);
}

/* ------------------------------------------------------------------ */
/* Provider-private symbols                                             */

Test(verbs_private, cmd_stubs)
{
	const struct rxd_verbs_stub *s;
	unsigned int n = 0;

	for (s = rxd_verbs_private_stubs; s->name != NULL; s++, n++) {
		errno = 0;
		cr_expect_eq(s->fn(), ENOSYS, "%s", s->name);
		cr_expect_eq(errno, ENOSYS, "%s errno", s->name);
		cr_expect_eq(strncmp(s->name, "ibv_cmd_", 8), 0);
	}
	/* 59 ibv_cmd_* in IBVERBS_PRIVATE_34, ibv_cmd_poll_cq apart. */
	cr_expect_eq(n, 58u);
	errno = 0;
	cr_expect_eq(ibv_cmd_poll_cq(), -1);
	cr_expect_eq(errno, ENOSYS);
}

Test(verbs_private, other_calls)
{
	char buf[8] = "x";

	cr_expect_eq(execute_ioctl(NULL, NULL), ENOSYS);
	cr_expect_eq(__ioctl_final_num_attrs(5, NULL), 5u);
	expect_null_errno(_verbs_init_and_alloc_context(NULL, -1, 64, NULL, 0),
			  ENOSYS);
	expect_null_errno(verbs_open_device(NULL, NULL), ENOSYS);
	errno = 0;
	cr_expect_eq(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), NULL,
					       "ports/%d/gids/%d", 1, 0), -1);
	cr_expect_eq(errno, ENOSYS);
	cr_expect_str_eq(buf, "x", "buffer untouched");
	cr_expect_not(verbs_allow_disassociate_destroy);
}

Test(verbs_private, void_calls_do_nothing)
{
	struct ibv_cq cq;
	struct ibv_cq zero;

	memset(&cq, 0, sizeof(cq));
	memset(&zero, 0, sizeof(zero));
	verbs_init_cq(&cq, NULL, NULL, NULL);
	cr_expect_arr_eq(&cq, &zero, sizeof(cq));
	verbs_set_ops(NULL, NULL);
	verbs_uninit_context(NULL);
	verbs_register_driver_34(NULL);
	__verbs_log(NULL, 0, "%s", "ignored");
}
