/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verbs: enum-to-text and rate helpers of libibverbs.  Owns
 * ibv_wc_status_str, ibv_node_type_str, ibv_port_state_str,
 * ibv_event_type_str, ibv_rate_to_mult, mult_to_ibv_rate, ibv_rate_to_mbps
 * and mbps_to_ibv_rate.  They need no device: each is a lookup in a
 * constant table.  The texts and numbers are the ones Debian 12's
 * libibverbs answers (applications print and compare them); any value
 * outside a table gives "unknown", -1 or IBV_RATE_MAX as there.
 */
#include <stddef.h>

#include <infiniband/verbs.h>

#define RXD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char rxd_unknown[] = "unknown";

static const char *const wc_status_str[] = {
	[IBV_WC_SUCCESS] = "success",
	[IBV_WC_LOC_LEN_ERR] = "local length error",
	[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
	[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
	[IBV_WC_LOC_PROT_ERR] = "local protection error",
	[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
	[IBV_WC_MW_BIND_ERR] = "memory management operation error",
	[IBV_WC_BAD_RESP_ERR] = "bad response error",
	[IBV_WC_LOC_ACCESS_ERR] = "local access error",
	[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
	[IBV_WC_REM_ACCESS_ERR] = "remote access error",
	[IBV_WC_REM_OP_ERR] = "remote operation error",
	[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
	[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
	[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
	[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
	[IBV_WC_REM_ABORT_ERR] = "aborted error",
	[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
	[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
	[IBV_WC_FATAL_ERR] = "fatal error",
	[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
	[IBV_WC_GENERAL_ERR] = "general error",
	[IBV_WC_TM_ERR] = "TM error",
	[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
};

/* IBV_NODE_UNKNOWN (-1) and 0 have no entry: both read "unknown". */
static const char *const node_type_str[] = {
	[IBV_NODE_CA] = "InfiniBand channel adapter",
	[IBV_NODE_SWITCH] = "InfiniBand switch",
	[IBV_NODE_ROUTER] = "InfiniBand router",
	[IBV_NODE_RNIC] = "iWARP NIC",
	[IBV_NODE_USNIC] = "usNIC",
	[IBV_NODE_USNIC_UDP] = "usNIC UDP",
	[IBV_NODE_UNSPECIFIED] = "unspecified",
};

static const char *const port_state_str[] = {
	[IBV_PORT_NOP] = "no state change (NOP)",
	[IBV_PORT_DOWN] = "down",
	[IBV_PORT_INIT] = "init",
	[IBV_PORT_ARMED] = "armed",
	[IBV_PORT_ACTIVE] = "active",
	[IBV_PORT_ACTIVE_DEFER] = "active defer",
};

static const char *const event_type_str[] = {
	[IBV_EVENT_CQ_ERR] = "CQ error",
	[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
	[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
	[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
	[IBV_EVENT_COMM_EST] = "communication established",
	[IBV_EVENT_SQ_DRAINED] = "send queue drained",
	[IBV_EVENT_PATH_MIG] = "path migrated",
	[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
	[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
	[IBV_EVENT_PORT_ACTIVE] = "port active",
	[IBV_EVENT_PORT_ERR] = "port error",
	[IBV_EVENT_LID_CHANGE] = "LID change",
	[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
	[IBV_EVENT_SM_CHANGE] = "SM change",
	[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
	[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
	[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
	[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
	[IBV_EVENT_GID_CHANGE] = "GID table change",
	[IBV_EVENT_WQ_FATAL] = "WQ fatal",
};

/*
 * Per rate: the multiple of 2.5 Gb/s and the Mb/s.  A zero mult means that
 * ibv_rate_to_mult() has no answer (-1) for the rate, as in Debian's
 * library, which gives multiples only for the SDR-based rates and for
 * 28, 50, 400, 600, 800 and 1200 Gb/s.
 */
struct rxd_rate {
	int mult;
	int mbps;
};

static const struct rxd_rate rate_tab[] = {
	[IBV_RATE_2_5_GBPS] = { 1, 2500 },
	[IBV_RATE_5_GBPS] = { 2, 5000 },
	[IBV_RATE_10_GBPS] = { 4, 10000 },
	[IBV_RATE_20_GBPS] = { 8, 20000 },
	[IBV_RATE_30_GBPS] = { 12, 30000 },
	[IBV_RATE_40_GBPS] = { 16, 40000 },
	[IBV_RATE_60_GBPS] = { 24, 60000 },
	[IBV_RATE_80_GBPS] = { 32, 80000 },
	[IBV_RATE_120_GBPS] = { 48, 120000 },
	[IBV_RATE_14_GBPS] = { 0, 14062 },
	[IBV_RATE_56_GBPS] = { 0, 56250 },
	[IBV_RATE_112_GBPS] = { 0, 112500 },
	[IBV_RATE_168_GBPS] = { 0, 168750 },
	[IBV_RATE_25_GBPS] = { 0, 25781 },
	[IBV_RATE_100_GBPS] = { 0, 103125 },
	[IBV_RATE_200_GBPS] = { 0, 206250 },
	[IBV_RATE_300_GBPS] = { 0, 309375 },
	[IBV_RATE_28_GBPS] = { 11, 28125 },
	[IBV_RATE_50_GBPS] = { 20, 53125 },
	[IBV_RATE_400_GBPS] = { 160, 425000 },
	[IBV_RATE_600_GBPS] = { 240, 637500 },
	[IBV_RATE_800_GBPS] = { 320, 850000 },
	[IBV_RATE_1200_GBPS] = { 480, 1275000 },
};

/* Entry @v of a string table, "unknown" when out of range or empty. */
static const char *
str_lookup(const char *const *tab, size_t n, long v)
{
	if (v < 0 || (unsigned long)v >= n || tab[v] == NULL)
		return rxd_unknown;
	return tab[v];
}

const char *
ibv_wc_status_str(enum ibv_wc_status status)
{
	return str_lookup(wc_status_str, RXD_ARRAY_SIZE(wc_status_str),
			  (long)status);
}

const char *
ibv_node_type_str(enum ibv_node_type node_type)
{
	return str_lookup(node_type_str, RXD_ARRAY_SIZE(node_type_str),
			  (long)node_type);
}

const char *
ibv_port_state_str(enum ibv_port_state port_state)
{
	return str_lookup(port_state_str, RXD_ARRAY_SIZE(port_state_str),
			  (long)port_state);
}

const char *
ibv_event_type_str(enum ibv_event_type event)
{
	return str_lookup(event_type_str, RXD_ARRAY_SIZE(event_type_str),
			  (long)event);
}

/* The table row of @rate, NULL when the value is not a known rate. */
static const struct rxd_rate *
rate_row(enum ibv_rate rate)
{
	long v = (long)rate;

	if (v <= 0 || (unsigned long)v >= RXD_ARRAY_SIZE(rate_tab) ||
	    rate_tab[v].mbps == 0)
		return NULL;
	return &rate_tab[v];
}

int
ibv_rate_to_mult(enum ibv_rate rate)
{
	const struct rxd_rate *r = rate_row(rate);

	return r != NULL && r->mult != 0 ? r->mult : -1;
}

int
ibv_rate_to_mbps(enum ibv_rate rate)
{
	const struct rxd_rate *r = rate_row(rate);

	return r != NULL ? r->mbps : -1;
}

enum ibv_rate
mult_to_ibv_rate(int mult)
{
	size_t i;

	if (mult <= 0)
		return IBV_RATE_MAX;
	for (i = 0; i < RXD_ARRAY_SIZE(rate_tab); i++)
		if (rate_tab[i].mult == mult)
			return (enum ibv_rate)i;
	return IBV_RATE_MAX;
}

enum ibv_rate
mbps_to_ibv_rate(int mbps)
{
	size_t i;

	if (mbps <= 0)
		return IBV_RATE_MAX;
	for (i = 0; i < RXD_ARRAY_SIZE(rate_tab); i++)
		if (rate_tab[i].mbps == mbps)
			return (enum ibv_rate)i;
	return IBV_RATE_MAX;
}
