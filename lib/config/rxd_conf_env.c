/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RXD_* environment variables (the interface of unmodified verbs
 * programs, fixed by DESIGN.md section 7): RXD_CONFIG names the INI file;
 * the others set one key each, listed in env_vars[].  RXD_DCQCN, replaced
 * by RXD_CC, is refused.  RXD_EAL_ARGS is read
 * by whoever initialises EAL, not here.
 */
#include <stdlib.h>

#include "rxd_conf_priv.h"

static const struct env_var {
	const char *name;	/* variable */
	int slot;		/* section instance */
	const char *key;	/* key in it */
} env_vars[] = {
	{ "RXD_ADDR", RXD_CONF_SECT_PORT + 0, "addr" },
	{ "RXD_MTU", RXD_CONF_SECT_PORT + 0, "mtu" },
	{ "RXD_ENGINES_PER_PORT", RXD_CONF_SECT_PORT + 0, "engines_per_port" },
	{ "RXD_LOG", RXD_CONF_SECT_LOG, "level" },
	{ "RXD_ECN", RXD_CONF_SECT_PORT + 0, "ecn" },
	{ "RXD_CC", RXD_CONF_SECT_PORT + 0, "cc" },
	{ "RXD_KEEPALIVE_MS", RXD_CONF_SECT_PORT + 0, "keepalive_ms" },
};

/* Apply the environment over c (RXD_CONFIG only if with_file). */
int
rxd_conf_env_apply(struct rxd_conf *c, bool with_file, char *err,
	size_t errlen)
{
	char why[RXD_CONF_ERRLEN];
	const char *v;
	unsigned i;

	/* RXD_DCQCN (a boolean) became RXD_CC: set, it is an error, for a
	 * script that still says RXD_DCQCN=false would run paced */
	v = getenv("RXD_DCQCN");
	if (v != NULL && *v != '\0') {
		rxd_conf_err(err, errlen, "RXD_DCQCN: replaced by RXD_CC "
			"(off, dcqcn, ecn or delay)");
		return -1;
	}
	v = getenv("RXD_CONFIG");
	if (with_file && v != NULL && *v != '\0' &&
	    rxd_conf_file_apply(c, v, err, errlen) < 0)
		return -1;
	for (i = 0; i < RTE_DIM(env_vars); i++) {
		v = getenv(env_vars[i].name);
		if (v == NULL || *v == '\0')
			continue;
		if (rxd_conf_slot_set(c, env_vars[i].slot, env_vars[i].key, v,
				why, sizeof(why)) < 0) {
			rxd_conf_err(err, errlen, "%s: %s", env_vars[i].name,
				why);
			return -1;
		}
	}
	return 0;
}
