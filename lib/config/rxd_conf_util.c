/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small text helpers of lib/config: error formatting, the length of an
 * escaped value, trimming, number parsing, sized integer fields and the
 * "PORT:" prefix of options.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxd_conf_priv.h"

/*
 * Messages quote what they were given; a control character there (a
 * newline in an option or a variable) would break the one-line promise or
 * forge a line of its own in a log, so each becomes '?'.
 */
void
rxd_conf_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	for (p = err; *p != '\0'; p++)
		if (iscntrl((unsigned char)*p))
			*p = '?';
}

/* Length of s as rxd_conf_write() writes it: each ';' escaped as "\;". */
size_t
rxd_conf_written_len(const char *s)
{
	size_t n = strlen(s);

	while ((s = strchr(s, ';')) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* Strip leading and trailing blanks in place; returns the new start. */
char *
rxd_conf_trim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/*
 * Parse a whole string as an unsigned number, decimal or 0x-hex.
 * Returns 0, -1 if it is not a number, -2 if it is one but does not fit
 * (too large, or negative).
 */
int
rxd_conf_parse_u64(const char *s, uint64_t *v)
{
	const char *p = s;
	int base = 10;
	char *end;

	if (*p == '-')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!isxdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*v = strtoull(p, &end, base);
	if (*end != '\0')
		return -1;
	if (errno == ERANGE || s[0] == '-')
		return -2;
	return 0;
}

/* Integer fields of the table are 2, 4 (also enums) or 8 bytes wide. */
void
rxd_conf_store_uint(void *field, size_t size, uint64_t v)
{
	switch (size) {
	case 2:
		*(uint16_t *)field = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)field = (uint32_t)v;
		break;
	default:
		*(uint64_t *)field = v;
		break;
	}
}

uint64_t
rxd_conf_load_uint(const void *field, size_t size)
{
	switch (size) {
	case 2:
		return *(const uint16_t *)field;
	case 4:
		return *(const uint32_t *)field;
	default:
		return *(const uint64_t *)field;
	}
}

/*
 * An option value may start with "N:" (one digit, then one colon) to name
 * a port; "0::1" or "2001:db8::1" do not.  Returns 1 and sets port/rest if
 * there is such a prefix, 0 otherwise.
 */
int
rxd_conf_port_prefix(const char *s, unsigned *port, const char **rest)
{
	if (!isdigit((unsigned char)s[0]) || s[1] != ':' || s[2] == ':')
		return 0;
	*port = (unsigned)(s[0] - '0');
	*rest = s + 2;
	return 1;
}
