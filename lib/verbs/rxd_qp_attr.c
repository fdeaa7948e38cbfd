/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ibv_modify_qp() validator: one table of QP state transitions with the
 * required and optional attribute masks per QP type, one table of value
 * checks per attribute, one table of the attribute fields a modify stores.
 * See rxd_qp_attr.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "rxd/rxd_flush.h"
#include "rxd_qp_attr.h"

/* Short names for the table below. */
#define CUR   IBV_QP_CUR_STATE
#define SQDN  IBV_QP_EN_SQD_ASYNC_NOTIFY
#define ACC   IBV_QP_ACCESS_FLAGS
#define PKEY  IBV_QP_PKEY_INDEX
#define PORT  IBV_QP_PORT
#define QKEY  IBV_QP_QKEY
#define AV    IBV_QP_AV
#define MTU   IBV_QP_PATH_MTU
#define TMO   IBV_QP_TIMEOUT
#define RETRY IBV_QP_RETRY_CNT
#define RNR   IBV_QP_RNR_RETRY
#define RQPSN IBV_QP_RQ_PSN
#define RDA   IBV_QP_MAX_QP_RD_ATOMIC
#define ALT   IBV_QP_ALT_PATH
#define MRNR  IBV_QP_MIN_RNR_TIMER
#define SQPSN IBV_QP_SQ_PSN
#define DRDA  IBV_QP_MAX_DEST_RD_ATOMIC
#define MIG   IBV_QP_PATH_MIG_STATE
#define DQPN  IBV_QP_DEST_QPN

/* Column of a QP type in the transition table. */
enum qp_col { COL_RC, COL_UC, COL_UD, COL_N };

/* "Any state" in the from column. */
#define ANY_STATE (-1)

/* A transition's masks for one QP type. */
struct qp_masks {
	bool legal;
	int req;
	int opt;
};

struct qp_transition {
	int from;               /* enum ibv_qp_state, or ANY_STATE */
	enum ibv_qp_state to;
	struct qp_masks m[COL_N];
};

#define M(r, o) { .legal = true, .req = (r), .opt = (o) }
#define NONE    { .legal = false }

/*
 * IBTA vol. 1 11.2.5 (table "QP state transition properties"), as Linux's
 * ib_modify_qp_is_ok encodes it.  A pair not listed is illegal.  SQE is
 * entered only on a send error of a UC/UD QP (an RC QP goes to ERR), never
 * by ibv_modify_qp().
 */
static const struct qp_transition transitions[] = {
	/*  from           to             RC, UC, UD */
	{ ANY_STATE, IBV_QPS_RESET, { M(0, 0), M(0, 0), M(0, 0) } },
	{ ANY_STATE, IBV_QPS_ERR,   { M(0, 0), M(0, 0), M(0, 0) } },
	{ IBV_QPS_RESET, IBV_QPS_INIT, {
		M(PKEY | PORT | ACC, 0),
		M(PKEY | PORT | ACC, 0),
		M(PKEY | PORT | QKEY, 0) } },
	{ IBV_QPS_INIT, IBV_QPS_INIT, {
		M(0, PKEY | PORT | ACC),
		M(0, PKEY | PORT | ACC),
		M(0, PKEY | PORT | QKEY) } },
	{ IBV_QPS_INIT, IBV_QPS_RTR, {
		M(AV | MTU | DQPN | RQPSN | DRDA | MRNR, ALT | ACC | PKEY),
		M(AV | MTU | DQPN | RQPSN, ALT | ACC | PKEY),
		M(0, PKEY | QKEY) } },
	{ IBV_QPS_RTR, IBV_QPS_RTS, {
		M(SQPSN | TMO | RETRY | RNR | RDA,
		  CUR | ALT | ACC | MRNR | MIG),
		M(SQPSN, CUR | ALT | ACC | MIG),
		M(SQPSN, CUR | QKEY) } },
	{ IBV_QPS_RTS, IBV_QPS_RTS, {
		M(0, CUR | ACC | ALT | MIG | MRNR),
		M(0, CUR | ACC | ALT | MIG),
		M(0, CUR | QKEY) } },
	{ IBV_QPS_RTS, IBV_QPS_SQD, {
		M(0, SQDN),
		M(0, SQDN),
		M(0, SQDN) } },
	{ IBV_QPS_SQD, IBV_QPS_RTS, {
		M(0, CUR | ALT | ACC | MRNR | MIG),
		M(0, CUR | ALT | ACC | MIG),
		M(0, CUR | QKEY) } },
	{ IBV_QPS_SQD, IBV_QPS_SQD, {
		M(0, PORT | AV | TMO | RETRY | RNR | RDA | DRDA | ALT | ACC |
		  PKEY | MRNR | MIG),
		M(0, AV | ALT | ACC | PKEY | MIG),
		M(0, PKEY | QKEY) } },
	{ IBV_QPS_SQE, IBV_QPS_RTS, {
		NONE,
		M(0, CUR | ACC),
		M(0, CUR | QKEY) } },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int
type_col(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return COL_RC;
	case IBV_QPT_UC:
		return COL_UC;
	case IBV_QPT_UD:
		return COL_UD;
	default:
		return -1;
	}
}

static bool
state_ok(enum ibv_qp_state s)
{
	return (int)s >= IBV_QPS_RESET && (int)s <= IBV_QPS_ERR;
}

static const struct qp_transition *
find_transition(enum ibv_qp_state from, enum ibv_qp_state to)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(transitions); i++) {
		const struct qp_transition *t = &transitions[i];

		if ((t->from == ANY_STATE || t->from == (int)from) &&
		    t->to == to)
			return t;
	}
	return NULL;
}

int
rxd_qp_transition_masks(enum ibv_qp_type type, enum ibv_qp_state from,
			enum ibv_qp_state to, int *req, int *opt)
{
	const struct qp_transition *t;
	int col = type_col(type);

	if (col < 0 || !state_ok(from) || !state_ok(to))
		return EINVAL;
	t = find_transition(from, to);
	if (t == NULL || !t->m[col].legal)
		return EINVAL;
	if (req != NULL)
		*req = t->m[col].req;
	if (opt != NULL)
		*opt = t->m[col].opt;
	return 0;
}

/* Value checks, one per attribute that has a range: true = acceptable. */

typedef bool (*attr_ok_fn)(const struct ibv_qp_attr *a,
			   const struct rxd_qp_limits *lim);

static bool
access_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	const unsigned int known = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND |
		RXD_ACCESS_FLUSH_GLOBAL | RXD_ACCESS_FLUSH_PERSISTENT;

	(void)lim;
	return (a->qp_access_flags & ~known) == 0;
}

static bool
pkey_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	return a->pkey_index < lim->pkey_tbl_len;
}

static bool
port_in_range(uint8_t port, const struct rxd_qp_limits *lim)
{
	return port >= 1 && port <= lim->phys_port_cnt;
}

static bool
port_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	return port_in_range(a->port_num, lim);
}

/* RoCE: every address vector carries a GRH (the IP header). */
static bool
av_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	const struct ibv_ah_attr *ah = &a->ah_attr;

	return port_in_range(ah->port_num, lim) && ah->is_global == 1 &&
		ah->grh.sgid_index < lim->gid_tbl_len;
}

static bool
mtu_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	return (int)a->path_mtu >= IBV_MTU_256 &&
		(int)a->path_mtu <= (int)lim->max_mtu;
}

/* timeout and min_rnr_timer are 5-bit codes. */
static bool
timeout_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	(void)lim;
	return a->timeout <= 31;
}

static bool
min_rnr_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	(void)lim;
	return a->min_rnr_timer <= 31;
}

/* retry_cnt and rnr_retry are 3-bit counts. */
static bool
retry_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	(void)lim;
	return a->retry_cnt <= 7;
}

static bool
rnr_retry_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	(void)lim;
	return a->rnr_retry <= 7;
}

static bool
rd_atomic_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	return a->max_rd_atomic <= lim->max_rd_atomic;
}

static bool
dest_rd_atomic_ok(const struct ibv_qp_attr *a,
		  const struct rxd_qp_limits *lim)
{
	return a->max_dest_rd_atomic <= lim->max_dest_rd_atomic;
}

static bool
dest_qpn_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	(void)lim;
	return a->dest_qp_num <= RXD_QP_QPN_MAX;
}

/*
 * Without automatic path migration there is never an alternate path: the
 * only migration state is MIGRATED.  REARM would arm a path that cannot be
 * loaded, and ARMED is not settable by software at all (IBTA).
 */
static bool
mig_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	(void)lim;
	return a->path_mig_state == IBV_MIG_MIGRATED;
}

/*
 * IBV_QP_ALT_PATH is in the table (IBTA allows it) but refused whatever the
 * value: there is no automatic path migration, so no alternate path.
 * (IBV_QP_CAP needs no rule: no transition allows it, so it is always
 * EINVAL; the queues are sized at create and never resized, which the man
 * page lets a provider refuse.)
 */
static bool
never_ok(const struct ibv_qp_attr *a, const struct rxd_qp_limits *lim)
{
	(void)a;
	(void)lim;
	return false;
}

static const struct {
	int bit;
	attr_ok_fn ok;
} value_rules[] = {
	{ IBV_QP_ACCESS_FLAGS, access_ok },
	{ IBV_QP_PKEY_INDEX, pkey_ok },
	{ IBV_QP_PORT, port_ok },
	{ IBV_QP_AV, av_ok },
	{ IBV_QP_PATH_MTU, mtu_ok },
	{ IBV_QP_TIMEOUT, timeout_ok },
	{ IBV_QP_RETRY_CNT, retry_ok },
	{ IBV_QP_RNR_RETRY, rnr_retry_ok },
	{ IBV_QP_MAX_QP_RD_ATOMIC, rd_atomic_ok },
	{ IBV_QP_ALT_PATH, never_ok },
	{ IBV_QP_MIN_RNR_TIMER, min_rnr_ok },
	{ IBV_QP_MAX_DEST_RD_ATOMIC, dest_rd_atomic_ok },
	{ IBV_QP_PATH_MIG_STATE, mig_ok },
	{ IBV_QP_DEST_QPN, dest_qpn_ok },
	/* Any value: qp_state (checked by the table lookup), cur_qp_state
	 * (checked against the QP), en_sqd_async_notify, qkey (the
	 * privileged-Q_Key rule is the caller's), PSNs (masked). */
};

static int
check_values(const struct ibv_qp_attr *attr, int attr_mask,
	     const struct rxd_qp_limits *lim)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(value_rules); i++) {
		if ((attr_mask & value_rules[i].bit) &&
		    !value_rules[i].ok(attr, lim))
			return EINVAL;
	}
	return 0;
}

static enum ibv_qp_state
next_state(const struct rxd_qp_state *qp, const struct ibv_qp_attr *attr,
	   int attr_mask)
{
	return (attr_mask & IBV_QP_STATE) ? attr->qp_state : qp->attr.qp_state;
}

static int
check_masks(const struct rxd_qp_state *qp, const struct ibv_qp_attr *attr,
	    int attr_mask)
{
	int req, opt;

	if (rxd_qp_transition_masks(qp->type, qp->attr.qp_state,
				    next_state(qp, attr, attr_mask),
				    &req, &opt) != 0)
		return EINVAL;
	if ((attr_mask & req) != req)
		return EINVAL;
	if (attr_mask & ~(req | opt | IBV_QP_STATE))
		return EINVAL;
	return 0;
}

int
rxd_qp_attr_check(const struct rxd_qp_state *qp,
		  const struct ibv_qp_attr *attr, int attr_mask,
		  const struct rxd_qp_limits *lim)
{
	int rc;

	if (qp == NULL || attr == NULL || lim == NULL)
		return EINVAL;
	rc = check_masks(qp, attr, attr_mask);
	if (rc != 0)
		return rc;
	/* Simpler than IBTA (which lets it name SQE/SQD for some moves):
	 * if given, it must be the state the QP is in. */
	if ((attr_mask & IBV_QP_CUR_STATE) &&
	    attr->cur_qp_state != qp->attr.qp_state)
		return EINVAL;
	return check_values(attr, attr_mask, lim);
}

/* The attributes a modify stores, by mask bit.  Not here: qp_state and
 * cur_qp_state (set from the new state), cap (fixed at create), and what
 * the check always refuses (alternate path, rate limit). */
#define FIELD(b, f) { (b), offsetof(struct ibv_qp_attr, f), \
		      sizeof(((struct ibv_qp_attr *)0)->f) }

static const struct {
	int bit;
	size_t off;
	size_t len;
} stored_fields[] = {
	FIELD(IBV_QP_EN_SQD_ASYNC_NOTIFY, en_sqd_async_notify),
	FIELD(IBV_QP_ACCESS_FLAGS, qp_access_flags),
	FIELD(IBV_QP_PKEY_INDEX, pkey_index),
	FIELD(IBV_QP_PORT, port_num),
	FIELD(IBV_QP_QKEY, qkey),
	FIELD(IBV_QP_AV, ah_attr),
	FIELD(IBV_QP_PATH_MTU, path_mtu),
	FIELD(IBV_QP_TIMEOUT, timeout),
	FIELD(IBV_QP_RETRY_CNT, retry_cnt),
	FIELD(IBV_QP_RNR_RETRY, rnr_retry),
	FIELD(IBV_QP_RQ_PSN, rq_psn),
	FIELD(IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic),
	FIELD(IBV_QP_MIN_RNR_TIMER, min_rnr_timer),
	FIELD(IBV_QP_SQ_PSN, sq_psn),
	FIELD(IBV_QP_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic),
	FIELD(IBV_QP_PATH_MIG_STATE, path_mig_state),
	FIELD(IBV_QP_DEST_QPN, dest_qp_num),
};

static void
set_state(struct ibv_qp_attr *a, enum ibv_qp_state s)
{
	a->qp_state = s;
	a->cur_qp_state = s;
}

static void
reset_defaults(struct rxd_qp_state *qp)
{
	struct ibv_qp_cap cap = qp->attr.cap;

	memset(&qp->attr, 0, sizeof(qp->attr));
	qp->attr.cap = cap;
	set_state(&qp->attr, IBV_QPS_RESET);
}

static void
copy_fields(struct ibv_qp_attr *dst, const struct ibv_qp_attr *src,
	    int attr_mask)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(stored_fields); i++) {
		if (attr_mask & stored_fields[i].bit)
			memcpy((char *)dst + stored_fields[i].off,
			       (const char *)src + stored_fields[i].off,
			       stored_fields[i].len);
	}
	dst->rq_psn &= RXD_QP_PSN_MASK;
	dst->sq_psn &= RXD_QP_PSN_MASK;
}

void
rxd_qp_attr_apply(struct rxd_qp_state *qp, const struct ibv_qp_attr *attr,
		  int attr_mask)
{
	enum ibv_qp_state to = next_state(qp, attr, attr_mask);

	if (to == IBV_QPS_RESET) {
		reset_defaults(qp);
		return;
	}
	copy_fields(&qp->attr, attr, attr_mask);
	set_state(&qp->attr, to);
}

void
rxd_qp_state_init(struct rxd_qp_state *qp, enum ibv_qp_type type)
{
	memset(qp, 0, sizeof(*qp));
	qp->type = type;
	set_state(&qp->attr, IBV_QPS_RESET);
}

/* Names by bit number, as <infiniband/verbs.h> defines them. */
#define NAME(b) [__builtin_ctz(b)] = #b

static const char *const attr_names[] = {
	NAME(IBV_QP_STATE),
	NAME(IBV_QP_CUR_STATE),
	NAME(IBV_QP_EN_SQD_ASYNC_NOTIFY),
	NAME(IBV_QP_ACCESS_FLAGS),
	NAME(IBV_QP_PKEY_INDEX),
	NAME(IBV_QP_PORT),
	NAME(IBV_QP_QKEY),
	NAME(IBV_QP_AV),
	NAME(IBV_QP_PATH_MTU),
	NAME(IBV_QP_TIMEOUT),
	NAME(IBV_QP_RETRY_CNT),
	NAME(IBV_QP_RNR_RETRY),
	NAME(IBV_QP_RQ_PSN),
	NAME(IBV_QP_MAX_QP_RD_ATOMIC),
	NAME(IBV_QP_ALT_PATH),
	NAME(IBV_QP_MIN_RNR_TIMER),
	NAME(IBV_QP_SQ_PSN),
	NAME(IBV_QP_MAX_DEST_RD_ATOMIC),
	NAME(IBV_QP_PATH_MIG_STATE),
	NAME(IBV_QP_CAP),
	NAME(IBV_QP_DEST_QPN),
	NAME(IBV_QP_RATE_LIMIT),
};

const char *
rxd_qp_attr_name(int mask_bit)
{
	unsigned int bit;

	if (mask_bit == 0)
		return "(none)";
	bit = (unsigned int)__builtin_ctz((unsigned int)mask_bit);
	if (bit >= ARRAY_LEN(attr_names) || attr_names[bit] == NULL)
		return "IBV_QP_<unknown>";
	return attr_names[bit];
}
