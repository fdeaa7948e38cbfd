/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading an INI file.  DPDK's rte_cfgfile holds the values but reports
 * neither line numbers nor most mistakes (it skips a line without '=',
 * truncates long values, keeps duplicate keys, loses a repeated section).
 * So the file is first scanned line by line here, with the same comment
 * and blank rules as rte_cfgfile: every syntax error, unknown section or
 * key and duplicate is refused with its line, and each key's line is
 * recorded.  Then rte_cfgfile loads the file and each recorded key's value
 * is parsed through the key table, errors again naming the line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_cfgfile.h>

#include "rxd_conf_priv.h"

/* A key found by the scan, in file order. */
struct scan_rec {
	unsigned line;
	int slot;
	int key;
};

struct scan {
	const char *path;
	int slot;				/* current section, -1 = none */
	unsigned slot_line[RXD_CONF_N_SLOTS];	/* 0 = not seen */
	unsigned *key_line;			/* [slot][key], 0 = not seen */
	struct scan_rec *rec;
	unsigned n_rec;
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 3, 4)))
scan_err(struct scan *s, unsigned line, const char *fmt, ...)
{
	char why[RXD_CONF_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rxd_conf_err(s->err, s->errlen, "%s:%u: %s", s->path, line, why);
	return -1;
}

/* rte_cfgfile's rule: the first ';' not preceded by '\' ends the line. */
static void
cut_comment(char *t)
{
	char *p = strchr(t, ';');

	if (p != NULL && (p == t || p[-1] != '\\'))
		*p = '\0';
}

static int
scan_section(struct scan *s, char *t, unsigned line)
{
	size_t n = strlen(t);
	char *name;
	int slot;

	if (t[n - 1] != ']' || strpbrk(t + 1, "[]") != t + n - 1)
		return scan_err(s, line, "syntax error: '%s' is not a "
			"section header [name]", t);
	t[n - 1] = '\0';
	name = rxd_conf_trim(t + 1);
	slot = rxd_conf_slot_find(name);
	if (slot < 0)
		return scan_err(s, line, "[%s]: unknown section (sections are "
			"engine, limits, log, port0..port%d)", name,
			RXD_MAX_PORTS - 1);
	if (s->slot_line[slot] != 0)
		return scan_err(s, line, "[%s]: duplicate section "
			"(first at line %u)", name, s->slot_line[slot]);
	s->slot_line[slot] = line;
	s->slot = slot;
	return 0;
}

/* Length of a value as rte_cfgfile keeps it: "\;" is one ';'. */
static size_t
kept_len(const char *val)
{
	size_t n = strlen(val);
	const char *p = val;

	while ((p = strstr(p, "\\;")) != NULL) {
		n--;
		p += 2;
	}
	return n;
}

static int
scan_entry(struct scan *s, char *t, unsigned line)
{
	char *eq = strchr(t, '='), *key, *val, sect[16];
	unsigned *first;
	int k;

	if (eq == NULL)
		return scan_err(s, line, "syntax error: '%s' is neither a "
			"[section], a key = value nor a comment", t);
	*eq = '\0';
	key = rxd_conf_trim(t);
	val = rxd_conf_trim(eq + 1);
	if (*key == '\0')
		return scan_err(s, line, "syntax error: '=' without a key");
	if (s->slot < 0)
		return scan_err(s, line, "%s: key outside any section", key);
	rxd_conf_slot_name(s->slot, sect, sizeof(sect));
	k = rxd_conf_key_find(rxd_conf_slot_sect(s->slot), key);
	if (k < 0)
		return scan_err(s, line, "[%s] %s: unknown key", sect, key);
	first = &s->key_line[s->slot * rxd_conf_n_keys + (unsigned)k];
	if (*first != 0)
		return scan_err(s, line, "[%s] %s: duplicate key "
			"(first at line %u)", sect, key, *first);
	if (kept_len(val) > RXD_CONF_VALUE_MAX)
		return scan_err(s, line, "[%s] %s: value too long "
			"(max %d characters)", sect, key, RXD_CONF_VALUE_MAX);
	*first = line;
	s->rec[s->n_rec++] = (struct scan_rec){ line, s->slot, k };
	return 0;
}

/* One line of n bytes (with its '\n' if any). */
static int
scan_line(struct scan *s, char *buf, size_t n, unsigned line)
{
	char *t;

	if (memchr(buf, '\0', n) != NULL)
		return scan_err(s, line, "syntax error: NUL byte in line");
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (n > RXD_CONF_LINE_MAX)
		return scan_err(s, line, "line too long (%zu characters, "
			"max %d)", n, RXD_CONF_LINE_MAX);
	cut_comment(buf);
	t = rxd_conf_trim(buf);
	if (*t == '\0' || *t == '#')
		return 0;
	if (*t == '[')
		return scan_section(s, t, line);
	return scan_entry(s, t, line);
}

static int
scan_file(struct scan *s, FILE *f)
{
	char *buf = NULL;
	size_t cap = 0;
	unsigned line = 0;
	ssize_t n;
	int rc = 0;

	while (rc == 0 && (n = getline(&buf, &cap, f)) >= 0)
		rc = scan_line(s, buf, (size_t)n, ++line);
	if (rc == 0 && ferror(f))
		rc = scan_err(s, line + 1, "read error: %s", strerror(errno));
	free(buf);
	return rc;
}

/* Parse every recorded key's value, as rte_cfgfile read it, into c. */
static int
apply_values(struct scan *s, struct rte_cfgfile *cfg, struct rxd_conf *c)
{
	char sect[16], why[RXD_CONF_ERRLEN];
	const struct rxd_conf_key *k;
	const struct scan_rec *r;
	const char *v;
	unsigned i;

	for (i = 0; i < s->n_rec; i++) {
		r = &s->rec[i];
		k = &rxd_conf_keys[r->key];
		rxd_conf_slot_name(r->slot, sect, sizeof(sect));
		v = rte_cfgfile_get_entry(cfg, sect, k->name);
		if (v == NULL)
			return scan_err(s, r->line, "[%s] %s: rte_cfgfile "
				"did not return this key", sect, k->name);
		if (rxd_conf_key_parse(k, rxd_conf_slot_base(c, r->slot), v,
				why, sizeof(why)) < 0)
			return scan_err(s, r->line, "[%s] %s: %s", sect,
				k->name, why);
	}
	for (i = RXD_CONF_SECT_PORT; i < RXD_CONF_N_SLOTS; i++)
		if (s->slot_line[i] != 0)
			c->port[i - RXD_CONF_SECT_PORT].present = true;
	return 0;
}

static int
load_values(struct scan *s, struct rxd_conf *c)
{
	const struct rte_cfgfile_parameters params = {
		.comment_character = ';',
	};
	struct rte_cfgfile *cfg;
	int rc;

	/* The scan refused keys outside sections and empty values where
	 * they matter; these flags only keep rte_cfgfile from failing on
	 * "# key =" comment lines, which it does not know. */
	cfg = rte_cfgfile_load_with_params(s->path,
		CFG_FLAG_GLOBAL_SECTION | CFG_FLAG_EMPTY_VALUES, &params);
	if (cfg == NULL) {
		rxd_conf_err(s->err, s->errlen, "%s: rte_cfgfile cannot read "
			"the file", s->path);
		return -1;
	}
	rc = apply_values(s, cfg, c);
	rte_cfgfile_close(cfg);
	return rc;
}

/* Read path over c; c may be partly updated on error. */
int
rxd_conf_file_apply(struct rxd_conf *c, const char *path, char *err,
	size_t errlen)
{
	size_t cells = (size_t)RXD_CONF_N_SLOTS * rxd_conf_n_keys;
	struct scan s = {
		.path = path, .slot = -1, .err = err, .errlen = errlen,
	};
	FILE *f = fopen(path, "r");
	struct stat st;
	int rc = -1;

	if (f != NULL && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (f == NULL) {
		rxd_conf_err(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		return -1;
	}
	s.key_line = calloc(cells, sizeof(*s.key_line));
	s.rec = calloc(cells, sizeof(*s.rec));
	if (s.key_line == NULL || s.rec == NULL)
		rxd_conf_err(err, errlen, "%s: out of memory", path);
	else if (scan_file(&s, f) == 0 && load_values(&s, c) == 0)
		rc = 0;
	fclose(f);
	free(s.key_line);
	free(s.rec);
	if (rc == 0) {
		memset(c->source, 0, sizeof(c->source));
		snprintf(c->source, sizeof(c->source), "%s", path);
	}
	return rc;
}
