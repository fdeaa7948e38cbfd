/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of lib/config shared by its files: the key table entry, the
 * value types and their operations, sections, and small text helpers.
 */
#ifndef RXD_CONF_PRIV_H
#define RXD_CONF_PRIV_H

#include <stdarg.h>

#include <rte_common.h>

#include "rxd_config.h"

/** Longest line of an INI file (rte_cfgfile fails on longer ones). */
#define RXD_CONF_LINE_MAX 320
/** Longest value (rte_cfgfile keeps CFG_VALUE_LEN - 1 characters). */
#define RXD_CONF_VALUE_MAX 255

/** Kinds of section; PORT stands for port0..port7. */
enum rxd_conf_sect {
	RXD_CONF_SECT_ENGINE,
	RXD_CONF_SECT_LIMITS,
	RXD_CONF_SECT_LOG,
	RXD_CONF_SECT_PORT,
};

/** Section instances: engine, limits, log, port0..port7. */
#define RXD_CONF_N_SLOTS (RXD_CONF_SECT_PORT + RXD_MAX_PORTS)

/** Value types; each has the operations of struct rxd_conf_type_ops. */
enum rxd_conf_type {
	RXD_CONF_T_UINT,	/**< unsigned integer, size 2, 4 or 8 */
	RXD_CONF_T_BOOL,	/**< bool */
	RXD_CONF_T_RATE,	/**< double 0..1, "0.05" or "5%" */
	RXD_CONF_T_STR,		/**< char[size], may be empty */
	RXD_CONF_T_ENUM,	/**< a name of k->names, stored as uint32 */
	RXD_CONF_T_OPCODE,	/**< int, -1 ("none") or 0..255 */
	RXD_CONF_T_ADDRS,	/**< the port's address list */
	RXD_CONF_T_GATEWAY,	/**< the port's gateways */
	RXD_CONF_T_LCORES,	/**< the engine lcore list */
	RXD_CONF_T_COUNT,
};

/** One configuration key; the table of these is the single reference. */
struct rxd_conf_key {
	enum rxd_conf_sect sect;	/**< section it belongs to */
	const char *name;		/**< key name in the file */
	enum rxd_conf_type type;	/**< value type */
	const char *def;		/**< default text, NULL = zero */
	uint64_t min, max;		/**< range (UINT, ENUM values) */
	size_t off;			/**< in rxd_conf or rxd_conf_port */
	size_t size;			/**< size of the field */
	const char *const *names;	/**< ENUM: names of min, min+1, ... */
	bool numeric;			/**< ENUM: numbers accepted as well */
	const char *doc;		/**< one-line meaning */
};

/** Operations of a value type.  base is the rxd_conf or rxd_conf_port. */
struct rxd_conf_type_ops {
	const char *label;	/**< type name in the reference */
	/** Parse text (trimmed, may be empty) and store it; why on error. */
	int (*parse)(const struct rxd_conf_key *k, void *base, const char *s,
		char *why, size_t len);
	/** Format the stored value in the file's syntax. */
	void (*format)(const struct rxd_conf_key *k, const void *base,
		char *buf, size_t len);
	/** Check the stored value; why on error. */
	int (*check)(const struct rxd_conf_key *k, const void *base,
		char *why, size_t len);
	/** Describe the accepted values for the reference. */
	void (*range)(const struct rxd_conf_key *k, char *buf, size_t len);
};

extern const struct rxd_conf_key rxd_conf_keys[];
extern const unsigned rxd_conf_n_keys;
extern const struct rxd_conf_type_ops *const rxd_conf_types[RXD_CONF_T_COUNT];

/* rxd_conf_lists.c: the list types */
extern const struct rxd_conf_type_ops rxd_conf_type_addrs;
extern const struct rxd_conf_type_ops rxd_conf_type_gateway;
extern const struct rxd_conf_type_ops rxd_conf_type_lcores;

/* rxd_conf_keys.c */
const char *rxd_conf_sect_name(enum rxd_conf_sect s);
int rxd_conf_slot_find(const char *name);
void rxd_conf_slot_name(int slot, char *buf, size_t len);
enum rxd_conf_sect rxd_conf_slot_sect(int slot);
void *rxd_conf_slot_base(struct rxd_conf *c, int slot);
const void *rxd_conf_slot_cbase(const struct rxd_conf *c, int slot);
int rxd_conf_key_find(enum rxd_conf_sect s, const char *name);
int rxd_conf_key_parse(const struct rxd_conf_key *k, void *base,
	const char *s, char *why, size_t len);

/* rxd_conf.c */
int rxd_conf_slot_set(struct rxd_conf *c, int slot, const char *key,
	const char *value, char *why, size_t len);

/* rxd_conf_addr.c */
int rxd_conf_addr_check(const struct rxd_conf_addr *a, bool need_prefix,
	char *why, size_t len);
bool rxd_conf_addr_equal(const struct rxd_conf_addr *a,
	const struct rxd_conf_addr *b);
bool rxd_conf_addr_in_subnet(const struct rxd_conf_addr *a,
	const struct rxd_conf_addr *net);

/* rxd_conf_file.c */
int rxd_conf_file_apply(struct rxd_conf *c, const char *path,
	char *err, size_t errlen);

/* rxd_conf_env.c */
int rxd_conf_env_apply(struct rxd_conf *c, bool with_file,
	char *err, size_t errlen);

/* rxd_conf_args.c */
int rxd_conf_args_config(int argc, char **argv, bool lenient,
	const char **path, char *err, size_t errlen);
int rxd_conf_args_apply(struct rxd_conf *c, int argc, char **argv,
	bool *used, char *err, size_t errlen);

/* rxd_conf_util.c */
void rxd_conf_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
size_t rxd_conf_written_len(const char *s);
char *rxd_conf_trim(char *s);
int rxd_conf_parse_u64(const char *s, uint64_t *v);
void rxd_conf_store_uint(void *field, size_t size, uint64_t v);
uint64_t rxd_conf_load_uint(const void *field, size_t size);
int rxd_conf_port_prefix(const char *s, unsigned *port, const char **rest);

#endif /* RXD_CONF_PRIV_H */
