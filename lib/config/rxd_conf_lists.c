/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * List value types of the configuration: a port's addresses
 * ("10.0.0.1/24, fe80::1/64"), its gateways ("10.0.0.254, fe80::1") and
 * the engine lcores ("1,2", "1-3" or "all").  These keys are not one field
 * but a group of fields, so their operations take the containing struct.
 */
#include <inttypes.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <rte_config.h>

#include "rxd_conf_priv.h"

/* Copy a value into buf for splitting at commas; 0 or -1 if too long. */
static int
list_copy(char *buf, size_t size, const char *s, char *why, size_t len)
{
	if (strlen(s) >= size) {
		rxd_conf_err(why, len, "value too long (max %zu characters)",
			size - 1);
		return -1;
	}
	strcpy(buf, s);
	return 0;
}

/* Next comma-separated item, trimmed; NULL at the end. */
static char *
list_next(char **cur)
{
	char *item;

	if (*cur == NULL)
		return NULL;
	item = strsep(cur, ",");
	return rxd_conf_trim(item);
}

/* ---- a port's addresses ---- */

static int
addrs_check_list(const struct rxd_conf_addr *a, unsigned n, char *why,
	size_t len)
{
	char s[RXD_CONF_ADDRSTRLEN];
	unsigned i, j;

	if (n > RXD_MAX_ADDRS) {
		rxd_conf_err(why, len, "more than %u addresses",
			RXD_MAX_ADDRS);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (rxd_conf_addr_check(&a[i], true, why, len) < 0)
			return -1;
		for (j = 0; j < i; j++) {
			if (!rxd_conf_addr_equal(&a[i], &a[j]))
				continue;
			rxd_conf_err(why, len, "%s is listed twice",
				rxd_conf_addr_str(&a[i], s, sizeof(s)));
			return -1;
		}
	}
	return 0;
}

static int
addrs_parse(const struct rxd_conf_key *k __rte_unused, void *base,
	const char *s, char *why, size_t len)
{
	struct rxd_conf_port *p = base;
	struct rxd_conf_addr a[RXD_MAX_ADDRS + 1];
	char buf[RXD_CONF_VALUE_MAX + 1], *cur = buf, *item;
	unsigned n = 0;

	if (list_copy(buf, sizeof(buf), s, why, len) < 0)
		return -1;
	while ((item = list_next(&cur)) != NULL) {
		if (*item == '\0') {
			rxd_conf_err(why, len, "empty item in '%s'", s);
			return -1;
		}
		if (n == RXD_MAX_ADDRS) {
			rxd_conf_err(why, len, "more than %u addresses",
				RXD_MAX_ADDRS);
			return -1;
		}
		if (rxd_conf_addr_parse(&a[n++], item, true, why, len) < 0)
			return -1;
	}
	if (addrs_check_list(a, n, why, len) < 0)
		return -1;
	memset(p->addrs, 0, sizeof(p->addrs));
	memcpy(p->addrs, a, n * sizeof(a[0]));
	p->n_addrs = n;
	return 0;
}

static void
addrs_format(const struct rxd_conf_key *k __rte_unused, const void *base,
	char *buf, size_t len)
{
	const struct rxd_conf_port *p = base;
	char s[RXD_CONF_ADDRSTRLEN];
	size_t used = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < p->n_addrs && i < RXD_MAX_ADDRS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
			i ? ", " : "",
			rxd_conf_addr_str(&p->addrs[i], s, sizeof(s)));
}

static int
addrs_check(const struct rxd_conf_key *k __rte_unused, const void *base,
	char *why, size_t len)
{
	const struct rxd_conf_port *p = base;

	return addrs_check_list(p->addrs, p->n_addrs, why, len);
}

static void
addrs_range(const struct rxd_conf_key *k __rte_unused, char *buf,
	size_t len)
{
	snprintf(buf, len, "up to %u ADDR/PREFIX, IPv4 or IPv6",
		RXD_MAX_ADDRS);
}

const struct rxd_conf_type_ops rxd_conf_type_addrs = {
	"address list", addrs_parse, addrs_format, addrs_check, addrs_range,
};

/* ---- a port's gateways: at most one IPv4 and one IPv6 ---- */

static int
gateway_parse(const struct rxd_conf_key *k __rte_unused, void *base,
	const char *s, char *why, size_t len)
{
	struct rxd_conf_port *p = base;
	struct rxd_conf_addr a, gw[2];
	char buf[RXD_CONF_VALUE_MAX + 1], *cur = buf, *item;
	bool has[2] = { false, false };
	int v6;

	if (list_copy(buf, sizeof(buf), s, why, len) < 0)
		return -1;
	while ((item = list_next(&cur)) != NULL) {
		if (rxd_conf_addr_parse(&a, item, false, why, len) < 0)
			return -1;
		v6 = a.family == AF_INET6;
		if (has[v6]) {
			rxd_conf_err(why, len, "two IPv%c gateways",
				v6 ? '6' : '4');
			return -1;
		}
		has[v6] = true;
		gw[v6] = a;
	}
	p->has_gw4 = has[0];
	p->has_gw6 = has[1];
	memset(&p->gw4, 0, sizeof(p->gw4));
	memset(&p->gw6, 0, sizeof(p->gw6));
	if (has[0])
		p->gw4 = gw[0];
	if (has[1])
		p->gw6 = gw[1];
	return 0;
}

static void
gateway_format(const struct rxd_conf_key *k __rte_unused, const void *base,
	char *buf, size_t len)
{
	const struct rxd_conf_port *p = base;
	char s4[RXD_CONF_ADDRSTRLEN] = "", s6[RXD_CONF_ADDRSTRLEN] = "";

	if (p->has_gw4)
		rxd_conf_addr_str(&p->gw4, s4, sizeof(s4));
	if (p->has_gw6)
		rxd_conf_addr_str(&p->gw6, s6, sizeof(s6));
	snprintf(buf, len, "%s%s%s", s4, p->has_gw4 && p->has_gw6 ? ", " : "",
		s6);
}

static int
gateway_check_one(const struct rxd_conf_addr *a, uint8_t family,
	char *why, size_t len)
{
	if (a->family != family) {
		rxd_conf_err(why, len, "the IPv%c gateway has family %u",
			family == AF_INET ? '4' : '6', a->family);
		return -1;
	}
	return rxd_conf_addr_check(a, false, why, len);
}

static int
gateway_check(const struct rxd_conf_key *k __rte_unused, const void *base,
	char *why, size_t len)
{
	const struct rxd_conf_port *p = base;

	if (p->has_gw4 && gateway_check_one(&p->gw4, AF_INET, why, len) < 0)
		return -1;
	if (p->has_gw6 && gateway_check_one(&p->gw6, AF_INET6, why, len) < 0)
		return -1;
	return 0;
}

static void
gateway_range(const struct rxd_conf_key *k __rte_unused, char *buf,
	size_t len)
{
	snprintf(buf, len, "one IPv4 and/or one IPv6 address");
}

const struct rxd_conf_type_ops rxd_conf_type_gateway = {
	"address list", gateway_parse, gateway_format, gateway_check,
	gateway_range,
};

/* ---- engine lcores ---- */

static int
lcores_check_list(const unsigned *l, unsigned n, char *why, size_t len)
{
	unsigned i, j;

	if (n > RXD_MAX_LCORES) {
		rxd_conf_err(why, len, "more than %u lcores", RXD_MAX_LCORES);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (l[i] >= RTE_MAX_LCORE) {
			rxd_conf_err(why, len,
				"lcore %u is out of range 0..%u", l[i],
				RTE_MAX_LCORE - 1);
			return -1;
		}
		for (j = 0; j < i; j++) {
			if (l[i] != l[j])
				continue;
			rxd_conf_err(why, len, "lcore %u is listed twice",
				l[i]);
			return -1;
		}
	}
	return 0;
}

/* Append lcore v to l[*n]; explains why not in why. */
static int
lcores_add(unsigned *l, unsigned *n, uint64_t v, char *why, size_t len)
{
	if (v >= RTE_MAX_LCORE) {
		rxd_conf_err(why, len,
			"lcore %" PRIu64 " is out of range 0..%u", v,
			RTE_MAX_LCORE - 1);
		return -1;
	}
	if (*n == RXD_MAX_LCORES) {
		rxd_conf_err(why, len, "more than %u lcores", RXD_MAX_LCORES);
		return -1;
	}
	l[(*n)++] = (unsigned)v;
	return 0;
}

/* One item "N" or "A-B" appended to l[*n]. */
static int
lcores_item(unsigned *l, unsigned *n, const char *item, char *why,
	size_t len)
{
	char buf[RXD_CONF_VALUE_MAX + 1], *dash;
	uint64_t a, b;

	snprintf(buf, sizeof(buf), "%s", item);
	dash = strchr(buf, '-');
	if (dash != NULL)
		*dash = '\0';
	if (rxd_conf_parse_u64(rxd_conf_trim(buf), &a) != 0 ||
	    (dash != NULL &&
	     rxd_conf_parse_u64(rxd_conf_trim(dash + 1), &b) != 0) ||
	    (dash != NULL && a > b)) {
		rxd_conf_err(why, len, "'%s' is not an lcore or a range A-B "
			"(lists look like 1,2 or 1-3 or all)", item);
		return -1;
	}
	if (dash == NULL)
		b = a;
	for (; a <= b; a++)
		if (lcores_add(l, n, a, why, len) < 0)
			return -1;
	return 0;
}

static int
lcores_parse(const struct rxd_conf_key *k __rte_unused, void *base,
	const char *s, char *why, size_t len)
{
	struct rxd_conf *c = base;
	unsigned l[RXD_MAX_LCORES], n = 0;
	char buf[RXD_CONF_VALUE_MAX + 1], *cur = buf, *item;

	if (strcasecmp(s, "all") == 0) {
		c->n_engine_lcores = 0;
		memset(c->engine_lcores, 0, sizeof(c->engine_lcores));
		return 0;
	}
	if (list_copy(buf, sizeof(buf), s, why, len) < 0)
		return -1;
	while ((item = list_next(&cur)) != NULL)
		if (lcores_item(l, &n, item, why, len) < 0)
			return -1;
	if (lcores_check_list(l, n, why, len) < 0)
		return -1;
	memset(c->engine_lcores, 0, sizeof(c->engine_lcores));
	memcpy(c->engine_lcores, l, n * sizeof(l[0]));
	c->n_engine_lcores = n;
	return 0;
}

static void
lcores_format(const struct rxd_conf_key *k __rte_unused, const void *base,
	char *buf, size_t len)
{
	const struct rxd_conf *c = base;
	unsigned i, n = c->n_engine_lcores;
	size_t used = 0;

	if (n == 0)
		snprintf(buf, len, "all");
	for (i = 0; i < n && i < RXD_MAX_LCORES && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u",
			i ? "," : "", c->engine_lcores[i]);
}

static int
lcores_check(const struct rxd_conf_key *k __rte_unused, const void *base,
	char *why, size_t len)
{
	const struct rxd_conf *c = base;

	return lcores_check_list(c->engine_lcores, c->n_engine_lcores,
		why, len);
}

static void
lcores_range(const struct rxd_conf_key *k __rte_unused, char *buf,
	size_t len)
{
	snprintf(buf, len, "all, or up to %u of 0..%u", RXD_MAX_LCORES,
		RTE_MAX_LCORE - 1);
}

const struct rxd_conf_type_ops rxd_conf_type_lcores = {
	"lcore list", lcores_parse, lcores_format, lcores_check, lcores_range,
};
