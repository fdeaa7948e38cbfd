/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table of configuration keys and the sections holding them.  This
 * table is the one description of every setting: parsing, defaults,
 * validation, the INI writer and the reference in doc/configuration.md all
 * read it.  To add a setting, add a field to struct rxd_conf and a line here.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rxd_conf_priv.h"

#define FIELD_OF(type, m) offsetof(type, m), sizeof(((type *)0)->m)
#define E(m) FIELD_OF(struct rxd_conf, m)
#define P(m) FIELD_OF(struct rxd_conf_port, m)

#define UINT(s, n, d, lo, hi, fld, txt) \
	{ .sect = RXD_CONF_SECT_##s, .name = n, .type = RXD_CONF_T_UINT, \
	  .def = d, .min = lo, .max = hi, .off = fld, .doc = txt }
#define TYPED(s, n, t, d, fld, txt) \
	{ .sect = RXD_CONF_SECT_##s, .name = n, .type = RXD_CONF_T_##t, \
	  .def = d, .off = fld, .doc = txt }
/* List types: the operations take the section's whole struct. */
#define LIST(s, n, t, d, txt) \
	{ .sect = RXD_CONF_SECT_##s, .name = n, .type = RXD_CONF_T_##t, \
	  .def = d, .doc = txt }

#define FAULT_KEYS(dir, what) \
	TYPED(PORT, "fault." #dir ".drop", RATE, "0", P(fault_##dir.drop), \
		"probability of dropping a " what " frame"), \
	TYPED(PORT, "fault." #dir ".dup", RATE, "0", P(fault_##dir.dup), \
		"probability of duplicating a " what " frame"), \
	TYPED(PORT, "fault." #dir ".reorder", RATE, "0", \
		P(fault_##dir.reorder), \
		"probability of holding a " what " frame back so that " \
		"later frames overtake it"), \
	UINT(PORT, "fault." #dir ".reorder_depth", "4", 1, 64, \
		P(fault_##dir.reorder_depth), \
		"later frames a held-back " what " frame waits for; " \
		"also the most frames held at once"), \
	TYPED(PORT, "fault." #dir ".corrupt", RATE, "0", \
		P(fault_##dir.corrupt), \
		"probability of flipping one byte of a " what " frame"), \
	TYPED(PORT, "fault." #dir ".cut", BOOL, "false", P(fault_##dir.cut), \
		"drop every " what " frame (link cut)"), \
	TYPED(PORT, "fault." #dir ".drop_opcode", OPCODE, "none", \
		P(fault_##dir.drop_opcode), \
		"drop every " what " RoCE frame with this BTH opcode"), \
	UINT(PORT, "fault." #dir ".only_qpn", "0", 0, 0xffffff, \
		P(fault_##dir.only_qpn), \
		"0: the faults apply to every " what " frame; else only " \
		"to RoCEv2 frames for this destination QP (1: CM MADs), " \
		"all others pass untouched")

static const char *const idle_names[] = { "spin", "pause", "sleep" };
static const char *const cc_names[] = { "off", "dcqcn", "ecn", "delay" };
static const char *const log_names[] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

const struct rxd_conf_key rxd_conf_keys[] = {
	LIST(ENGINE, "lcores", LCORES, "all",
		"lcores that run engines; all = every worker lcore of EAL"),
	{ .sect = RXD_CONF_SECT_ENGINE, .name = "idle",
	  .type = RXD_CONF_T_ENUM, .def = "sleep", .min = RXD_IDLE_SPIN,
	  .max = RXD_IDLE_SLEEP, .off = E(idle), .names = idle_names,
	  .doc = "what an engine does after idle_spins empty polls: "
		"keep spinning, rte_pause(), or sleep" },
	UINT(ENGINE, "idle_spins", "1000", 0, 100000000, E(idle_spins),
		"empty polls before an engine backs off"),
	UINT(ENGINE, "idle_sleep_max_us", "100", 1, 1000000,
		E(idle_sleep_max_us),
		"longest single sleep of an idle engine, in microseconds"),
	TYPED(ENGINE, "eal_args", STR, "", E(eal_args),
		"the EAL command line of a program that starts rxd through "
		"the compat libraries (unmodified verbs programs, rxd-run); "
		"RXD_EAL_ARGS wins; ignored by programs that start EAL "
		"themselves"),

	UINT(LIMITS, "sq_depth", "16384", 1, 1048576, E(sq_depth),
		"largest send queue of a QP, in WRs (max_qp_wr)"),
	UINT(LIMITS, "rq_depth", "16384", 1, 1048576, E(rq_depth),
		"largest receive queue of a QP, in WRs"),
	UINT(LIMITS, "srq_depth", "16384", 1, 1048576, E(srq_depth),
		"largest shared receive queue, in WRs (max_srq_wr; "
		"one SRQ feeds many QPs)"),
	UINT(LIMITS, "cq_depth", "1048575", 1, 4194303, E(cq_depth),
		"largest CQ, in completions (max_cqe)"),
	UINT(LIMITS, "max_qp", "16384", 1, 1048576, E(max_qp),
		"QPs per device (max_qp)"),
	UINT(LIMITS, "max_mr", "65536", 1, 1048576, E(max_mr),
		"memory regions per device (max_mr)"),
	UINT(LIMITS, "max_cq", "16384", 1, 1048576, E(max_cq),
		"CQs per device (max_cq)"),
	UINT(LIMITS, "max_srq", "1024", 0, 65536, E(max_srq),
		"SRQs per device (max_srq); 0 = no SRQ support"),
	UINT(LIMITS, "mbufs", "16383", 255, 16777215, E(mbufs),
		"mbufs in each port's pool (best 2^n - 1); must cover "
		"rx_queues * rx_desc + tx_queues * tx_desc"),

	{ .sect = RXD_CONF_SECT_LOG, .name = "level",
	  .type = RXD_CONF_T_ENUM, .def = "notice", .min = 1, .max = 8,
	  .off = E(log_level), .names = log_names, .numeric = true,
	  .doc = "rte_log level of the rxd.* log types" },

	LIST(PORT, "addr", ADDRS, NULL,
		"addresses (GIDs) of the port, comma-separated"),
	LIST(PORT, "gateway", GATEWAY, NULL,
		"default gateways; must lie in a subnet of addr "
		"(IPv6 link-local always does)"),
	UINT(PORT, "mtu", "1500", 68, 9600, P(mtu),
		"Ethernet MTU; the RoCE active MTU is the largest of "
		"256..4096 that fits MTU - 80"),
	UINT(PORT, "vlan", "0", 0, 4094, P(vlan),
		"802.1Q VLAN id of RoCE traffic; 0 = untagged"),
	UINT(PORT, "rx_queues", "1", 1, RXD_MAX_LCORES, P(rx_queues),
		"DPDK receive queues; with 2 or more, RSS over IP/UDP where "
		"the device has it; the port's engine polls them all"),
	UINT(PORT, "tx_queues", "1", 1, RXD_MAX_LCORES, P(tx_queues),
		"DPDK transmit queues"),
	UINT(PORT, "engines_per_port", "1", 1, RXD_MAX_SHARDS,
		P(engines_per_port),
		"engines serving the port, each with its own receive and "
		"transmit queue (on memif and ring N × N queue pairs, N "
		"transmit queues each: lanes, see `RXD_STEERING`; both ends "
		"of a memif link need the same count); a QP belongs to one "
		"of them (QPN modulo the "
		"count, QP1 to the first); at most the engine lcores and the "
		"queues the device has"),
	UINT(PORT, "rx_desc", "1024", 64, 16384, P(rx_desc),
		"descriptors per receive queue"),
	UINT(PORT, "tx_desc", "1024", 64, 16384, P(tx_desc),
		"descriptors per transmit queue"),
	UINT(PORT, "arp_probe_ms", "1000", 0, 60000, P(arp_probe_ms),
		"RFC 5227 PROBE_WAIT: at start and link up, ARP probes for "
		"the IPv4 addresses 1 to 2 of these apart, then two "
		"announcements 2 apart (rxd uses the addresses meanwhile); "
		"0 = one announcement at once, no probes"),
	TYPED(PORT, "ecn", BOOL, "true", P(ecn),
		"send RoCEv2 frames ECN-capable (ECT(0)); CE-marked frames "
		"are answered with CNPs either way"),
	UINT(PORT, "cnp_interval_us", "50", 0, 1000000, P(cnp_interval_us),
		"least time between two CNPs sent to one QP, in microseconds "
		"(the DCQCN paper's N)"),
	UINT(PORT, "cnp_dscp", "48", 0, 63, P(cnp_dscp),
		"DSCP of the CNPs sent (mlx5's cnp_dscp)"),
	UINT(PORT, "keepalive_ms", "5000", 0, 3600000, P(keepalive_ms),
		"an RC QP that heard its peer and has received nothing and "
		"has nothing outstanding for this long probes it (a 0-byte "
		"duplicate WRITE, answered by an ACK); unanswered retry_cnt "
		"+ 1 times, one ACK timeout apart, the QP goes to ERR with "
		"IBV_EVENT_QP_FATAL; 0 = never"),
	{ .sect = RXD_CONF_SECT_PORT, .name = "cc",
	  .type = RXD_CONF_T_ENUM, .def = "dcqcn", .min = RXD_CC_OFF,
	  .max = RXD_CC_DELAY, .off = P(cc), .names = cc_names,
	  .doc = "the law pacing each QP, from dcqcn.line_rate_mbps down: "
		"dcqcn, cut by CNPs with the fixed steps of the dcqcn keys; "
		"ecn, cut by CNPs with steps that follow the rate; delay, "
		"by sampled round trips (CNPs ignored); off, unpaced" },
	UINT(PORT, "dcqcn.line_rate_mbps", "100000", 1, 1000000,
		P(dcqcn.line_mbps),
		"the port's rate: a paced QP starts there (under DCQCN, its "
		"rate before the first CNP) and never sends faster"),
	UINT(PORT, "dcqcn.min_rate_mbps", "1", 1, 1000000, P(dcqcn.min_mbps),
		"the lowest rate a QP is cut to (mlx5's rpg_min_rate)"),
	TYPED(PORT, "dcqcn.g", RATE, "0.00390625", P(dcqcn.g),
		"alpha gain g (the DCQCN paper: 1/256)"),
	UINT(PORT, "dcqcn.alpha_update_us", "55", 1, 1000000,
		P(dcqcn.alpha_us),
		"alpha decays by (1 - g) every this many microseconds without "
		"a CNP (the paper's K)"),
	UINT(PORT, "dcqcn.rate_reduce_monitor_period_us", "4", 0, 1000000,
		P(dcqcn.cut_gap_us),
		"at most one rate cut per this many microseconds (mlx5)"),
	UINT(PORT, "dcqcn.rpg_time_reset_us", "300", 1, 1000000,
		P(dcqcn.timer_us),
		"rate increase timer T in microseconds (mlx5's rpg_time_reset)"),
	UINT(PORT, "dcqcn.rpg_byte_reset", "32767", 1, 1000000000,
		P(dcqcn.byte_reset),
		"rate increase byte counter B in bytes (mlx5's rpg_byte_reset)"),
	UINT(PORT, "dcqcn.fast_recovery_steps", "5", 0, 1000,
		P(dcqcn.fr_steps),
		"increase events of fast recovery before additive increase "
		"(the paper's F)"),
	UINT(PORT, "dcqcn.rpg_ai_rate_mbps", "40", 0, 1000000,
		P(dcqcn.ai_mbps),
		"additive increase R_AI in Mbit/s (the paper's 40 Mbit/s)"),
	UINT(PORT, "dcqcn.rpg_hai_rate_mbps", "400", 0, 1000000,
		P(dcqcn.hai_mbps),
		"hyper increase R_HAI in Mbit/s (10 x R_AI, mlx5's ratio)"),
	UINT(PORT, "dcqcn.burst_bytes", "16384", 256, 16777216,
		P(dcqcn.burst_bytes),
		"depth of a paced QP's token bucket in bytes"),
	TYPED(PORT, "capture", STR, "", P(capture),
		"pcapng file receiving every frame of the port; empty = off"),
	UINT(PORT, "fault_seed", "1", 0, UINT64_MAX, P(fault_seed),
		"seed of the fault injection PRNG (same seed, same faults)"),
	FAULT_KEYS(rx, "received"),
	FAULT_KEYS(tx, "sent"),
};

const unsigned rxd_conf_n_keys = RTE_DIM(rxd_conf_keys);

static const char *const sect_names[] = {
	[RXD_CONF_SECT_ENGINE] = "engine",
	[RXD_CONF_SECT_LIMITS] = "limits",
	[RXD_CONF_SECT_LOG] = "log",
	[RXD_CONF_SECT_PORT] = "port",
};

const char *
rxd_conf_sect_name(enum rxd_conf_sect s)
{
	return sect_names[s];
}

/* Slot of a section name ("engine", "port3", ...) or -1. */
int
rxd_conf_slot_find(const char *name)
{
	int s;

	for (s = 0; s < RXD_CONF_SECT_PORT; s++)
		if (strcmp(name, sect_names[s]) == 0)
			return s;
	if (strncmp(name, "port", 4) == 0 && name[4] >= '0' &&
	    name[4] < '0' + RXD_MAX_PORTS && name[5] == '\0')
		return RXD_CONF_SECT_PORT + name[4] - '0';
	return -1;
}

void
rxd_conf_slot_name(int slot, char *buf, size_t len)
{
	if (slot < RXD_CONF_SECT_PORT)
		snprintf(buf, len, "%s", sect_names[slot]);
	else
		snprintf(buf, len, "port%d", slot - RXD_CONF_SECT_PORT);
}

enum rxd_conf_sect
rxd_conf_slot_sect(int slot)
{
	return slot < RXD_CONF_SECT_PORT ? (enum rxd_conf_sect)slot :
		RXD_CONF_SECT_PORT;
}

/* The struct a slot's keys are offsets into. */
void *
rxd_conf_slot_base(struct rxd_conf *c, int slot)
{
	if (slot < RXD_CONF_SECT_PORT)
		return c;
	return &c->port[slot - RXD_CONF_SECT_PORT];
}

const void *
rxd_conf_slot_cbase(const struct rxd_conf *c, int slot)
{
	return rxd_conf_slot_base((struct rxd_conf *)(uintptr_t)c, slot);
}

/* Index in rxd_conf_keys of key name in section kind s, or -1. */
int
rxd_conf_key_find(enum rxd_conf_sect s, const char *name)
{
	unsigned i;

	for (i = 0; i < rxd_conf_n_keys; i++)
		if (rxd_conf_keys[i].sect == s &&
		    strcmp(rxd_conf_keys[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Parse and store one value (already trimmed); why says what is wrong. */
int
rxd_conf_key_parse(const struct rxd_conf_key *k, void *base, const char *s,
	char *why, size_t len)
{
	if (*s == '\0' && k->type != RXD_CONF_T_STR) {
		rxd_conf_err(why, len, "missing value");
		return -1;
	}
	if (strlen(s) > RXD_CONF_VALUE_MAX) {
		rxd_conf_err(why, len, "value too long (max %d characters)",
			RXD_CONF_VALUE_MAX);
		return -1;
	}
	return rxd_conf_types[k->type]->parse(k, base, s, why, len);
}
