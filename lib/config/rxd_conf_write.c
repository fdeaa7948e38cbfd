/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writing from the key table: a configuration as an INI file, and the key
 * reference (Markdown) that doc/configuration.md carries.
 */
#include <ctype.h>
#include <string.h>

#include "rxd_conf_priv.h"

/* "name = value", each ';' of the value escaped as rte_cfgfile reads it. */
static int
write_entry(const char *name, const char *val, FILE *f)
{
	if (fprintf(f, "%s = ", name) < 0)
		return -1;
	for (; *val != '\0'; val++)
		if ((*val == ';' && fputc('\\', f) == EOF) ||
		    fputc(*val, f) == EOF)
			return -1;
	return fputc('\n', f) == EOF ? -1 : 0;
}

static int
write_section(const struct rxd_conf *c, int slot, FILE *f)
{
	char sect[16], val[RXD_CONF_ERRLEN];
	const struct rxd_conf_key *k;
	unsigned i;

	rxd_conf_slot_name(slot, sect, sizeof(sect));
	if (fprintf(f, "\n[%s]\n", sect) < 0)
		return -1;
	for (i = 0; i < rxd_conf_n_keys; i++) {
		k = &rxd_conf_keys[i];
		if (k->sect != rxd_conf_slot_sect(slot))
			continue;
		rxd_conf_types[k->type]->format(k,
			rxd_conf_slot_cbase(c, slot), val, sizeof(val));
		if (val[0] == '\0' && k->type != RXD_CONF_T_STR) {
			if (fprintf(f, "; %s = (none)\n", k->name) < 0)
				return -1;
		} else if (write_entry(k->name, val, f) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The comment line naming the source; a newline in the file name would
 * end the comment, so control characters become '?'. */
static int
write_header(const struct rxd_conf *c, FILE *f)
{
	char name[sizeof(c->source)];
	size_t i;

	snprintf(name, sizeof(name), "%s", c->source);
	for (i = 0; name[i] != '\0'; i++)
		if (iscntrl((unsigned char)name[i]))
			name[i] = '?';
	return fprintf(f, "; rxd configuration%s%s\n",
		name[0] ? ", read from " : "", name) < 0 ? -1 : 0;
}

int
rxd_conf_write(const struct rxd_conf *c, FILE *f)
{
	int slot;

	if (write_header(c, f) < 0)
		return -1;
	for (slot = 0; slot < RXD_CONF_N_SLOTS; slot++) {
		if (slot >= RXD_CONF_SECT_PORT &&
		    !c->port[slot - RXD_CONF_SECT_PORT].present)
			continue;
		if (write_section(c, slot, f) < 0)
			return -1;
	}
	return 0;
}

static int
write_key_row(const struct rxd_conf_key *k, FILE *f)
{
	const struct rxd_conf_type_ops *t = rxd_conf_types[k->type];
	char range[RXD_CONF_ERRLEN], def[64];

	t->range(k, range, sizeof(range));
	if (k->def == NULL || k->def[0] == '\0')
		snprintf(def, sizeof(def), "%s", k->def ? "(empty)" : "(none)");
	else
		snprintf(def, sizeof(def), "`%s`", k->def);
	return fprintf(f, "| `[%s%s]` | `%s` | %s | %s | %s | %s |\n",
		rxd_conf_sect_name(k->sect),
		k->sect == RXD_CONF_SECT_PORT ? "N" : "", k->name, t->label,
		def, range, k->doc) < 0 ? -1 : 0;
}

int
rxd_conf_write_reference(FILE *f)
{
	unsigned i;

	if (fprintf(f, "| Section | Key | Type | Default | Range | "
			"Meaning |\n|---|---|---|---|---|---|\n") < 0)
		return -1;
	for (i = 0; i < rxd_conf_n_keys; i++)
		if (write_key_row(&rxd_conf_keys[i], f) < 0)
			return -1;
	return 0;
}
