/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd configuration: the settings of the stack (ports, engines, limits,
 * logging, fault injection, capture) and the ways they are given.
 *
 * This header owns struct rxd_conf and its API.  Values come, in increasing
 * order of precedence, from the built-in defaults, an INI file (read with
 * DPDK's rte_cfgfile; named by --config or RXD_CONFIG), the RXD_*
 * environment variables and the application's command-line options.
 * Every key is described once, in the table of lib/config/rxd_conf_keys.c,
 * which drives parsing, defaults, validation, the INI writer and the
 * reference in doc/configuration.md.
 *
 * Errors are one line, written into a caller-supplied buffer:
 *   file:line: [section] key: reason     (INI file)
 *   VARIABLE: reason                     (environment)
 *   --option: reason                     (command line)
 *   [section] key: reason                (rxd_conf_validate)
 * Control characters of the text a message quotes are shown as '?'.
 * Nothing in this library prints.
 */
#ifndef RXD_CONFIG_H
#define RXD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RXD_MAX_PORTS 8		/**< [port0] .. [port7] */
#define RXD_MAX_ADDRS 8		/**< addresses per port */
#define RXD_MAX_LCORES 16	/**< engine lcores */
#define RXD_MAX_SHARDS 8	/**< engines per port (its queues) */

/** A buffer this large holds any message of this library. */
#define RXD_CONF_ERRLEN 512
/** A buffer this large holds any rxd_conf_addr_str() result. */
#define RXD_CONF_ADDRSTRLEN 52

/** An IPv4 or IPv6 address with its prefix length. */
struct rxd_conf_addr {
	uint8_t family;		/**< AF_INET or AF_INET6 */
	uint8_t prefix;		/**< 1..32 / 1..128; 0 = none (gateways) */
	uint8_t addr[16];	/**< network order; IPv4 in the first 4 bytes */
};

/** What an engine lcore does when a poll found no work. */
enum rxd_idle_policy {
	RXD_IDLE_SPIN,	/**< keep polling */
	RXD_IDLE_PAUSE,	/**< rte_pause() between polls */
	RXD_IDLE_SLEEP,	/**< sleep, at most idle_sleep_max_us at a time */
};

/** Fault injection for one direction of one port (applied by pmd_glue). */
struct rxd_conf_fault {
	double drop;		/**< probability 0..1 of dropping a frame */
	double dup;		/**< probability of sending a frame twice */
	double reorder;		/**< probability of holding a frame back */
	double corrupt;		/**< probability of flipping a byte */
	uint16_t reorder_depth;	/**< frames a held-back frame waits for */
	bool cut;		/**< drop every frame (link cut) */
	int drop_opcode;	/**< -1 none, else BTH opcode to drop */
	uint32_t only_qpn;	/**< 0, or the destination QP faults touch */
};

/** The rate law pacing a port's QPs (doc/congestion.md). */
enum rxd_cc_mode {
	RXD_CC_OFF,	/**< QPs unpaced; CNPs counted, not obeyed */
	RXD_CC_DCQCN,	/**< DCQCN with the fixed steps of the dcqcn keys */
	RXD_CC_ECN,	/**< scale-free DCQCN: steps follow the rate */
	RXD_CC_DELAY,	/**< the delay law, on sampled round trips */
};

/** DCQCN reaction point of a port's QPs (doc/architecture.md); the line
 *  rate and bucket depth pace every mode but off. */
struct rxd_conf_dcqcn {
	uint32_t line_mbps;	/**< rate before the first CNP, and the cap */
	uint32_t min_mbps;	/**< lowest rate */
	double g;		/**< alpha gain */
	uint32_t alpha_us;	/**< alpha update period */
	uint32_t cut_gap_us;	/**< least time between two cuts */
	uint32_t timer_us;	/**< rate increase timer */
	uint32_t byte_reset;	/**< rate increase byte counter */
	uint32_t fr_steps;	/**< fast recovery steps */
	uint32_t ai_mbps;	/**< additive increase */
	uint32_t hai_mbps;	/**< hyper increase */
	uint32_t burst_bytes;	/**< token bucket depth */
};

/** Settings of one DPDK port ([portN]). */
struct rxd_conf_port {
	bool present;		/**< named by the file, env or options */
	struct rxd_conf_addr addrs[RXD_MAX_ADDRS];	/**< its GIDs */
	unsigned n_addrs;	/**< entries used in addrs */
	struct rxd_conf_addr gw4, gw6;	/**< default gateways */
	bool has_gw4, has_gw6;	/**< whether gw4 / gw6 are set */
	uint16_t mtu;		/**< Ethernet MTU, default 1500, 68..9600 */
	uint16_t vlan;		/**< 802.1Q VLAN id, 0 = none, 1..4094 */
	uint16_t rx_queues;	/**< DPDK rx queues */
	uint16_t tx_queues;	/**< DPDK tx queues */
	uint16_t engines_per_port;	/**< engines sharing the port's QPs */
	uint16_t rx_desc;	/**< descriptors per rx queue */
	uint16_t tx_desc;	/**< descriptors per tx queue */
	struct rxd_conf_fault fault_rx;	/**< faults on received frames */
	struct rxd_conf_fault fault_tx;	/**< faults on sent frames */
	uint64_t fault_seed;	/**< seed of the fault injection PRNG */
	char capture[256];	/**< pcapng path, "" = off */
	uint32_t arp_probe_ms;	/**< RFC 5227 PROBE_WAIT, 0 = no probes */
	bool ecn;		/**< send RoCEv2 frames with ECT(0) */
	uint32_t cnp_interval_us;	/**< least time between CNPs of a QP */
	uint32_t cnp_dscp;	/**< DSCP of the CNPs sent */
	uint32_t keepalive_ms;	/**< idle time before an RC QP probes */
	enum rxd_cc_mode cc;	/**< the law pacing the QPs */
	struct rxd_conf_dcqcn dcqcn;	/**< the QPs' rate control */
};

/** The whole configuration. */
struct rxd_conf {
	struct rxd_conf_port port[RXD_MAX_PORTS];	/**< per DPDK port */
	unsigned engine_lcores[RXD_MAX_LCORES];	/**< lcores running engines */
	unsigned n_engine_lcores;	/**< 0 = all worker lcores */
	enum rxd_idle_policy idle;	/**< idle back-off policy */
	uint32_t idle_sleep_max_us;	/**< longest idle sleep */
	uint32_t idle_spins;	/**< empty polls before backing off */
	char eal_args[288];	/**< EAL command line for a lazy start */
	uint32_t sq_depth;	/**< largest send queue (max_qp_wr) */
	uint32_t rq_depth;	/**< largest receive queue of a QP */
	uint32_t srq_depth;	/**< largest SRQ (max_srq_wr) */
	uint32_t cq_depth;	/**< largest CQ (max_cqe) */
	uint32_t max_qp;	/**< QPs per device */
	uint32_t max_mr;	/**< MRs per device */
	uint32_t max_cq;	/**< CQs per device */
	uint32_t max_srq;	/**< SRQs per device, 0 = no SRQ */
	uint32_t mbufs;		/**< per-port mbuf pool size */
	uint32_t log_level;	/**< rte_log level 1 (emerg) .. 8 (debug) */
	char source[256];	/**< the last file loaded, for messages */
};

/**
 * Fill a configuration with the built-in defaults (doc/configuration.md).
 * No port is marked present.
 *
 * @param c
 *   The configuration to overwrite.
 */
void rxd_conf_defaults(struct rxd_conf *c);

/**
 * Read an INI file over a configuration: keys in the file replace the
 * values in c, other values are kept.  Sections [portN] mark port N present.
 * On error c is left unchanged.
 *
 * @param c
 *   The configuration to update (usually from rxd_conf_defaults()).
 * @param path
 *   The file; messages name it as given.
 * @param err
 *   Receives the one-line message on error:
 *   "path:line: [section] key: reason", or "path: cannot open: reason".
 * @param errlen
 *   Size of err (RXD_CONF_ERRLEN is always enough).
 * @return
 *   0 on success, -1 on error.
 */
int rxd_conf_load_file(struct rxd_conf *c, const char *path,
	char *err, size_t errlen);

/**
 * Apply the environment: load the file named by RXD_CONFIG, then apply
 * RXD_ADDR (port 0 addresses, replacing them), RXD_MTU (port 0 MTU) and
 * RXD_LOG (log level, number or name).  Unset or empty variables are
 * ignored.  On error c is left unchanged.
 *
 * @param c
 *   The configuration to update.
 * @param err
 *   Receives "VARIABLE: reason" (or the file's own message) on error.
 * @param errlen
 *   Size of err.
 * @return
 *   0 on success, -1 on error.
 */
int rxd_conf_apply_env(struct rxd_conf *c, char *err, size_t errlen);

/**
 * Apply application options (those after EAL's "--"; argv[0] is the
 * program name and is skipped).  Options, as "--opt VALUE" or "--opt=VALUE":
 * --config FILE (loaded first, wherever it appears), --ip [PORT:]ADDR/PREFIX
 * (repeatable; the first one for a port replaces its addresses),
 * --mtu [PORT:]N, --lcores LIST, --idle spin|pause|sleep, --log LEVEL,
 * --set SECTION.KEY=VALUE (any key of the file).  Any other argument is an
 * error.  argv is not modified.  On error c is left unchanged.
 *
 * @param c
 *   The configuration to update.
 * @param argc
 *   Number of entries in argv.
 * @param argv
 *   The options.
 * @param err
 *   Receives "--option: reason" or "unknown option '--x'" on error.
 * @param errlen
 *   Size of err.
 * @return
 *   0 on success, -1 on error.
 */
int rxd_conf_apply_args(struct rxd_conf *c, int argc, char **argv,
	char *err, size_t errlen);

/**
 * Build the configuration the way rxd starts: defaults, then the file
 * (--config, else RXD_CONFIG), then the environment, then the options,
 * then rxd_conf_validate().  The options rxd understands (those of
 * rxd_conf_apply_args()) are removed from argv and *argc is updated; the
 * others are left, in order, for the application.
 *
 * @param c
 *   The configuration to fill.
 * @param argc
 *   In: number of entries in argv; out: number left.  May be NULL if
 *   argv is NULL.
 * @param argv
 *   The application options, argv[0] being the program name; may be NULL.
 * @param err
 *   Receives the message on error.
 * @param errlen
 *   Size of err.
 * @return
 *   0 on success, -1 on error.
 */
int rxd_conf_load(struct rxd_conf *c, int *argc, char **argv,
	char *err, size_t errlen);

/**
 * Check a complete configuration: every value in its range, then the
 * relations between values (gateway inside a subnet of the port, no address
 * twice, enough mbufs for the descriptors, ...).
 *
 * @param c
 *   The configuration.
 * @param err
 *   Receives "[section] key: reason" on error.
 * @param errlen
 *   Size of err.
 * @return
 *   0 if valid, -1 otherwise.
 */
int rxd_conf_validate(const struct rxd_conf *c, char *err, size_t errlen);

/**
 * Set one key from its text, as if read from a file.  A [portN] section
 * marks port N present.
 *
 * @param c
 *   The configuration to update.
 * @param section
 *   "engine", "limits", "log" or "port0".."port7".
 * @param key
 *   A key of that section, e.g. "mtu" or "fault.rx.drop".
 * @param value
 *   Its value in the file's syntax.
 * @param err
 *   Receives "[section] key: reason" on error.
 * @param errlen
 *   Size of err.
 * @return
 *   0 on success, -1 on error (c unchanged).
 */
int rxd_conf_set(struct rxd_conf *c, const char *section, const char *key,
	const char *value, char *err, size_t errlen);

/**
 * Parse "ADDR/PREFIX" (IPv4 or IPv6).
 *
 * @param a
 *   Receives the address.
 * @param s
 *   The text; surrounding blanks are ignored.
 * @param need_prefix
 *   true: "/PREFIX" is required; false: it is refused (gateways).
 * @param err
 *   Receives the reason on error, e.g. "'10.0.0.1/33': prefix 33 is out of
 *   range 1..32".
 * @param errlen
 *   Size of err.
 * @return
 *   0 on success, -1 on error.
 */
int rxd_conf_addr_parse(struct rxd_conf_addr *a, const char *s,
	bool need_prefix, char *err, size_t errlen);

/**
 * Format an address as "10.0.0.1/24" or "fe80::1/64" (no "/PREFIX" when
 * the prefix is 0).
 *
 * @param a
 *   The address.
 * @param buf
 *   Receives the text (RXD_CONF_ADDRSTRLEN bytes are enough).
 * @param len
 *   Size of buf.
 * @return
 *   buf.
 */
char *rxd_conf_addr_str(const struct rxd_conf_addr *a, char *buf, size_t len);

/**
 * Write a configuration as an INI file that rxd_conf_load_file() reads
 * back to the same values: [engine], [limits], [log] and every present port.
 *
 * @param c
 *   The configuration.
 * @param f
 *   Where to write.
 * @return
 *   0 on success, -1 on a write error.
 */
int rxd_conf_write(const struct rxd_conf *c, FILE *f);

/**
 * Write the key reference (a Markdown table: section, key, type, default,
 * range, meaning), generated from the key table; doc/configuration.md
 * carries a copy that a unit test keeps in sync.
 *
 * @param f
 *   Where to write.
 * @return
 *   0 on success, -1 on a write error.
 */
int rxd_conf_write_reference(FILE *f);

/**
 * Write a usage text for the application options (one per line, indented
 * by two spaces), for an application's --help.
 *
 * @param f
 *   Where to write.
 * @return
 *   0 on success, -1 on a write error.
 */
int rxd_conf_write_usage(FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* RXD_CONFIG_H */
