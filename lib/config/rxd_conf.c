/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration's entry points: defaults, setting one key, loading a
 * file, and rxd_conf_load(), which applies every source in order of
 * precedence (defaults < file < environment < options) and validates.
 * Each public function works on a copy and commits it only on success.
 */
#include <stdlib.h>
#include <string.h>

#include "rxd_conf_priv.h"

void
rxd_conf_defaults(struct rxd_conf *c)
{
	char why[RXD_CONF_ERRLEN];
	const struct rxd_conf_key *k;
	unsigned i;
	int slot;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < rxd_conf_n_keys; i++) {
		k = &rxd_conf_keys[i];
		if (k->def == NULL)
			continue;
		for (slot = 0; slot < RXD_CONF_N_SLOTS; slot++)
			if (rxd_conf_slot_sect(slot) == k->sect)
				rxd_conf_key_parse(k,
					rxd_conf_slot_base(c, slot), k->def,
					why, sizeof(why));
	}
}

/* Set key of a section instance from text; why has no prefix. */
int
rxd_conf_slot_set(struct rxd_conf *c, int slot, const char *key,
	const char *value, char *why, size_t len)
{
	int k = rxd_conf_key_find(rxd_conf_slot_sect(slot), key);
	char *v;
	int rc;

	if (k < 0) {
		rxd_conf_err(why, len, "unknown key");
		return -1;
	}
	v = strdup(value);
	if (v == NULL) {
		rxd_conf_err(why, len, "out of memory");
		return -1;
	}
	rc = rxd_conf_key_parse(&rxd_conf_keys[k],
		rxd_conf_slot_base(c, slot), rxd_conf_trim(v), why, len);
	free(v);
	if (rc == 0 && slot >= RXD_CONF_SECT_PORT)
		c->port[slot - RXD_CONF_SECT_PORT].present = true;
	return rc;
}

/* A working copy of c, or NULL with err set. */
static struct rxd_conf *
conf_copy(const struct rxd_conf *c, char *err, size_t errlen)
{
	struct rxd_conf *t = malloc(sizeof(*t));

	if (t == NULL)
		rxd_conf_err(err, errlen, "rxd configuration: out of memory");
	else if (c != NULL)
		memcpy(t, c, sizeof(*t));
	return t;
}

/* Commit t into c if rc is 0; frees t; returns rc. */
static int
conf_commit(struct rxd_conf *c, struct rxd_conf *t, int rc)
{
	if (rc == 0)
		memcpy(c, t, sizeof(*c));
	free(t);
	return rc;
}

int
rxd_conf_set(struct rxd_conf *c, const char *section, const char *key,
	const char *value, char *err, size_t errlen)
{
	char why[RXD_CONF_ERRLEN];
	int slot = rxd_conf_slot_find(section);
	struct rxd_conf *t;

	if (slot < 0) {
		rxd_conf_err(err, errlen, "[%s]: unknown section", section);
		return -1;
	}
	t = conf_copy(c, err, errlen);
	if (t == NULL)
		return -1;
	if (rxd_conf_slot_set(t, slot, key, value, why, sizeof(why)) < 0) {
		rxd_conf_err(err, errlen, "[%s] %s: %s", section, key, why);
		return conf_commit(c, t, -1);
	}
	return conf_commit(c, t, 0);
}

int
rxd_conf_load_file(struct rxd_conf *c, const char *path, char *err,
	size_t errlen)
{
	struct rxd_conf *t = conf_copy(c, err, errlen);

	if (t == NULL)
		return -1;
	return conf_commit(c, t, rxd_conf_file_apply(t, path, err, errlen));
}

int
rxd_conf_apply_env(struct rxd_conf *c, char *err, size_t errlen)
{
	struct rxd_conf *t = conf_copy(c, err, errlen);

	if (t == NULL)
		return -1;
	return conf_commit(c, t, rxd_conf_env_apply(t, true, err, errlen));
}

int
rxd_conf_apply_args(struct rxd_conf *c, int argc, char **argv, char *err,
	size_t errlen)
{
	struct rxd_conf *t;
	const char *path;
	int rc;

	if (rxd_conf_args_config(argc, argv, false, &path, err, errlen) < 0)
		return -1;
	t = conf_copy(c, err, errlen);
	if (t == NULL)
		return -1;
	rc = path != NULL ? rxd_conf_file_apply(t, path, err, errlen) : 0;
	if (rc == 0)
		rc = rxd_conf_args_apply(t, argc, argv, NULL, err, errlen);
	return conf_commit(c, t, rc);
}

/* Remove the arguments marked used from argv, keeping argv[0]. */
static void
args_compact(int *argc, char **argv, const bool *used)
{
	int i, n = 1;

	for (i = 1; i < *argc; i++)
		if (!used[i])
			argv[n++] = argv[i];
	if (n < *argc)
		argv[n] = NULL;
	*argc = n;
}

/* Every source in order of precedence over t (already defaults). */
static int
load_sources(struct rxd_conf *t, int argc, char **argv, bool *used,
	char *err, size_t errlen)
{
	const char *path = NULL;

	if (rxd_conf_args_config(argc, argv, true, &path, err, errlen) < 0)
		return -1;
	if (path == NULL) {
		path = getenv("RXD_CONFIG");
		if (path != NULL && *path == '\0')
			path = NULL;
	}
	if (path != NULL && rxd_conf_file_apply(t, path, err, errlen) < 0)
		return -1;
	if (rxd_conf_env_apply(t, false, err, errlen) < 0 ||
	    rxd_conf_args_apply(t, argc, argv, used, err, errlen) < 0)
		return -1;
	return rxd_conf_validate(t, err, errlen);
}

int
rxd_conf_load(struct rxd_conf *c, int *argc, char **argv, char *err,
	size_t errlen)
{
	int n = argv != NULL && argc != NULL ? *argc : 0;
	struct rxd_conf *t;
	bool *used;
	int rc;

	used = calloc((size_t)n + 1, sizeof(*used));
	t = conf_copy(NULL, err, errlen);
	if (used == NULL || t == NULL) {
		rxd_conf_err(err, errlen, "rxd configuration: out of memory");
		free(used);
		free(t);
		return -1;
	}
	rxd_conf_defaults(t);
	rc = load_sources(t, n, argv, used, err, errlen);
	if (rc == 0 && n > 0)
		args_compact(argc, argv, used);
	free(used);
	return conf_commit(c, t, rc);
}
