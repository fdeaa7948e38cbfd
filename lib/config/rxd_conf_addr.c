/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses in the configuration: "ADDR/PREFIX" parsing and formatting,
 * the checks every configured address passes, equality and subnets.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <sys/socket.h>

#include "rxd_conf_priv.h"

static unsigned
addr_len(const struct rxd_conf_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

static unsigned
addr_max_prefix(uint8_t family)
{
	return family == AF_INET ? 32 : 128;
}

static bool
addr_is_zero(const struct rxd_conf_addr *a)
{
	unsigned i;

	for (i = 0; i < addr_len(a); i++)
		if (a->addr[i] != 0)
			return false;
	return true;
}

static bool
addr_is_multicast(const struct rxd_conf_addr *a)
{
	if (a->family == AF_INET)
		return (a->addr[0] & 0xf0) == 0xe0;
	return a->addr[0] == 0xff;
}

static bool
addr_is_broadcast(const struct rxd_conf_addr *a)
{
	return a->family == AF_INET && a->addr[0] == 0xff &&
		a->addr[1] == 0xff && a->addr[2] == 0xff && a->addr[3] == 0xff;
}

/* Parse the "/PREFIX" digits p of the text s into a->prefix. */
static int
addr_parse_prefix(struct rxd_conf_addr *a, const char *s, const char *p,
	char *why, size_t len)
{
	unsigned max = addr_max_prefix(a->family);
	unsigned long v = 0;
	const char *q;

	for (q = p; isdigit((unsigned char)*q) && v <= 1000; q++)
		v = v * 10 + (unsigned long)(*q - '0');
	if (q == p || *q != '\0') {
		rxd_conf_err(why, len, "'%s': '%s' is not a prefix length",
			s, p);
		return -1;
	}
	if (v < 1 || v > max) {
		rxd_conf_err(why, len,
			"'%s': prefix %s is out of range 1..%u", s, p, max);
		return -1;
	}
	a->prefix = (uint8_t)v;
	return 0;
}

/* The address part, IPv4 or IPv6. */
static int
addr_pton(struct rxd_conf_addr *a, const char *ip)
{
	if (inet_pton(AF_INET, ip, a->addr) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, ip, a->addr) == 1)
		a->family = AF_INET6;
	else
		return -1;
	return 0;
}

int
rxd_conf_addr_parse(struct rxd_conf_addr *a, const char *s,
	bool need_prefix, char *err, size_t errlen)
{
	char txt[96], ip[96];
	char *t, *slash;

	memset(a, 0, sizeof(*a));
	snprintf(txt, sizeof(txt), "%s", s);
	t = rxd_conf_trim(txt);
	snprintf(ip, sizeof(ip), "%s", t);
	slash = strchr(ip, '/');
	if (slash != NULL)
		*slash = '\0';
	if (strlen(s) >= sizeof(txt) || addr_pton(a, ip) < 0) {
		rxd_conf_err(err, errlen, "'%s' is not an IPv4 or IPv6 address",
			t);
		return -1;
	}
	if (slash == NULL && need_prefix) {
		rxd_conf_err(err, errlen, "'%s' has no /prefix", t);
		return -1;
	}
	if (slash != NULL && !need_prefix) {
		rxd_conf_err(err, errlen, "'%s' must not have a /prefix", t);
		return -1;
	}
	if (slash != NULL &&
	    addr_parse_prefix(a, t, slash + 1, err, errlen) < 0)
		return -1;
	return rxd_conf_addr_check(a, need_prefix, err, errlen);
}

char *
rxd_conf_addr_str(const struct rxd_conf_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	int af = a->family == AF_INET ? AF_INET : AF_INET6;

	if (len == 0)
		return buf;
	if ((a->family != AF_INET && a->family != AF_INET6) ||
	    inet_ntop(af, a->addr, ip, sizeof(ip)) == NULL) {
		snprintf(buf, len, "(family %u)", a->family);
		return buf;
	}
	if (a->prefix != 0)
		snprintf(buf, len, "%s/%u", ip, a->prefix);
	else
		snprintf(buf, len, "%s", ip);
	return buf;
}

/*
 * What every configured address must be: IPv4 or IPv6, a prefix in range
 * (or none for gateways), unicast and specified.
 */
int
rxd_conf_addr_check(const struct rxd_conf_addr *a, bool need_prefix,
	char *why, size_t len)
{
	char s[RXD_CONF_ADDRSTRLEN];

	if (a->family != AF_INET && a->family != AF_INET6) {
		rxd_conf_err(why, len, "address family %u is not IPv4 or IPv6",
			a->family);
		return -1;
	}
	rxd_conf_addr_str(a, s, sizeof(s));
	if (need_prefix && (a->prefix < 1 ||
			    a->prefix > addr_max_prefix(a->family))) {
		rxd_conf_err(why, len, "%s: prefix %u is out of range 1..%u",
			s, a->prefix, addr_max_prefix(a->family));
		return -1;
	}
	if (!need_prefix && a->prefix != 0) {
		rxd_conf_err(why, len, "'%s' must not have a /prefix", s);
		return -1;
	}
	if (addr_is_zero(a)) {
		rxd_conf_err(why, len, "'%s' is the unspecified address", s);
		return -1;
	}
	if (addr_is_multicast(a) || addr_is_broadcast(a)) {
		rxd_conf_err(why, len, "'%s' is not a unicast address", s);
		return -1;
	}
	return 0;
}

bool
rxd_conf_addr_equal(const struct rxd_conf_addr *a,
	const struct rxd_conf_addr *b)
{
	return a->family == b->family &&
		memcmp(a->addr, b->addr, addr_len(a)) == 0;
}

/* Whether a lies in the subnet net (net->prefix leading bits agree). */
bool
rxd_conf_addr_in_subnet(const struct rxd_conf_addr *a,
	const struct rxd_conf_addr *net)
{
	unsigned bytes = net->prefix / 8, bits = net->prefix % 8;
	uint8_t mask;

	if (a->family != net->family ||
	    net->prefix > addr_max_prefix(a->family))
		return false;
	if (memcmp(a->addr, net->addr, bytes) != 0)
		return false;
	if (bits == 0)
		return true;
	mask = (uint8_t)(0xff << (8 - bits));
	return ((a->addr[bytes] ^ net->addr[bytes]) & mask) == 0;
}
