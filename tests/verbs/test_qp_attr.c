/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/verbs/rxd_qp_attr.c, the ibv_modify_qp() validator: the
 * legal transitions and their required/optional attribute masks per QP type
 * (checked against an expected table written out here independently, in a
 * different shape), every value range, PSN masking, the RESET defaults and
 * IBV_QP_CUR_STATE.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "rxd_qp_attr.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define NSTATES (IBV_QPS_ERR + 1)

static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };

/* Every attribute bit libibverbs defines except IBV_QP_STATE. */
static const int attr_bits[] = {
	IBV_QP_CUR_STATE, IBV_QP_EN_SQD_ASYNC_NOTIFY, IBV_QP_ACCESS_FLAGS,
	IBV_QP_PKEY_INDEX, IBV_QP_PORT, IBV_QP_QKEY, IBV_QP_AV,
	IBV_QP_PATH_MTU, IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY,
	IBV_QP_RQ_PSN, IBV_QP_MAX_QP_RD_ATOMIC, IBV_QP_ALT_PATH,
	IBV_QP_MIN_RNR_TIMER, IBV_QP_SQ_PSN, IBV_QP_MAX_DEST_RD_ATOMIC,
	IBV_QP_PATH_MIG_STATE, IBV_QP_CAP, IBV_QP_DEST_QPN, IBV_QP_RATE_LIMIT,
};

/*
 * The expected table, one row per (type, from, to) from IBTA vol. 1
 * 11.2.5.  Any state -> RESET and any state -> ERR (nothing required or
 * optional) are implied and not listed.
 */
struct expect_row {
	enum ibv_qp_type type;
	enum ibv_qp_state from, to;
	int req, opt;
};

static const struct expect_row expect_rows[] = {
	/* RESET -> INIT */
	{ IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_INIT,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ IBV_QPT_UC, IBV_QPS_RESET, IBV_QPS_INIT,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, 0 },
	/* INIT -> INIT */
	{ IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_INIT,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
	{ IBV_QPT_UC, IBV_QPS_INIT, IBV_QPS_INIT,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
	{ IBV_QPT_UD, IBV_QPS_INIT, IBV_QPS_INIT,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY },
	/* INIT -> RTR */
	{ IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ IBV_QPT_UC, IBV_QPS_INIT, IBV_QPS_RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ IBV_QPT_UD, IBV_QPS_INIT, IBV_QPS_RTR,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
	/* RTR -> RTS */
	{ IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS,
	  IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UC, IBV_QPS_RTR, IBV_QPS_RTS,
	  IBV_QP_SQ_PSN,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UD, IBV_QPS_RTR, IBV_QPS_RTS,
	  IBV_QP_SQ_PSN, IBV_QP_CUR_STATE | IBV_QP_QKEY },
	/* RTS -> RTS */
	{ IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_RTS,
	  0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
	  IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER },
	{ IBV_QPT_UC, IBV_QPS_RTS, IBV_QPS_RTS,
	  0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_RTS,
	  0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
	/* RTS -> SQD */
	{ IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	{ IBV_QPT_UC, IBV_QPS_RTS, IBV_QPS_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	{ IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	/* SQD -> SQD */
	{ IBV_QPT_RC, IBV_QPS_SQD, IBV_QPS_SQD,
	  0, IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
	  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PKEY_INDEX | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UC, IBV_QPS_SQD, IBV_QPS_SQD,
	  0, IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UD, IBV_QPS_SQD, IBV_QPS_SQD,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
	/* SQD -> RTS */
	{ IBV_QPT_RC, IBV_QPS_SQD, IBV_QPS_RTS,
	  0, IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UC, IBV_QPS_SQD, IBV_QPS_RTS,
	  0, IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UD, IBV_QPS_SQD, IBV_QPS_RTS,
	  0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
	/* SQE -> RTS: UC and UD only (an RC QP never is in SQE) */
	{ IBV_QPT_UC, IBV_QPS_SQE, IBV_QPS_RTS,
	  0, IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS },
	{ IBV_QPT_UD, IBV_QPS_SQE, IBV_QPS_RTS,
	  0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
};

/* The expected verdict for (type, from, to); fills req/opt if legal. */
static bool
expect_legal(enum ibv_qp_type type, int from, int to, int *req, int *opt)
{
	size_t i;

	*req = 0;
	*opt = 0;
	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR)
		return true;
	for (i = 0; i < ARRAY_LEN(expect_rows); i++) {
		const struct expect_row *r = &expect_rows[i];

		if (r->type == type && (int)r->from == from &&
		    (int)r->to == to) {
			*req = r->req;
			*opt = r->opt;
			return true;
		}
	}
	return false;
}

static const struct rxd_qp_limits lim4096 = {
	.max_mtu = IBV_MTU_4096,
	.gid_tbl_len = 16,
	.pkey_tbl_len = 1,
	.phys_port_cnt = 1,
	.max_rd_atomic = 16,
	.max_dest_rd_atomic = 16,
	.max_send_wr = 4096, .max_recv_wr = 4096,
	.max_send_sge = 16, .max_recv_sge = 16, .max_inline_data = 256,
};

/* A request with a valid value in every attribute (from -> to). */
static struct ibv_qp_attr
good_attr(int from, int to)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = (enum ibv_qp_state)to;
	a.cur_qp_state = (enum ibv_qp_state)from;
	a.path_mtu = IBV_MTU_1024;
	a.path_mig_state = IBV_MIG_MIGRATED;
	a.qkey = 0x11111111;
	a.rq_psn = 0x123;
	a.sq_psn = 0x456;
	a.dest_qp_num = 0x12;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.pkey_index = 0;
	a.en_sqd_async_notify = 1;
	a.max_rd_atomic = 4;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.port_num = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return a;
}

static struct rxd_qp_state
qp_in(enum ibv_qp_type type, int state)
{
	struct rxd_qp_state qp;

	rxd_qp_state_init(&qp, type);
	qp.attr.qp_state = (enum ibv_qp_state)state;
	qp.attr.cur_qp_state = (enum ibv_qp_state)state;
	return qp;
}

static int
check(enum ibv_qp_type type, int from, int to, int mask)
{
	struct rxd_qp_state qp = qp_in(type, from);
	struct ibv_qp_attr a = good_attr(from, to);

	return rxd_qp_attr_check(&qp, &a, mask, &lim4096);
}

/* Optional attributes the implementation refuses whatever the value. */
#define ALWAYS_REFUSED (IBV_QP_ALT_PATH | IBV_QP_CAP)

/* Calls f for every legal (type, from, to) of the expected table. */
typedef void (*legal_fn)(enum ibv_qp_type type, int from, int to, int req,
			 int opt);

static unsigned int
for_each_legal(legal_fn f)
{
	unsigned int n = 0;
	size_t t;
	int from, to, req, opt;

	for (t = 0; t < ARRAY_LEN(types); t++)
		for (from = 0; from < NSTATES; from++)
			for (to = 0; to < NSTATES; to++)
				if (expect_legal(types[t], from, to, &req,
						 &opt)) {
					f(types[t], from, to, req, opt);
					n++;
				}
	return n;
}

static void
required_passes(enum ibv_qp_type type, int from, int to, int req, int opt)
{
	struct rxd_qp_state qp = qp_in(type, from);
	struct ibv_qp_attr a = good_attr(from, to);
	int rc;

	(void)opt;
	rc = rxd_qp_attr_check(&qp, &a, IBV_QP_STATE | req, &lim4096);
	cr_assert_eq(rc, 0, "type %d %d->%d with required %#x: %d",
		     type, from, to, req, rc);
	rxd_qp_attr_apply(&qp, &a, IBV_QP_STATE | req);
	cr_assert_eq(qp.attr.qp_state, (enum ibv_qp_state)to);
	cr_assert_eq(qp.attr.cur_qp_state, (enum ibv_qp_state)to);
}

Test(qp_attr, every_legal_transition_with_required_mask)
{
	/* 14 per type (7 to RESET, 7 to ERR) + 8 RC, 9 UC, 9 UD */
	cr_assert_eq(for_each_legal(required_passes), 3 * 14 + 8 + 9 + 9);
}

static void
optional_passes(enum ibv_qp_type type, int from, int to, int req, int opt)
{
	int mask = IBV_QP_STATE | req | (opt & ~ALWAYS_REFUSED);

	cr_assert_eq(check(type, from, to, mask), 0,
		     "type %d %d->%d with all optional %#x", type, from, to,
		     mask);
}

Test(qp_attr, every_optional_attribute_accepted)
{
	for_each_legal(optional_passes);
}

static void
drop_each_required(enum ibv_qp_type type, int from, int to, int req, int opt)
{
	size_t i;

	(void)opt;
	for (i = 0; i < ARRAY_LEN(attr_bits); i++) {
		if (!(req & attr_bits[i]))
			continue;
		cr_assert_eq(check(type, from, to,
				   IBV_QP_STATE | (req & ~attr_bits[i])),
			     EINVAL, "type %d %d->%d without %s", type, from,
			     to, rxd_qp_attr_name(attr_bits[i]));
	}
}

Test(qp_attr, missing_required_attribute_refused)
{
	for_each_legal(drop_each_required);
}

static void
add_each_extra(enum ibv_qp_type type, int from, int to, int req, int opt)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(attr_bits); i++) {
		if ((req | opt) & attr_bits[i])
			continue;
		cr_assert_eq(check(type, from, to,
				   IBV_QP_STATE | req | attr_bits[i]),
			     EINVAL, "type %d %d->%d with extra %s", type,
			     from, to, rxd_qp_attr_name(attr_bits[i]));
	}
	/* A bit libibverbs does not define. */
	cr_assert_eq(check(type, from, to, IBV_QP_STATE | req | (1 << 22)),
		     EINVAL);
}

Test(qp_attr, attribute_outside_optional_set_refused)
{
	for_each_legal(add_each_extra);
}

/*
 * All 3 x 7 x 7 pairs against the expected table: a legal pair passes with
 * its required mask; an illegal one is refused with STATE alone and with
 * the required and the required|optional masks of every legal transition
 * of its type (so an extra legal pair is caught whatever masks it has).
 */
static int cand_masks[64];
static size_t n_cand;

static void
add_cand(int mask)
{
	size_t i;

	for (i = 0; i < n_cand; i++)
		if (cand_masks[i] == mask)
			return;
	cr_assert_lt(n_cand, ARRAY_LEN(cand_masks));
	cand_masks[n_cand++] = mask;
}

static void
collect_masks(enum ibv_qp_type type, int from, int to, int req, int opt)
{
	(void)type;
	(void)from;
	(void)to;
	add_cand(IBV_QP_STATE | req);
	add_cand(IBV_QP_STATE | req | (opt & ~ALWAYS_REFUSED));
}

static void
illegal_refused(enum ibv_qp_type type, int from, int to)
{
	size_t i;

	for (i = 0; i < n_cand; i++)
		cr_assert_eq(check(type, from, to, cand_masks[i]), EINVAL,
			     "type %d %d->%d is illegal, mask %#x passed",
			     type, from, to, cand_masks[i]);
}

Test(qp_attr, state_pairs_match_the_table)
{
	unsigned int legal = 0, illegal = 0;
	size_t t;
	int from, to, req, opt;

	n_cand = 0;
	add_cand(IBV_QP_STATE);
	for_each_legal(collect_masks);
	cr_assert_gt(n_cand, 10);
	for (t = 0; t < ARRAY_LEN(types); t++) {
		for (from = 0; from < NSTATES; from++) {
			for (to = 0; to < NSTATES; to++) {
				if (!expect_legal(types[t], from, to, &req,
						  &opt)) {
					illegal_refused(types[t], from, to);
					illegal++;
					continue;
				}
				cr_assert_eq(check(types[t], from, to,
						   IBV_QP_STATE | req), 0,
					     "type %d %d->%d should be legal",
					     types[t], from, to);
				legal++;
			}
		}
	}
	cr_assert_eq(legal + illegal, 3 * NSTATES * NSTATES);
	cr_assert_eq(illegal, 3 * NSTATES * NSTATES - (3 * 14 + 26));
}

Test(qp_attr, masks_lookup_matches_the_table)
{
	size_t t;
	int from, to, req, opt, ereq, eopt, rc;

	for (t = 0; t < ARRAY_LEN(types); t++) {
		for (from = 0; from < NSTATES; from++) {
			for (to = 0; to < NSTATES; to++) {
				bool legal = expect_legal(types[t], from, to,
							  &ereq, &eopt);

				req = opt = -1;
				rc = rxd_qp_transition_masks(types[t],
					(enum ibv_qp_state)from,
					(enum ibv_qp_state)to, &req, &opt);
				cr_assert_eq(rc, legal ? 0 : EINVAL);
				if (!legal)
					continue;
				cr_assert_eq(req, ereq, "type %d %d->%d req",
					     types[t], from, to);
				cr_assert_eq(opt, eopt, "type %d %d->%d opt",
					     types[t], from, to);
			}
		}
	}
}

/* Requests without IBV_QP_STATE: the transition is current -> current. */
struct implicit_case {
	enum ibv_qp_type type;
	enum ibv_qp_state state;
	int mask;
	int expect;
};

Test(qp_attr, request_without_state_is_current_to_current)
{
	static const struct implicit_case cases[] = {
		{ IBV_QPT_RC, IBV_QPS_RESET, 0, 0 },
		{ IBV_QPT_RC, IBV_QPS_RESET, IBV_QP_PKEY_INDEX, EINVAL },
		{ IBV_QPT_RC, IBV_QPS_INIT, IBV_QP_ACCESS_FLAGS, 0 },
		{ IBV_QPT_RC, IBV_QPS_INIT, IBV_QP_QKEY, EINVAL },
		{ IBV_QPT_UD, IBV_QPS_INIT, IBV_QP_QKEY, 0 },
		{ IBV_QPT_RC, IBV_QPS_RTR, 0, EINVAL },
		{ IBV_QPT_RC, IBV_QPS_RTR, IBV_QP_TIMEOUT, EINVAL },
		{ IBV_QPT_RC, IBV_QPS_RTS, IBV_QP_MIN_RNR_TIMER, 0 },
		{ IBV_QPT_UC, IBV_QPS_RTS, IBV_QP_MIN_RNR_TIMER, EINVAL },
		{ IBV_QPT_UD, IBV_QPS_RTS, IBV_QP_QKEY, 0 },
		{ IBV_QPT_RC, IBV_QPS_SQD, IBV_QP_TIMEOUT | IBV_QP_AV, 0 },
		{ IBV_QPT_UC, IBV_QPS_SQE, IBV_QP_ACCESS_FLAGS, EINVAL },
		{ IBV_QPT_RC, IBV_QPS_ERR, 0, 0 },
		{ IBV_QPT_RC, IBV_QPS_ERR, IBV_QP_QKEY, EINVAL },
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(cases); i++) {
		const struct implicit_case *c = &cases[i];
		struct rxd_qp_state qp = qp_in(c->type, c->state);
		/* qp_state names another state: it must be ignored */
		struct ibv_qp_attr a = good_attr(c->state, IBV_QPS_INIT);

		cr_assert_eq(rxd_qp_attr_check(&qp, &a, c->mask, &lim4096),
			     c->expect, "case %zu", i);
	}
}

/*
 * Value ranges, one case each, with the boundary that must pass: the
 * request is the transition's required mask plus `extra`, with one field
 * (at off, len bytes) set to value.
 */
struct range_case {
	char name[48];
	enum ibv_qp_type type;
	enum ibv_qp_state from, to;
	int extra;
	size_t off, len;
	uint32_t value;
	enum ibv_mtu max_mtu;   /* 0: IBV_MTU_4096 */
	int expect;
};

#define AT(f) offsetof(struct ibv_qp_attr, f), \
	sizeof(((struct ibv_qp_attr *)0)->f)
#define RC_RTR IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR
#define RC_RTS IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS
#define RC_INIT IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_INIT
#define UD_INIT IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT

static struct range_case range_cases[] = {
	{ "path_mtu 4096 > max 1024", RC_RTR, 0, AT(path_mtu), IBV_MTU_4096,
	  IBV_MTU_1024, EINVAL },
	{ "path_mtu 1024 = max 1024", RC_RTR, 0, AT(path_mtu), IBV_MTU_1024,
	  IBV_MTU_1024, 0 },
	{ "path_mtu 4096 = max 4096", RC_RTR, 0, AT(path_mtu), IBV_MTU_4096,
	  0, 0 },
	{ "path_mtu 256", RC_RTR, 0, AT(path_mtu), IBV_MTU_256, 0, 0 },
	{ "path_mtu 0", RC_RTR, 0, AT(path_mtu), 0, 0, EINVAL },
	{ "path_mtu 6", RC_RTR, 0, AT(path_mtu), 6, 0, EINVAL },
	{ "timeout 32", RC_RTS, 0, AT(timeout), 32, 0, EINVAL },
	{ "timeout 31", RC_RTS, 0, AT(timeout), 31, 0, 0 },
	{ "retry_cnt 8", RC_RTS, 0, AT(retry_cnt), 8, 0, EINVAL },
	{ "retry_cnt 7", RC_RTS, 0, AT(retry_cnt), 7, 0, 0 },
	{ "rnr_retry 8", RC_RTS, 0, AT(rnr_retry), 8, 0, EINVAL },
	{ "rnr_retry 7", RC_RTS, 0, AT(rnr_retry), 7, 0, 0 },
	{ "min_rnr_timer 32", RC_RTR, 0, AT(min_rnr_timer), 32, 0, EINVAL },
	{ "min_rnr_timer 31", RC_RTR, 0, AT(min_rnr_timer), 31, 0, 0 },
	{ "min_rnr_timer 32 in RTS", RC_RTS, IBV_QP_MIN_RNR_TIMER,
	  AT(min_rnr_timer), 32, 0, EINVAL },
	{ "port 0", RC_INIT, 0, AT(port_num), 0, 0, EINVAL },
	{ "port 2", RC_INIT, 0, AT(port_num), 2, 0, EINVAL },
	{ "port 1", RC_INIT, 0, AT(port_num), 1, 0, 0 },
	{ "UD port 2", UD_INIT, 0, AT(port_num), 2, 0, EINVAL },
	{ "pkey_index 1", RC_INIT, 0, AT(pkey_index), 1, 0, EINVAL },
	{ "UD pkey_index 1", UD_INIT, 0, AT(pkey_index), 1, 0, EINVAL },
	{ "av port 0", RC_RTR, 0, AT(ah_attr.port_num), 0, 0, EINVAL },
	{ "av port 2", RC_RTR, 0, AT(ah_attr.port_num), 2, 0, EINVAL },
	{ "sgid_index = gid_tbl_len", RC_RTR, 0, AT(ah_attr.grh.sgid_index),
	  16, 0, EINVAL },
	{ "sgid_index 15", RC_RTR, 0, AT(ah_attr.grh.sgid_index), 15, 0, 0 },
	{ "non-global av", RC_RTR, 0, AT(ah_attr.is_global), 0, 0, EINVAL },
	{ "UC non-global av", IBV_QPT_UC, IBV_QPS_INIT, IBV_QPS_RTR, 0,
	  AT(ah_attr.is_global), 0, 0, EINVAL },
	{ "hop_limit 0", RC_RTR, 0, AT(ah_attr.grh.hop_limit), 0, 0, 0 },
	{ "hop_limit 255", RC_RTR, 0, AT(ah_attr.grh.hop_limit), 255, 0, 0 },
	{ "dest_qp_num 1<<24", RC_RTR, 0, AT(dest_qp_num), 1u << 24, 0,
	  EINVAL },
	{ "dest_qp_num 0xffffff", RC_RTR, 0, AT(dest_qp_num), 0xffffff, 0, 0 },
	{ "max_rd_atomic 17", RC_RTS, 0, AT(max_rd_atomic), 17, 0, EINVAL },
	{ "max_rd_atomic 16", RC_RTS, 0, AT(max_rd_atomic), 16, 0, 0 },
	{ "max_dest_rd_atomic 17", RC_RTR, 0, AT(max_dest_rd_atomic), 17, 0,
	  EINVAL },
	{ "max_dest_rd_atomic 16", RC_RTR, 0, AT(max_dest_rd_atomic), 16, 0,
	  0 },
	{ "access ZERO_BASED", RC_INIT, 0, AT(qp_access_flags),
	  IBV_ACCESS_ZERO_BASED, 0, EINVAL },
	{ "access RELAXED_ORDERING", RC_INIT, 0, AT(qp_access_flags),
	  IBV_ACCESS_RELAXED_ORDERING, 0, EINVAL },
	{ "access all known", RC_INIT, 0, AT(qp_access_flags),
	  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
	  IBV_ACCESS_MW_BIND, 0, 0 },
	{ "path_mig_state REARM", RC_RTS, IBV_QP_PATH_MIG_STATE,
	  AT(path_mig_state), IBV_MIG_REARM, 0, EINVAL },
	{ "path_mig_state ARMED", RC_RTS, IBV_QP_PATH_MIG_STATE,
	  AT(path_mig_state), IBV_MIG_ARMED, 0, EINVAL },
	{ "path_mig_state MIGRATED", RC_RTS, IBV_QP_PATH_MIG_STATE,
	  AT(path_mig_state), IBV_MIG_MIGRATED, 0, 0 },
	{ "UD qkey privileged (checked elsewhere)", UD_INIT, 0, AT(qkey),
	  0x80010000u, 0, 0 },
	{ "sq_psn any 32-bit", RC_RTS, 0, AT(sq_psn), 0xffffffffu, 0, 0 },
	{ "rq_psn any 32-bit", RC_RTR, 0, AT(rq_psn), 0xffffffffu, 0, 0 },
	{ "new qp_state UNKNOWN", IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_RTS, 0,
	  AT(qp_state), IBV_QPS_UNKNOWN, 0, EINVAL },
	{ "alt path (no APM)", RC_RTR, IBV_QP_ALT_PATH, AT(alt_port_num), 1,
	  0, EINVAL },
	{ "cap (no resize)", IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_RTS,
	  IBV_QP_CAP, AT(cap.max_send_wr), 16, 0, EINVAL },
};

ParameterizedTestParameters(qp_attr, value_ranges)
{
	return cr_make_param_array(struct range_case, range_cases,
				   ARRAY_LEN(range_cases));
}

static void
set_field(struct ibv_qp_attr *a, size_t off, size_t len, uint32_t value)
{
	uint8_t v8 = (uint8_t)value;
	uint16_t v16 = (uint16_t)value;
	const void *src = len == 1 ? (const void *)&v8 :
		len == 2 ? (const void *)&v16 : (const void *)&value;

	cr_assert(len == 1 || len == 2 || len == 4);
	memcpy((char *)a + off, src, len);
}

ParameterizedTest(struct range_case *c, qp_attr, value_ranges)
{
	struct rxd_qp_limits lim = lim4096;
	struct rxd_qp_state qp = qp_in(c->type, c->from);
	struct ibv_qp_attr a = good_attr(c->from, c->to);
	int req, opt;

	cr_assert(expect_legal(c->type, c->from, c->to, &req, &opt));
	if (c->max_mtu != 0)
		lim.max_mtu = c->max_mtu;
	set_field(&a, c->off, c->len, c->value);
	cr_assert_eq(rxd_qp_attr_check(&qp, &a, IBV_QP_STATE | req | c->extra,
				       &lim),
		     c->expect, "%s", c->name);
}

/* Drive a QP through the usual path with the required masks. */
static void
modify(struct rxd_qp_state *qp, struct ibv_qp_attr *a, int mask)
{
	cr_assert_eq(rxd_qp_attr_check(qp, a, mask, &lim4096), 0,
		     "mask %#x in state %d", mask, qp->attr.qp_state);
	rxd_qp_attr_apply(qp, a, mask);
}

static void
to_rts(struct rxd_qp_state *qp, struct ibv_qp_attr *a)
{
	int req, opt;
	int s;

	for (s = IBV_QPS_INIT; s <= IBV_QPS_RTS; s++) {
		cr_assert(expect_legal(qp->type, s - 1, s, &req, &opt));
		a->qp_state = (enum ibv_qp_state)s;
		modify(qp, a, IBV_QP_STATE | req);
	}
}

Test(qp_attr, psns_masked_to_24_bits)
{
	struct rxd_qp_state qp = qp_in(IBV_QPT_RC, IBV_QPS_RESET);
	struct ibv_qp_attr a = good_attr(IBV_QPS_RESET, IBV_QPS_INIT);

	a.rq_psn = 0x1234567;
	a.sq_psn = 0x1234567;
	to_rts(&qp, &a);
	cr_assert_eq(qp.attr.rq_psn, 0x234567);
	cr_assert_eq(qp.attr.sq_psn, 0x234567);
	/* the caller's request is not changed */
	cr_assert_eq(a.sq_psn, 0x1234567);
}

Test(qp_attr, apply_stores_only_masked_attributes)
{
	struct rxd_qp_state qp = qp_in(IBV_QPT_RC, IBV_QPS_RESET);
	struct ibv_qp_attr a = good_attr(IBV_QPS_RESET, IBV_QPS_INIT);

	modify(&qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS);
	cr_assert_eq(qp.attr.qp_state, IBV_QPS_INIT);
	cr_assert_eq(qp.attr.port_num, 1);
	cr_assert_eq(qp.attr.qp_access_flags, a.qp_access_flags);
	cr_assert_eq(qp.attr.timeout, 0, "timeout was not in the mask");
	cr_assert_eq(qp.attr.dest_qp_num, 0);
	cr_assert_eq(qp.attr.qkey, 0);

	a.qp_state = IBV_QPS_RTR;
	a.dest_qp_num = 0xabcdef;
	a.ah_attr.grh.dgid.raw[15] = 7;
	modify(&qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER);
	cr_assert_eq(qp.attr.dest_qp_num, 0xabcdef);
	cr_assert_eq(qp.attr.path_mtu, IBV_MTU_1024);
	cr_assert_eq(qp.attr.min_rnr_timer, 12);
	cr_assert_eq(qp.attr.max_dest_rd_atomic, 4);
	cr_assert_eq(memcmp(&qp.attr.ah_attr, &a.ah_attr,
			    sizeof(a.ah_attr)), 0);
	cr_assert_eq(qp.attr.sq_psn, 0, "sq_psn was not in the mask");

	/* RTS -> RTS without IBV_QP_STATE changes one attribute */
	a.qp_state = IBV_QPS_RTS;
	modify(&qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	a.qp_state = IBV_QPS_RESET;
	a.min_rnr_timer = 3;
	modify(&qp, &a, IBV_QP_MIN_RNR_TIMER);
	cr_assert_eq(qp.attr.qp_state, IBV_QPS_RTS);
	cr_assert_eq(qp.attr.min_rnr_timer, 3);
}

Test(qp_attr, query_after_reset_shows_defaults)
{
	static const enum ibv_qp_state from[] = {
		IBV_QPS_RTS, IBV_QPS_ERR, IBV_QPS_SQD,
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(from); i++) {
		struct rxd_qp_state qp = qp_in(IBV_QPT_RC, IBV_QPS_RESET);
		struct ibv_qp_attr a = good_attr(IBV_QPS_RESET, IBV_QPS_INIT);
		struct ibv_qp_attr want;

		qp.attr.cap.max_send_wr = 8;
		qp.attr.cap.max_recv_wr = 9;
		qp.attr.cap.max_send_sge = 2;
		qp.attr.cap.max_recv_sge = 3;
		qp.attr.cap.max_inline_data = 64;
		to_rts(&qp, &a);
		if (from[i] != IBV_QPS_RTS) {
			a.qp_state = from[i];
			modify(&qp, &a, IBV_QP_STATE);
		}
		cr_assert_neq(qp.attr.dest_qp_num, 0);

		a.qp_state = IBV_QPS_RESET;
		modify(&qp, &a, IBV_QP_STATE);

		memset(&want, 0, sizeof(want));
		want.qp_state = IBV_QPS_RESET;
		want.cur_qp_state = IBV_QPS_RESET;
		want.cap = qp.attr.cap;
		cr_assert_eq(want.cap.max_recv_wr, 9, "cap kept");
		cr_assert_eq(want.cap.max_inline_data, 64, "cap kept");
		cr_assert_eq(memcmp(&qp.attr, &want, sizeof(want)), 0,
			     "from state %d", from[i]);
		cr_assert_eq(qp.type, IBV_QPT_RC);
	}
}

Test(qp_attr, error_state_keeps_attributes)
{
	struct rxd_qp_state qp = qp_in(IBV_QPT_UC, IBV_QPS_RESET);
	struct ibv_qp_attr a = good_attr(IBV_QPS_RESET, IBV_QPS_INIT);
	struct ibv_qp_attr before;

	to_rts(&qp, &a);
	memcpy(&before, &qp.attr, sizeof(before));
	a.qp_state = IBV_QPS_ERR;
	modify(&qp, &a, IBV_QP_STATE);
	cr_assert_eq(qp.attr.qp_state, IBV_QPS_ERR);
	before.qp_state = IBV_QPS_ERR;
	before.cur_qp_state = IBV_QPS_ERR;
	cr_assert_eq(memcmp(&qp.attr, &before, sizeof(before)), 0);
}

Test(qp_attr, state_init_is_reset)
{
	struct rxd_qp_state qp;
	struct ibv_qp_attr zero;

	memset(&qp, 0xa5, sizeof(qp));
	rxd_qp_state_init(&qp, IBV_QPT_UD);
	memset(&zero, 0, sizeof(zero));
	cr_assert_eq(qp.type, IBV_QPT_UD);
	cr_assert_eq(qp.attr.qp_state, IBV_QPS_RESET);
	cr_assert_eq(memcmp(&qp.attr, &zero, sizeof(zero)), 0);
}

struct cur_case {
	enum ibv_qp_type type;
	enum ibv_qp_state from, to;
	int mask;                   /* besides IBV_QP_CUR_STATE */
	enum ibv_qp_state cur;
	int expect;
};

Test(qp_attr, cur_state_must_match)
{
	static const struct cur_case cases[] = {
		{ IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS, 0, IBV_QPS_RTR, 0 },
		{ IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS, 0, IBV_QPS_RTS,
		  EINVAL },
		{ IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS, 0, IBV_QPS_SQD,
		  EINVAL },
		{ IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_RTS, 0, IBV_QPS_RTS, 0 },
		{ IBV_QPT_UD, IBV_QPS_RTS, IBV_QPS_RTS, 0, IBV_QPS_SQE,
		  EINVAL },
		{ IBV_QPT_UC, IBV_QPS_SQE, IBV_QPS_RTS, 0, IBV_QPS_SQE, 0 },
		{ IBV_QPT_UC, IBV_QPS_SQE, IBV_QPS_RTS, 0, IBV_QPS_RTS,
		  EINVAL },
		{ IBV_QPT_RC, IBV_QPS_SQD, IBV_QPS_RTS, 0, IBV_QPS_SQD, 0 },
		/* without IBV_QP_STATE: RTS -> RTS */
		{ IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_RTS, -1, IBV_QPS_RTS, 0 },
		{ IBV_QPT_RC, IBV_QPS_RTS, IBV_QPS_RTS, -1, IBV_QPS_RTR,
		  EINVAL },
	};
	size_t i;
	int req, opt;

	for (i = 0; i < ARRAY_LEN(cases); i++) {
		const struct cur_case *c = &cases[i];
		struct rxd_qp_state qp = qp_in(c->type, c->from);
		struct ibv_qp_attr a = good_attr(c->from, c->to);
		int mask;

		cr_assert(expect_legal(c->type, c->from, c->to, &req, &opt));
		mask = (c->mask < 0 ? 0 : IBV_QP_STATE) | req |
			IBV_QP_CUR_STATE;
		a.cur_qp_state = c->cur;
		cr_assert_eq(rxd_qp_attr_check(&qp, &a, mask, &lim4096),
			     c->expect, "case %zu", i);
	}
}

Test(qp_attr, unsupported_qp_types_refused)
{
	static const enum ibv_qp_type other[] = {
		IBV_QPT_RAW_PACKET, IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV,
		IBV_QPT_DRIVER, (enum ibv_qp_type)0,
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(other); i++) {
		cr_assert_eq(check(other[i], IBV_QPS_RESET, IBV_QPS_INIT,
				   IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
			     EINVAL, "type %d", other[i]);
		cr_assert_eq(check(other[i], IBV_QPS_RESET, IBV_QPS_RESET,
				   IBV_QP_STATE), EINVAL, "type %d",
			     other[i]);
	}
	/* the same requests pass for RC: the refusal is the type's */
	cr_assert_eq(check(IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_RESET,
			   IBV_QP_STATE), 0);
}

Test(qp_attr, current_state_out_of_range_refused)
{
	cr_assert_eq(check(IBV_QPT_RC, IBV_QPS_UNKNOWN, IBV_QPS_RESET,
			   IBV_QP_STATE), EINVAL);
	cr_assert_eq(check(IBV_QPT_RC, IBV_QPS_UNKNOWN, IBV_QPS_ERR,
			   IBV_QP_STATE), EINVAL);
	cr_assert_eq(check(IBV_QPT_RC, -1, IBV_QPS_ERR, IBV_QP_STATE),
		     EINVAL);
}

struct name_case {
	int mask;
	const char *name;
};

Test(qp_attr, attribute_names)
{
	static const struct name_case cases[] = {
		{ IBV_QP_STATE, "IBV_QP_STATE" },
		{ IBV_QP_PATH_MTU, "IBV_QP_PATH_MTU" },
		{ IBV_QP_PATH_MTU | IBV_QP_SQ_PSN, "IBV_QP_PATH_MTU" },
		{ IBV_QP_SQ_PSN | IBV_QP_DEST_QPN, "IBV_QP_SQ_PSN" },
		{ IBV_QP_MAX_DEST_RD_ATOMIC, "IBV_QP_MAX_DEST_RD_ATOMIC" },
		{ IBV_QP_DEST_QPN, "IBV_QP_DEST_QPN" },
		{ IBV_QP_RATE_LIMIT, "IBV_QP_RATE_LIMIT" },
		{ 1 << 22, "IBV_QP_<unknown>" },
		{ 1 << 30, "IBV_QP_<unknown>" },
		{ 0, "(none)" },
	};
	size_t i, j;

	for (i = 0; i < ARRAY_LEN(cases); i++)
		cr_assert_str_eq(rxd_qp_attr_name(cases[i].mask),
				 cases[i].name, "mask %#x", cases[i].mask);
	/* every defined bit has its own IBV_QP_ name */
	for (i = 0; i < ARRAY_LEN(attr_bits); i++) {
		const char *n = rxd_qp_attr_name(attr_bits[i]);

		cr_assert_eq(strncmp(n, "IBV_QP_", 7), 0);
		cr_assert_str_neq(n, "IBV_QP_<unknown>");
		for (j = 0; j < i; j++)
			cr_assert_str_neq(n, rxd_qp_attr_name(attr_bits[j]));
	}
}

Test(qp_attr, null_arguments_refused)
{
	struct rxd_qp_state qp = qp_in(IBV_QPT_RC, IBV_QPS_RESET);
	struct ibv_qp_attr a = good_attr(IBV_QPS_RESET, IBV_QPS_RESET);

	cr_assert_eq(rxd_qp_attr_check(&qp, &a, IBV_QP_STATE, &lim4096), 0);
	cr_assert_eq(rxd_qp_attr_check(NULL, &a, IBV_QP_STATE, &lim4096),
		     EINVAL);
	cr_assert_eq(rxd_qp_attr_check(&qp, NULL, IBV_QP_STATE, &lim4096),
		     EINVAL);
	cr_assert_eq(rxd_qp_attr_check(&qp, &a, IBV_QP_STATE, NULL), EINVAL);
}
