/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Application options (after EAL's "--"), described by opts[]: each sets
 * a key of the table, possibly of a port named by a "PORT:" prefix.
 * Options are "--name VALUE" or "--name=VALUE"; no getopt, so no global
 * state, no reordering of argv and nothing printed.  The walk runs twice:
 * first for --config (the file comes before everything else), then for
 * the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "rxd_conf_priv.h"

enum opt_kind {
	OPT_CONFIG,	/* the INI file */
	OPT_IP,		/* add an address to a port */
	OPT_PORT_KEY,	/* [PORT:]VALUE of a port key */
	OPT_KEY,	/* VALUE of a key of slot */
	OPT_SET,	/* SECTION.KEY=VALUE */
};

static const struct opt {
	const char *name;
	const char *arg;
	enum opt_kind kind;
	int slot;
	const char *key;
	const char *help;
} opts[] = {
	{ "config", "FILE", OPT_CONFIG, 0, NULL,
	  "read this INI file (before the other options)" },
	{ "ip", "[PORT:]ADDR/PREFIX", OPT_IP, 0, "addr",
	  "address of a port (default 0); repeatable, replaces the file's" },
	{ "mtu", "[PORT:]N", OPT_PORT_KEY, 0, "mtu",
	  "Ethernet MTU of a port (default 0)" },
	{ "lcores", "LIST", OPT_KEY, RXD_CONF_SECT_ENGINE, "lcores",
	  "engine lcores, e.g. 1,2 or 1-3 or all" },
	{ "idle", "spin|pause|sleep", OPT_KEY, RXD_CONF_SECT_ENGINE, "idle",
	  "what idle engines do" },
	{ "log", "LEVEL", OPT_KEY, RXD_CONF_SECT_LOG, "level",
	  "log level, 1..8 or emerg..debug" },
	{ "set", "SECTION.KEY=VALUE", OPT_SET, 0, NULL,
	  "any key of the INI file, e.g. port0.fault.rx.drop=1%" },
};

struct walk {
	struct rxd_conf *c;	/* NULL in the --config pass */
	bool lenient;		/* leave other arguments alone */
	const char *config;	/* --config's value */
	bool ip_seen[RXD_MAX_PORTS];
	char *err;
	size_t errlen;
};

/*
 * Match argv[i] against opts[]: returns the number of arguments it takes
 * (1 or 2) with *o and *val set, 0 if it is not an rxd option, -1 if its
 * value is missing.
 */
static int
opt_match(struct walk *w, int argc, char **argv, int i,
	const struct opt **o, const char **val)
{
	const char *s = argv[i], *eq;
	size_t n;
	unsigned j;

	if (strncmp(s, "--", 2) != 0)
		return 0;
	s += 2;
	eq = strchr(s, '=');
	n = eq != NULL ? (size_t)(eq - s) : strlen(s);
	for (j = 0; j < RTE_DIM(opts); j++)
		if (strlen(opts[j].name) == n &&
		    strncmp(opts[j].name, s, n) == 0)
			break;
	if (j == RTE_DIM(opts))
		return 0;
	*o = &opts[j];
	*val = eq != NULL ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
	if (*val == NULL) {
		rxd_conf_err(w->err, w->errlen, "--%s: missing value %s",
			opts[j].name, opts[j].arg);
		return -1;
	}
	return eq != NULL ? 1 : 2;
}

/* Split an optional "PORT:" off v; -1 if the port does not exist. */
static int
opt_port(struct walk *w, const struct opt *o, const char **v,
	unsigned *port)
{
	*port = 0;
	if (!rxd_conf_port_prefix(*v, port, v))
		return 0;
	if (*port < RXD_MAX_PORTS)
		return 0;
	rxd_conf_err(w->err, w->errlen, "--%s: port %u is out of range 0..%d",
		o->name, *port, RXD_MAX_PORTS - 1);
	return -1;
}

static int
opt_ip(struct walk *w, const struct opt *o, const char *v)
{
	struct rxd_conf_port p;
	char why[RXD_CONF_ERRLEN];
	unsigned port;

	if (opt_port(w, o, &v, &port) < 0)
		return -1;
	p = w->c->port[port];
	if (!w->ip_seen[port]) {	/* the options replace other sources */
		memset(p.addrs, 0, sizeof(p.addrs));
		p.n_addrs = 0;
	}
	if (p.n_addrs == RXD_MAX_ADDRS) {
		rxd_conf_err(w->err, w->errlen, "--ip: more than %u addresses "
			"on port %u", RXD_MAX_ADDRS, port);
		return -1;
	}
	if (rxd_conf_addr_parse(&p.addrs[p.n_addrs++], v, true, why,
			sizeof(why)) < 0 ||
	    rxd_conf_type_addrs.check(NULL, &p, why, sizeof(why)) < 0) {
		rxd_conf_err(w->err, w->errlen, "--ip: %s", why);
		return -1;
	}
	p.present = true;
	w->ip_seen[port] = true;
	w->c->port[port] = p;
	return 0;
}

static int
opt_set(struct walk *w, int slot, const char *key, const char *v,
	const char *name)
{
	char why[RXD_CONF_ERRLEN];

	if (rxd_conf_slot_set(w->c, slot, key, v, why, sizeof(why)) == 0)
		return 0;
	rxd_conf_err(w->err, w->errlen, "--%s: %s", name, why);
	return -1;
}

/* --set SECTION.KEY=VALUE */
static int
opt_set_any(struct walk *w, const char *v)
{
	char buf[RXD_CONF_ERRLEN], why[RXD_CONF_ERRLEN], *dot, *eq;
	int slot;

	snprintf(buf, sizeof(buf), "%s", v);
	dot = strchr(buf, '.');
	eq = dot != NULL ? strchr(dot, '=') : NULL;
	if (eq == NULL) {
		rxd_conf_err(w->err, w->errlen,
			"--set: '%s' is not SECTION.KEY=VALUE", v);
		return -1;
	}
	*dot = *eq = '\0';
	slot = rxd_conf_slot_find(buf);
	if (slot < 0) {
		rxd_conf_err(w->err, w->errlen, "--set: [%s]: unknown section",
			buf);
		return -1;
	}
	if (rxd_conf_slot_set(w->c, slot, dot + 1, eq + 1, why,
			sizeof(why)) == 0)
		return 0;
	rxd_conf_err(w->err, w->errlen, "--set: [%s] %s: %s", buf, dot + 1,
		why);
	return -1;
}

static int
opt_apply(struct walk *w, const struct opt *o, const char *v)
{
	unsigned port;

	if (w->c == NULL) {	/* the --config pass */
		if (o->kind != OPT_CONFIG)
			return 0;
		if (w->config != NULL) {
			rxd_conf_err(w->err, w->errlen,
				"--config: given twice");
			return -1;
		}
		w->config = v;
		return 0;
	}
	switch (o->kind) {
	case OPT_IP:
		return opt_ip(w, o, v);
	case OPT_PORT_KEY:
		if (opt_port(w, o, &v, &port) < 0)
			return -1;
		return opt_set(w, RXD_CONF_SECT_PORT + (int)port, o->key, v,
			o->name);
	case OPT_KEY:
		return opt_set(w, o->slot, o->key, v, o->name);
	case OPT_SET:
		return opt_set_any(w, v);
	default:
		return 0;
	}
}

static int
walk_args(struct walk *w, int argc, char **argv, bool *used)
{
	const struct opt *o;
	const char *v;
	int i, n;

	for (i = 1; i < argc; i += n) {
		n = opt_match(w, argc, argv, i, &o, &v);
		if (n < 0)
			return -1;
		if (n == 0 && !w->lenient) {
			rxd_conf_err(w->err, w->errlen, argv[i][0] == '-' ?
				"unknown option '%s'" :
				"unexpected argument '%s'", argv[i]);
			return -1;
		}
		if (n == 0) {
			n = 1;
			continue;
		}
		if (used != NULL)
			used[i] = used[i + n - 1] = true;
		if (opt_apply(w, o, v) < 0)
			return -1;
	}
	return 0;
}

/* Find --config's value (NULL if absent); checks every option's form. */
int
rxd_conf_args_config(int argc, char **argv, bool lenient, const char **path,
	char *err, size_t errlen)
{
	struct walk w = { .lenient = lenient, .err = err, .errlen = errlen };

	*path = NULL;
	if (walk_args(&w, argc, argv, NULL) < 0)
		return -1;
	*path = w.config;
	return 0;
}

/*
 * Apply every option but --config over c.  With used, other arguments are
 * left alone and used[i] marks the ones taken; without, they are errors.
 */
int
rxd_conf_args_apply(struct rxd_conf *c, int argc, char **argv, bool *used,
	char *err, size_t errlen)
{
	struct walk w = {
		.c = c, .lenient = used != NULL, .err = err, .errlen = errlen,
	};

	return walk_args(&w, argc, argv, used);
}

int
rxd_conf_write_usage(FILE *f)
{
	char left[64];
	unsigned i;

	for (i = 0; i < RTE_DIM(opts); i++) {
		snprintf(left, sizeof(left), "--%s %s", opts[i].name,
			opts[i].arg);
		if (fprintf(f, "  %-28s %s\n", left, opts[i].help) < 0)
			return -1;
	}
	return 0;
}
