/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Defaults, rxd_conf_set(), rxd_conf_validate()'s cross-field checks,
 * address helpers, the INI writer (round trip), the example files in
 * config/ and the key reference in doc/configuration.md.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "tc_helpers.h"

TestSuite(misc, .init = tc_setup, .fini = tc_teardown);

Test(misc, defaults)
{
	struct rxd_conf c;
	unsigned i;

	memset(&c, 0xa5, sizeof(c));
	rxd_conf_defaults(&c);
	cr_assert_eq(c.n_engine_lcores, 0);
	cr_assert_eq(c.idle, RXD_IDLE_SLEEP);
	cr_assert_eq(c.idle_spins, 1000);
	cr_assert_eq(c.idle_sleep_max_us, 100);
	cr_assert_eq(c.sq_depth, 16384);
	cr_assert_eq(c.rq_depth, 16384);
	cr_assert_eq(c.srq_depth, 16384);
	cr_assert_eq(c.cq_depth, 1048575);
	cr_assert_eq(c.max_qp, 16384);
	cr_assert_eq(c.max_mr, 65536);
	cr_assert_eq(c.max_cq, 16384);
	cr_assert_eq(c.max_srq, 1024);
	cr_assert_eq(c.mbufs, 16383);
	cr_assert_eq(c.log_level, 6);
	cr_assert_str_eq(c.source, "");
	for (i = 0; i < RXD_MAX_PORTS; i++) {
		const struct rxd_conf_port *p = &c.port[i];

		cr_assert(!p->present);
		cr_assert_eq(p->n_addrs, 0);
		cr_assert(!p->has_gw4 && !p->has_gw6);
		cr_assert_eq(p->mtu, 1500);
		cr_assert_eq(p->vlan, 0);
		cr_assert_eq(p->rx_queues, 1);
		cr_assert_eq(p->tx_queues, 1);
		cr_assert_eq(p->rx_desc, 1024);
		cr_assert_eq(p->tx_desc, 1024);
		cr_assert_str_eq(p->capture, "");
		cr_assert_eq(p->fault_seed, 1);
		cr_assert_eq(p->fault_rx.drop, 0.0);
		cr_assert_eq(p->fault_tx.corrupt, 0.0);
		cr_assert_eq(p->fault_rx.reorder_depth, 4);
		cr_assert(!p->fault_tx.cut);
		cr_assert_eq(p->fault_rx.drop_opcode, -1);
		cr_assert_eq(p->fault_tx.drop_opcode, -1);
	}
}

Test(misc, defaults_are_valid)
{
	char err[RXD_CONF_ERRLEN] = "";
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_validate(&c, err, sizeof(err)), 0, "%s", err);
}

Test(misc, set_one_key)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_set(&c, "port2", "mtu", "9000", err,
		sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.port[2].mtu, 9000);
	cr_assert(c.port[2].present);
	cr_assert_eq(rxd_conf_set(&c, "port2", "vlan", "4095", err,
		sizeof(err)), -1);
	cr_assert_str_eq(err, "[port2] vlan: 4095 is out of range 0..4094");
	cr_assert_eq(rxd_conf_set(&c, "engine", "speed", "1", err,
		sizeof(err)), -1);
	cr_assert_str_eq(err, "[engine] speed: unknown key");
	cr_assert_eq(rxd_conf_set(&c, "port", "mtu", "1", err,
		sizeof(err)), -1);
	cr_assert_str_eq(err, "[port]: unknown section");
}

static void
expect_invalid(const struct rxd_conf *c, const char *want)
{
	char err[RXD_CONF_ERRLEN];

	cr_assert_eq(rxd_conf_validate(c, err, sizeof(err)), -1,
		"valid, want %s", want);
	cr_assert_str_eq(err, want);
}

Test(misc, validate_gateways)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	tc_load_ok(&c, "[port0]\naddr = 10.0.0.1/24, fd00:1::1/64\n"
		"gateway = 10.0.0.254, fd00:1::fe\n");
	cr_assert_eq(rxd_conf_validate(&c, err, sizeof(err)), 0, "%s", err);
	tc_load_ok(&c, "[port0]\naddr = 10.0.0.1/24\n"
		"gateway = fe80::1\n");
	cr_assert_eq(rxd_conf_validate(&c, err, sizeof(err)), 0,
		"link-local gateways are on-link: %s", err);
	tc_load_ok(&c, "[port0]\naddr = 10.0.0.1/24\ngateway = 10.0.1.1\n");
	expect_invalid(&c, "[port0] gateway: 10.0.1.1 is not in a subnet of "
		"the port's IPv4 addresses");
	tc_load_ok(&c, "[port1]\naddr = 10.0.0.1/24\n"
		"gateway = 2001:db8::1\n");
	expect_invalid(&c, "[port1] gateway: 2001:db8::1 is not in a subnet "
		"of the port's IPv6 addresses");
}

Test(misc, validate_address_on_two_ports)
{
	struct rxd_conf c;

	tc_load_ok(&c, "[port0]\naddr = 10.0.0.1/24\n"
		"[port3]\naddr = 10.0.1.1/24, 10.0.0.1/16\n");
	expect_invalid(&c, "[port3] addr: 10.0.0.1/16 is also an address of "
		"port0");
}

Test(misc, validate_mbufs)
{
	struct rxd_conf c;

	tc_load_ok(&c, "[limits]\nmbufs = 4095\n"
		"[port1]\nrx_queues = 2\nrx_desc = 2048\n");
	expect_invalid(&c, "[limits] mbufs: 4095 is fewer than port1 needs "
		"(2 x 2048 rx + 1 x 1024 tx descriptors = 5120)");
}

Test(misc, validate_fields_set_by_code)
{
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	c.port[0].mtu = 65000;
	expect_invalid(&c, "[port0] mtu: 65000 is out of range 68..9600");
	rxd_conf_defaults(&c);
	c.port[5].fault_tx.dup = 2;
	expect_invalid(&c, "[port5] fault.tx.dup: 2 is out of range 0..1");
	rxd_conf_defaults(&c);
	c.idle = 7;
	expect_invalid(&c, "[engine] idle: 7 is out of range 0..2");
	rxd_conf_defaults(&c);
	c.n_engine_lcores = 2;
	c.engine_lcores[0] = c.engine_lcores[1] = 3;
	expect_invalid(&c, "[engine] lcores: lcore 3 is listed twice");
	rxd_conf_defaults(&c);
	c.port[0].n_addrs = 1;
	c.port[0].addrs[0].family = AF_INET;
	c.port[0].addrs[0].prefix = 40;
	c.port[0].addrs[0].addr[0] = 10;
	expect_invalid(&c, "[port0] addr: 10.0.0.0/40: prefix 40 is out of "
		"range 1..32");
	rxd_conf_defaults(&c);
	c.port[0].n_addrs = 9;
	expect_invalid(&c, "[port0] addr: more than 8 addresses");
	rxd_conf_defaults(&c);
	c.port[2].has_gw6 = true;
	c.port[2].gw6.family = AF_INET;
	expect_invalid(&c, "[port2] gateway: the IPv6 gateway has family 2");
	rxd_conf_defaults(&c);
	c.port[0].fault_rx.drop_opcode = 300;
	expect_invalid(&c, "[port0] fault.rx.drop_opcode: 300 is out of range "
		"0..255 (or -1 for none)");
}

Test(misc, addr_str_and_parse)
{
	char err[RXD_CONF_ERRLEN], s[RXD_CONF_ADDRSTRLEN];
	struct rxd_conf_addr a;

	cr_assert_eq(rxd_conf_addr_parse(&a, " 192.168.7.9/20 ", true, err,
		sizeof(err)), 0, "%s", err);
	cr_assert_eq(a.family, AF_INET);
	cr_assert_eq(a.prefix, 20);
	cr_assert_str_eq(rxd_conf_addr_str(&a, s, sizeof(s)),
		"192.168.7.9/20");
	cr_assert_eq(rxd_conf_addr_parse(&a, "FE80::0:1/64", true, err,
		sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(rxd_conf_addr_str(&a, s, sizeof(s)), "fe80::1/64");
	cr_assert_eq(rxd_conf_addr_parse(&a, "::ffff:10.0.0.1", false, err,
		sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(rxd_conf_addr_str(&a, s, sizeof(s)),
		"::ffff:10.0.0.1");
	cr_assert_eq(rxd_conf_addr_parse(&a, "10.1/8", true, err,
		sizeof(err)), -1);
	cr_assert_str_eq(err, "'10.1/8' is not an IPv4 or IPv6 address");
	cr_assert_eq(rxd_conf_addr_parse(&a, "10.0.0.1/", true, err,
		sizeof(err)), -1);
	cr_assert_str_eq(err, "'10.0.0.1/': '' is not a prefix length");
	cr_assert_eq(rxd_conf_addr_parse(&a, "10.0.0.1/0", true, err,
		sizeof(err)), -1);
	cr_assert_str_eq(err, "'10.0.0.1/0': prefix 0 is out of range 1..32");
	cr_assert_eq(rxd_conf_addr_parse(&a, "255.255.255.255/32", true, err,
		sizeof(err)), -1);
	cr_assert_str_eq(err,
		"'255.255.255.255/32' is not a unicast address");
	cr_assert_str_eq(rxd_conf_addr_str(&a, s, 4), "255");
}

static char *
write_to_string(const struct rxd_conf *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(rxd_conf_write(c, f), 0);
	fclose(f);
	return buf;
}

Test(misc, write_reads_back_the_same)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c, d;
	const char *path;
	char *text;

	tc_load_ok(&c, "[engine]\nlcores = 1-2,7\nidle = spin\n"
		"[log]\nlevel = 2\n"
		"[port0]\naddr = 10.0.0.1/24, fd00::1/64\n"
		"gateway = fd00::fe\nmtu = 4200\ncapture = /tmp/x.pcapng\n"
		"fault.rx.drop = 0.1\nfault.tx.dup = 33.3%\n"
		"fault.tx.drop_opcode = 0x81\n"
		"fault_seed = 18446744073709551615\n"
		"[port6]\nvlan = 12\n");
	text = write_to_string(&c);
	path = tc_write("written.ini", text);
	free(text);
	rxd_conf_defaults(&d);
	cr_assert_eq(rxd_conf_load_file(&d, path, err, sizeof(err)), 0,
		"%s", err);
	memcpy(d.source, c.source, sizeof(d.source));
	cr_assert_arr_eq(&c, &d, sizeof(c));
}

/* Write c, load the text over the defaults: the same configuration. */
static void
expect_read_back(const struct rxd_conf *c, const char *name)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf d;
	const char *path;
	char *text;

	text = write_to_string(c);
	path = tc_write(name, text);
	free(text);
	rxd_conf_defaults(&d);
	cr_assert_eq(rxd_conf_load_file(&d, path, err, sizeof(err)), 0,
		"%s", err);
	memcpy(d.source, c->source, sizeof(d.source));
	cr_assert_arr_eq(c, &d, sizeof(*c));
}

/* Found by fuzz_conf: a ';' in a text value was written as is and read
 * back as the start of a comment. */
Test(misc, write_escapes_semicolons)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	tc_load_ok(&c, "[port0]\ncapture = /tmp/a\\;b;c.pcapng\n");
	cr_assert_str_eq(c.port[0].capture, "/tmp/a;b;c.pcapng");
	expect_read_back(&c, "semicolons.ini");
	cr_assert_eq(rxd_conf_set(&c, "port1", "capture", "x\\;y;", err,
		sizeof(err)), 0, "%s", err);
	expect_read_back(&c, "backslash.ini");
}

/* Found by fuzz_conf: text values a line of the file cannot carry were
 * accepted, then written as a file that does not read back. */
Test(misc, text_values_must_be_writable)
{
	char err[RXD_CONF_ERRLEN], v[300];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_set(&c, "port0", "capture", "a\nb", err,
		sizeof(err)), -1);
	cr_assert_str_eq(err, "[port0] capture: 'a?b' holds a control "
		"character");
	memset(v, ';', 156);
	v[156] = '\0';
	cr_assert_eq(rxd_conf_set(&c, "port0", "capture", v, err,
		sizeof(err)), -1);
	cr_assert_str_eq(err, "[port0] capture: value too long for one line "
		"(max 310 characters, each ';' counting twice)");
	v[155] = '\0';         /* a line of 320 characters, the most */
	cr_assert_eq(rxd_conf_set(&c, "port0", "capture", v, err,
		sizeof(err)), 0, "%s", err);
	expect_read_back(&c, "long.ini");
}

/* A file name holding a newline must not end the header comment. */
Test(misc, write_header_is_one_comment_line)
{
	const char *want = "; rxd configuration, read from "
		"/tmp/a?[port9]?b.ini\n\n[engine]\n";
	struct rxd_conf c;
	char *text;

	rxd_conf_defaults(&c);
	snprintf(c.source, sizeof(c.source), "/tmp/a\n[port9]\nb.ini");
	text = write_to_string(&c);
	cr_assert(strncmp(text, want, strlen(want)) == 0, "%s", text);
	free(text);
	expect_read_back(&c, "header.ini");
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

Test(misc, reference_in_doc_is_current)
{
	static const char begin[] = "<!-- keys:begin -->\n";
	static const char end[] = "<!-- keys:end -->";
	char *doc = slurp(RXD_TEST_SRCDIR "/doc/configuration.md");
	char *table = NULL, *from, *to;
	size_t len = 0;
	FILE *f = open_memstream(&table, &len);

	cr_assert_eq(rxd_conf_write_reference(f), 0);
	fclose(f);
	from = strstr(doc, begin);
	cr_assert_not_null(from, "no keys:begin marker");
	from += strlen(begin);
	to = strstr(from, end);
	cr_assert_not_null(to, "no keys:end marker");
	*to = '\0';
	cr_assert_str_eq(from, table, "doc/configuration.md is out of date: "
		"regenerate its table with "
		"build/tests/config/rxd-conf-reference");
	free(doc);
	free(table);
}

Test(misc, example_rxd_ini_is_the_defaults)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c, d;

	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_load_file(&c, RXD_TEST_SRCDIR "/config/rxd.ini",
		err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(rxd_conf_validate(&c, err, sizeof(err)), 0, "%s", err);
	rxd_conf_defaults(&d);
	d.port[0].present = true;
	snprintf(d.source, sizeof(d.source), "%s", c.source);
	cr_assert_arr_eq(&c, &d, sizeof(c),
		"config/rxd.ini must list the defaults");
}

static void
check_memif_example(const char *name, const char *want_addr)
{
	char err[RXD_CONF_ERRLEN], path[512], s[RXD_CONF_ADDRSTRLEN];
	struct rxd_conf c;

	snprintf(path, sizeof(path), "%s/config/%s", RXD_TEST_SRCDIR, name);
	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_load_file(&c, path, err, sizeof(err)), 0,
		"%s", err);
	cr_assert_eq(rxd_conf_validate(&c, err, sizeof(err)), 0, "%s", err);
	cr_assert(c.port[0].present);
	cr_assert_eq(c.port[0].n_addrs, 1);
	cr_assert_str_eq(rxd_conf_addr_str(&c.port[0].addrs[0], s, sizeof(s)),
		want_addr);
}

Test(misc, memif_examples)
{
	check_memif_example("memif-server.ini", "10.0.0.1/24");
	check_memif_example("memif-client.ini", "10.0.0.2/24");
}
