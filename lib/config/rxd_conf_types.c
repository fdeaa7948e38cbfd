/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scalar value types of the configuration (integer, boolean, rate, text,
 * name, opcode): how each is parsed, formatted, checked and described.
 * The list types live in rxd_conf_lists.c; the table of all types is here.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rxd_conf_priv.h"

#define FIELD(k, base) ((char *)(base) + (k)->off)
#define CFIELD(k, base) ((const char *)(base) + (k)->off)

/* ---- unsigned integers ---- */

static int
uint_range_err(const struct rxd_conf_key *k, const char *v, char *why,
	size_t len)
{
	rxd_conf_err(why, len, "%s is out of range %" PRIu64 "..%" PRIu64,
		v, k->min, k->max);
	return -1;
}

static int
uint_parse(const struct rxd_conf_key *k, void *base, const char *s,
	char *why, size_t len)
{
	uint64_t v;
	int rc = rxd_conf_parse_u64(s, &v);

	if (rc == -1) {
		rxd_conf_err(why, len, "'%s' is not a number", s);
		return -1;
	}
	if (rc == -2 || v < k->min || v > k->max)
		return uint_range_err(k, s, why, len);
	rxd_conf_store_uint(FIELD(k, base), k->size, v);
	return 0;
}

static void
uint_format(const struct rxd_conf_key *k, const void *base, char *buf,
	size_t len)
{
	snprintf(buf, len, "%" PRIu64,
		rxd_conf_load_uint(CFIELD(k, base), k->size));
}

static int
uint_check(const struct rxd_conf_key *k, const void *base, char *why,
	size_t len)
{
	uint64_t v = rxd_conf_load_uint(CFIELD(k, base), k->size);
	char s[24];

	if (v >= k->min && v <= k->max)
		return 0;
	snprintf(s, sizeof(s), "%" PRIu64, v);
	return uint_range_err(k, s, why, len);
}

static void
uint_range(const struct rxd_conf_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 "..%" PRIu64, k->min, k->max);
}

/* ---- booleans ---- */

static const char *const bool_true[] = { "true", "yes", "on", "1" };
static const char *const bool_false[] = { "false", "no", "off", "0" };

static int
bool_parse(const struct rxd_conf_key *k, void *base, const char *s,
	char *why, size_t len)
{
	unsigned i;

	for (i = 0; i < RTE_DIM(bool_true); i++) {
		if (strcasecmp(s, bool_true[i]) == 0 ||
		    strcasecmp(s, bool_false[i]) == 0) {
			*(bool *)FIELD(k, base) =
				strcasecmp(s, bool_true[i]) == 0;
			return 0;
		}
	}
	rxd_conf_err(why, len, "'%s' is not a boolean "
		"(true/false, yes/no, on/off, 1/0)", s);
	return -1;
}

static void
bool_format(const struct rxd_conf_key *k, const void *base, char *buf,
	size_t len)
{
	snprintf(buf, len, "%s", *(const bool *)CFIELD(k, base) ?
		"true" : "false");
}

static int
none_check(const struct rxd_conf_key *k __rte_unused,
	const void *base __rte_unused, char *why __rte_unused,
	size_t len __rte_unused)
{
	return 0;
}

static void
bool_range(const struct rxd_conf_key *k __rte_unused, char *buf, size_t len)
{
	snprintf(buf, len, "true, false");
}

/* ---- rates: a fraction 0..1 or a percentage ---- */

static int
rate_parse(const struct rxd_conf_key *k, void *base, const char *s,
	char *why, size_t len)
{
	size_t n = strlen(s);
	bool pct = n > 0 && s[n - 1] == '%';
	char *end;
	double v;

	v = strtod(s, &end);
	if (end == s || end != s + n - (pct ? 1 : 0) || !isfinite(v)) {
		rxd_conf_err(why, len, "'%s' is not a rate "
			"(a fraction 0..1 or a percentage 0%%..100%%)", s);
		return -1;
	}
	if (pct && (v < 0 || v > 100)) {
		rxd_conf_err(why, len, "%s is out of range 0%%..100%%", s);
		return -1;
	}
	if (!pct && (v < 0 || v > 1)) {
		rxd_conf_err(why, len, "%s is out of range 0..1", s);
		return -1;
	}
	*(double *)FIELD(k, base) = pct ? v / 100 : v;
	return 0;
}

/* The shortest text that reads back to the same double. */
static void
rate_format(const struct rxd_conf_key *k, const void *base, char *buf,
	size_t len)
{
	double v = *(const double *)CFIELD(k, base);
	int prec;

	for (prec = 6; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, len, "%.17g", v);
}

static int
rate_check(const struct rxd_conf_key *k, const void *base, char *why,
	size_t len)
{
	double v = *(const double *)CFIELD(k, base);

	if (isfinite(v) && v >= 0 && v <= 1)
		return 0;
	rxd_conf_err(why, len, "%g is out of range 0..1", v);
	return -1;
}

static void
rate_range(const struct rxd_conf_key *k __rte_unused, char *buf, size_t len)
{
	snprintf(buf, len, "0..1 or 0%%..100%%");
}

/* ---- text ---- */

static int
str_parse(const struct rxd_conf_key *k, void *base, const char *s,
	char *why, size_t len)
{
	size_t n = strlen(s);

	size_t i, line_room = RXD_CONF_LINE_MAX - strlen(" = ") -
		strlen(k->name);

	if (n >= k->size) {
		rxd_conf_err(why, len, "value too long (max %zu characters)",
			k->size - 1);
		return -1;
	}
	/* rxd_conf_write() must be able to write it back on one line. */
	for (i = 0; i < n; i++) {
		if (iscntrl((unsigned char)s[i])) {
			rxd_conf_err(why, len, "'%s' holds a control "
				"character", s);
			return -1;
		}
	}
	if (rxd_conf_written_len(s) > line_room) {
		rxd_conf_err(why, len, "value too long for one line (max %zu "
			"characters, each ';' counting twice)", line_room);
		return -1;
	}
	memcpy(FIELD(k, base), s, n + 1);
	return 0;
}

static void
str_format(const struct rxd_conf_key *k, const void *base, char *buf,
	size_t len)
{
	snprintf(buf, len, "%s", CFIELD(k, base));
}

static int
str_check(const struct rxd_conf_key *k, const void *base, char *why,
	size_t len)
{
	if (memchr(CFIELD(k, base), '\0', k->size) != NULL)
		return 0;
	rxd_conf_err(why, len, "text is not terminated");
	return -1;
}

static void
str_range(const struct rxd_conf_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "up to %zu characters", k->size - 1);
}

/* ---- names (idle policy, log level) ---- */

static unsigned
enum_count(const struct rxd_conf_key *k)
{
	return (unsigned)(k->max - k->min + 1);
}

static void
enum_names(const struct rxd_conf_key *k, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < enum_count(k) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
			i ? ", " : "", k->names[i]);
}

static int
enum_parse(const struct rxd_conf_key *k, void *base, const char *s,
	char *why, size_t len)
{
	char names[128];
	uint64_t v;
	unsigned i;
	int rc;

	for (i = 0; i < enum_count(k); i++) {
		if (strcasecmp(s, k->names[i]) == 0) {
			rxd_conf_store_uint(FIELD(k, base), k->size,
				k->min + i);
			return 0;
		}
	}
	rc = k->numeric ? rxd_conf_parse_u64(s, &v) : -1;
	if (rc == 0 && v >= k->min && v <= k->max) {
		rxd_conf_store_uint(FIELD(k, base), k->size, v);
		return 0;
	}
	if (rc != -1)
		return uint_range_err(k, s, why, len);
	enum_names(k, names, sizeof(names));
	if (k->numeric)
		rxd_conf_err(why, len, "'%s' is not %" PRIu64 "..%" PRIu64
			" or one of %s", s, k->min, k->max, names);
	else
		rxd_conf_err(why, len, "'%s' is not one of %s", s, names);
	return -1;
}

static void
enum_format(const struct rxd_conf_key *k, const void *base, char *buf,
	size_t len)
{
	uint64_t v = rxd_conf_load_uint(CFIELD(k, base), k->size);

	if (v >= k->min && v <= k->max)
		snprintf(buf, len, "%s", k->names[v - k->min]);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void
enum_range(const struct rxd_conf_key *k, char *buf, size_t len)
{
	char names[128];

	enum_names(k, names, sizeof(names));
	if (k->numeric)
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64 " or %s",
			k->min, k->max, names);
	else
		snprintf(buf, len, "%s", names);
}

/* ---- BTH opcode or none ---- */

static int
opcode_parse(const struct rxd_conf_key *k, void *base, const char *s,
	char *why, size_t len)
{
	uint64_t v;
	int rc;

	if (strcasecmp(s, "none") == 0 || strcmp(s, "-1") == 0) {
		*(int *)FIELD(k, base) = -1;
		return 0;
	}
	rc = rxd_conf_parse_u64(s, &v);
	if (rc == -1) {
		rxd_conf_err(why, len,
			"'%s' is not an opcode (0..255 or none)", s);
		return -1;
	}
	if (rc == -2 || v > 255) {
		rxd_conf_err(why, len, "%s is out of range 0..255", s);
		return -1;
	}
	*(int *)FIELD(k, base) = (int)v;
	return 0;
}

static void
opcode_format(const struct rxd_conf_key *k, const void *base, char *buf,
	size_t len)
{
	int v = *(const int *)CFIELD(k, base);

	if (v < 0)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "0x%02x", (unsigned)v);
}

static int
opcode_check(const struct rxd_conf_key *k, const void *base, char *why,
	size_t len)
{
	int v = *(const int *)CFIELD(k, base);

	if (v >= -1 && v <= 255)
		return 0;
	rxd_conf_err(why, len, "%d is out of range 0..255 (or -1 for none)",
		v);
	return -1;
}

static void
opcode_range(const struct rxd_conf_key *k __rte_unused, char *buf,
	size_t len)
{
	snprintf(buf, len, "0..255 or none");
}

static const struct rxd_conf_type_ops type_uint = {
	"integer", uint_parse, uint_format, uint_check, uint_range,
};
static const struct rxd_conf_type_ops type_bool = {
	"boolean", bool_parse, bool_format, none_check, bool_range,
};
static const struct rxd_conf_type_ops type_rate = {
	"rate", rate_parse, rate_format, rate_check, rate_range,
};
static const struct rxd_conf_type_ops type_str = {
	"text", str_parse, str_format, str_check, str_range,
};
static const struct rxd_conf_type_ops type_enum = {
	"name", enum_parse, enum_format, uint_check, enum_range,
};
static const struct rxd_conf_type_ops type_opcode = {
	"opcode", opcode_parse, opcode_format, opcode_check, opcode_range,
};

const struct rxd_conf_type_ops *const rxd_conf_types[RXD_CONF_T_COUNT] = {
	[RXD_CONF_T_UINT] = &type_uint,
	[RXD_CONF_T_BOOL] = &type_bool,
	[RXD_CONF_T_RATE] = &type_rate,
	[RXD_CONF_T_STR] = &type_str,
	[RXD_CONF_T_ENUM] = &type_enum,
	[RXD_CONF_T_OPCODE] = &type_opcode,
	[RXD_CONF_T_ADDRS] = &rxd_conf_type_addrs,
	[RXD_CONF_T_GATEWAY] = &rxd_conf_type_gateway,
	[RXD_CONF_T_LCORES] = &rxd_conf_type_lcores,
};
