/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * INI files: a file setting every key loads into the right fields; each
 * kind of mistake is refused with exactly one line naming the file, the
 * line, the section and key, and the reason; a failed load changes nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tc_helpers.h"

TestSuite(file, .init = tc_setup, .fini = tc_teardown);

static const char every_key[] =
	"; every key\n"
	"[engine]\n"
	"lcores = 1-3, 5\n"
	"idle = pause\n"
	"idle_spins = 50\n"
	"idle_sleep_max_us = 250\n"
	"\n"
	"[limits]\n"
	"sq_depth = 512\n"
	"rq_depth = 256\n"
	"cq_depth = 8192\n"
	"max_qp = 100\n"
	"max_mr = 200\n"
	"max_cq = 300\n"
	"max_srq = 0\n"
	"mbufs = 32767\n"
	"\n"
	"[log]\n"
	"level = debug\n"
	"\n"
	"[port1]\n"
	"addr = 10.0.0.1/24, fd00::1/64\n"
	"gateway = 10.0.0.254, fe80::1\n"
	"mtu = 9000\n"
	"vlan = 100\n"
	"rx_queues = 2\n"
	"tx_queues = 3\n"
	"rx_desc = 512\n"
	"tx_desc = 2048\n"
	"capture = /tmp/rxd port1.pcapng\n"
	"fault_seed = 0x1234567890abcdef\n"
	"fault.rx.drop = 0.01\n"
	"fault.rx.dup = 2%\n"
	"fault.rx.reorder = 12.5%\n"
	"fault.rx.reorder_depth = 8\n"
	"fault.rx.corrupt = 0.001\n"
	"fault.rx.cut = no\n"
	"fault.rx.drop_opcode = 0x11\n"
	"fault.tx.drop = 100%\n"
	"fault.tx.dup = 0\n"
	"fault.tx.reorder = 1\n"
	"fault.tx.reorder_depth = 1\n"
	"fault.tx.corrupt = 0%\n"
	"fault.tx.cut = yes\n"
	"fault.tx.drop_opcode = 6\n";

Test(file, every_key)
{
	struct rxd_conf c;
	const struct rxd_conf_port *p = &c.port[1];
	uint8_t v6[16];

	tc_load_ok(&c, every_key);
	cr_assert_eq(c.n_engine_lcores, 4);
	cr_assert_eq(c.engine_lcores[0], 1);
	cr_assert_eq(c.engine_lcores[2], 3);
	cr_assert_eq(c.engine_lcores[3], 5);
	cr_assert_eq(c.idle, RXD_IDLE_PAUSE);
	cr_assert_eq(c.idle_spins, 50);
	cr_assert_eq(c.idle_sleep_max_us, 250);
	cr_assert_eq(c.sq_depth, 512);
	cr_assert_eq(c.rq_depth, 256);
	cr_assert_eq(c.cq_depth, 8192);
	cr_assert_eq(c.max_qp, 100);
	cr_assert_eq(c.max_mr, 200);
	cr_assert_eq(c.max_cq, 300);
	cr_assert_eq(c.max_srq, 0);
	cr_assert_eq(c.mbufs, 32767);
	cr_assert_eq(c.log_level, 8);

	cr_assert(!c.port[0].present);
	cr_assert(p->present);
	cr_assert_eq(p->n_addrs, 2);
	cr_assert_eq(p->addrs[0].family, AF_INET);
	cr_assert_eq(p->addrs[0].prefix, 24);
	cr_assert_arr_eq(p->addrs[0].addr, ((uint8_t[]){ 10, 0, 0, 1 }), 4);
	cr_assert_eq(p->addrs[1].family, AF_INET6);
	cr_assert_eq(p->addrs[1].prefix, 64);
	inet_pton(AF_INET6, "fd00::1", v6);
	cr_assert_arr_eq(p->addrs[1].addr, v6, 16);
	cr_assert(p->has_gw4 && p->has_gw6);
	cr_assert_arr_eq(p->gw4.addr, ((uint8_t[]){ 10, 0, 0, 254 }), 4);
	cr_assert_eq(p->gw4.prefix, 0);
	inet_pton(AF_INET6, "fe80::1", v6);
	cr_assert_arr_eq(p->gw6.addr, v6, 16);
	cr_assert_eq(p->mtu, 9000);
	cr_assert_eq(p->vlan, 100);
	cr_assert_eq(p->rx_queues, 2);
	cr_assert_eq(p->tx_queues, 3);
	cr_assert_eq(p->rx_desc, 512);
	cr_assert_eq(p->tx_desc, 2048);
	cr_assert_str_eq(p->capture, "/tmp/rxd port1.pcapng");
	cr_assert_eq(p->fault_seed, 0x1234567890abcdefULL);

	cr_assert_float_eq(p->fault_rx.drop, 0.01, 1e-12);
	cr_assert_float_eq(p->fault_rx.dup, 0.02, 1e-12);
	cr_assert_float_eq(p->fault_rx.reorder, 0.125, 1e-12);
	cr_assert_eq(p->fault_rx.reorder_depth, 8);
	cr_assert_float_eq(p->fault_rx.corrupt, 0.001, 1e-12);
	cr_assert(!p->fault_rx.cut);
	cr_assert_eq(p->fault_rx.drop_opcode, 0x11);
	cr_assert_float_eq(p->fault_tx.drop, 1.0, 1e-12);
	cr_assert_float_eq(p->fault_tx.dup, 0.0, 1e-12);
	cr_assert_float_eq(p->fault_tx.reorder, 1.0, 1e-12);
	cr_assert_eq(p->fault_tx.reorder_depth, 1);
	cr_assert_float_eq(p->fault_tx.corrupt, 0.0, 1e-12);
	cr_assert(p->fault_tx.cut);
	cr_assert_eq(p->fault_tx.drop_opcode, 6);
	cr_assert_neq(strstr(c.source, "ok.ini"), NULL);
}

Test(file, other_keys_keep_their_values)
{
	struct rxd_conf c, d;

	tc_load_ok(&c, "[port0]\nmtu = 4000\n");
	rxd_conf_defaults(&d);
	cr_assert_eq(c.port[0].mtu, 4000);
	cr_assert(c.port[0].present);
	cr_assert_eq(c.port[0].rx_desc, d.port[0].rx_desc);
	cr_assert_eq(c.sq_depth, d.sq_depth);
	cr_assert_eq(c.port[0].fault_rx.drop_opcode, -1);
}

Test(file, comments_blanks_crlf)
{
	struct rxd_conf c;

	tc_load_ok(&c,
		"# a comment\r\n"
		"; another comment\r\n"
		"   \r\n"
		"# mtu = 1234\r\n"
		"[ port0 ]   ; the first port\r\n"
		"  mtu   =   9000   ; jumbo\r\n"
		"# [port1]\r\n"
		"#vlan = 7\r\n"
		"\tvlan\t=\t5\r\n");
	cr_assert_eq(c.port[0].mtu, 9000);
	cr_assert_eq(c.port[0].vlan, 5);
	cr_assert(!c.port[1].present);
}

Test(file, escaped_semicolon)
{
	struct rxd_conf c;

	tc_load_ok(&c, "[port0]\ncapture = /tmp/a\\;b.pcapng\n");
	cr_assert_str_eq(c.port[0].capture, "/tmp/a;b.pcapng");
}

Test(file, hash_comments_rte_cfgfile_would_read_as_keys)
{
	char text[1024];
	struct rxd_conf c;

	/* rte_cfgfile sees "# k = v" as a key; before any section too, and
	 * with names and values longer than it keeps. */
	snprintf(text, sizeof(text), "# %0100d = %0200d\n#top =\n"
		"[port0]\n# mtu = 1234\n#vlan=\nmtu = 1400\n", 0, 0);
	tc_load_ok(&c, text);
	cr_assert_eq(c.port[0].mtu, 1400);
	cr_assert_eq(c.port[0].vlan, 0);
}

Test(file, empty_file_and_empty_section)
{
	struct rxd_conf c, d;

	tc_load_ok(&c, "");
	rxd_conf_defaults(&d);
	d.port[3].present = true;
	tc_load_ok(&c, "[port3]\n");
	snprintf(d.source, sizeof(d.source), "%s", c.source);
	cr_assert_arr_eq(&c, &d, sizeof(c));
}

Test(file, names_and_forms)
{
	struct rxd_conf c;

	tc_load_ok(&c, "[engine]\nlcores = all\nidle = SPIN\n"
		"[log]\nlevel = 3\n"
		"[port0]\nfault.rx.drop_opcode = none\nfault.tx.cut = On\n"
		"capture =\n");
	cr_assert_eq(c.n_engine_lcores, 0);
	cr_assert_eq(c.idle, RXD_IDLE_SPIN);
	cr_assert_eq(c.log_level, 3);
	cr_assert_eq(c.port[0].fault_rx.drop_opcode, -1);
	cr_assert(c.port[0].fault_tx.cut);
	cr_assert_str_eq(c.port[0].capture, "");
}

Test(file, mtu_out_of_range_names_file_line_key)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	tc_write("rxd.ini",
		"; rxd test\n"
		"[engine]\n"
		"idle = sleep\n"
		"\n"
		"[limits]\n"
		"sq_depth = 1024\n"
		"\n"
		"[port0]\n"
		"addr = 10.0.0.1/24\n"
		"vlan = 0\n"
		"\n"
		"mtu = 70000\n");
	cr_assert_eq(chdir(tc_dir()), 0);
	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_load_file(&c, "rxd.ini", err, sizeof(err)), -1);
	cr_assert_str_eq(err,
		"rxd.ini:12: [port0] mtu: 70000 is out of range 68..9600");
}

Test(file, unknown_key)
{
	tc_expect_file_error("[port0]\nmtu = 1500\nmtux = 9000\n",
		":3: [port0] mtux: unknown key");
}

Test(file, unknown_section)
{
	tc_expect_file_error("[engine]\nidle = spin\n\n[port8]\nmtu = 1500\n",
		":4: [port8]: unknown section (sections are engine, limits, "
		"log, port0..port7)");
}

Test(file, key_of_another_section)
{
	tc_expect_file_error("[engine]\nmtu = 1500\n",
		":2: [engine] mtu: unknown key");
}

Test(file, bad_address)
{
	tc_expect_file_error("[port0]\naddr = 10.0.0.1/24, 10.0.0.300/24\n",
		":2: [port0] addr: '10.0.0.300/24' is not an IPv4 or IPv6 "
		"address");
}

Test(file, bad_prefix)
{
	tc_expect_file_error("\n[port2]\naddr = 10.0.0.1/33\n",
		":3: [port2] addr: '10.0.0.1/33': prefix 33 is out of range "
		"1..32");
	tc_expect_file_error("[port0]\naddr = fd00::1/129\n",
		":2: [port0] addr: 'fd00::1/129': prefix 129 is out of range "
		"1..128");
	tc_expect_file_error("[port0]\naddr = 10.0.0.1/x\n",
		":2: [port0] addr: '10.0.0.1/x': 'x' is not a prefix length");
	tc_expect_file_error("[port0]\naddr = 10.0.0.1\n",
		":2: [port0] addr: '10.0.0.1' has no /prefix");
}

Test(file, bad_address_kinds)
{
	tc_expect_file_error("[port0]\naddr = 224.0.0.1/4\n",
		":2: [port0] addr: '224.0.0.1/4' is not a unicast address");
	tc_expect_file_error("[port0]\naddr = ::/64\n",
		":2: [port0] addr: '::/64' is the unspecified address");
	tc_expect_file_error("[port0]\naddr = 10.0.0.1/24, 10.0.0.1/16\n",
		":2: [port0] addr: 10.0.0.1/16 is listed twice");
	tc_expect_file_error("[port0]\naddr = 10.0.0.1/24,,10.0.0.2/24\n",
		":2: [port0] addr: empty item in "
		"'10.0.0.1/24,,10.0.0.2/24'");
	tc_expect_file_error("[port0]\naddr = 10.0.0.1/8, 10.0.0.2/8, "
		"10.0.0.3/8, 10.0.0.4/8, 10.0.0.5/8, 10.0.0.6/8, 10.0.0.7/8, "
		"10.0.0.8/8, 10.0.0.9/8\n",
		":2: [port0] addr: more than 8 addresses");
}

Test(file, bad_gateway)
{
	tc_expect_file_error("[port0]\ngateway = 10.0.0.1, 10.0.0.2\n",
		":2: [port0] gateway: two IPv4 gateways");
	tc_expect_file_error("[port0]\ngateway = 10.0.0.1/24\n",
		":2: [port0] gateway: '10.0.0.1/24' must not have a /prefix");
}

Test(file, bad_mtu)
{
	tc_expect_file_error("[port0]\nmtu = abc\n",
		":2: [port0] mtu: 'abc' is not a number");
	tc_expect_file_error("[port0]\nmtu = 1500 # jumbo\n",
		":2: [port0] mtu: '1500 # jumbo' is not a number");
	tc_expect_file_error("[port0]\nmtu = 67\n",
		":2: [port0] mtu: 67 is out of range 68..9600");
	tc_expect_file_error("[port0]\nmtu = -1\n",
		":2: [port0] mtu: -1 is out of range 68..9600");
	tc_expect_file_error("[port0]\nmtu = 99999999999999999999999\n",
		":2: [port0] mtu: 99999999999999999999999 is out of range "
		"68..9600");
}

Test(file, out_of_range_values)
{
	tc_expect_file_error("[limits]\nsq_depth = 0\n",
		":2: [limits] sq_depth: 0 is out of range 1..1048576");
	tc_expect_file_error("[port0]\nvlan = 4095\n",
		":2: [port0] vlan: 4095 is out of range 0..4094");
	tc_expect_file_error("[port0]\nrx_queues = 0\n",
		":2: [port0] rx_queues: 0 is out of range 1..16");
	tc_expect_file_error("[port0]\nfault.tx.drop_opcode = 256\n",
		":2: [port0] fault.tx.drop_opcode: 256 is out of range 0..255");
	tc_expect_file_error("[log]\nlevel = 9\n",
		":2: [log] level: 9 is out of range 1..8");
}

Test(file, bad_rate)
{
	tc_expect_file_error("[port0]\nfault.rx.drop = 120%\n",
		":2: [port0] fault.rx.drop: 120% is out of range 0%..100%");
	tc_expect_file_error("[port0]\nfault.tx.dup = 1.5\n",
		":2: [port0] fault.tx.dup: 1.5 is out of range 0..1");
	tc_expect_file_error("[port0]\nfault.tx.corrupt = lots\n",
		":2: [port0] fault.tx.corrupt: 'lots' is not a rate "
		"(a fraction 0..1 or a percentage 0%..100%)");
	tc_expect_file_error("[port0]\nfault.tx.corrupt = nan\n",
		":2: [port0] fault.tx.corrupt: 'nan' is not a rate "
		"(a fraction 0..1 or a percentage 0%..100%)");
}

Test(file, bad_names)
{
	tc_expect_file_error("[engine]\nidle = nap\n",
		":2: [engine] idle: 'nap' is not one of spin, pause, sleep");
	tc_expect_file_error("[log]\nlevel = loud\n",
		":2: [log] level: 'loud' is not 1..8 or one of emerg, alert, "
		"crit, err, warning, notice, info, debug");
	tc_expect_file_error("[port0]\nfault.rx.cut = maybe\n",
		":2: [port0] fault.rx.cut: 'maybe' is not a boolean "
		"(true/false, yes/no, on/off, 1/0)");
	tc_expect_file_error("[port0]\nfault.rx.drop_opcode = send\n",
		":2: [port0] fault.rx.drop_opcode: 'send' is not an opcode "
		"(0..255 or none)");
}

Test(file, bad_lcores)
{
	tc_expect_file_error("[engine]\nlcores = 1,x\n",
		":2: [engine] lcores: 'x' is not an lcore or a range A-B "
		"(lists look like 1,2 or 1-3 or all)");
	tc_expect_file_error("[engine]\nlcores = 3-1\n",
		":2: [engine] lcores: '3-1' is not an lcore or a range A-B "
		"(lists look like 1,2 or 1-3 or all)");
	tc_expect_file_error("[engine]\nlcores = 1,200\n",
		":2: [engine] lcores: lcore 200 is out of range 0..127");
	tc_expect_file_error("[engine]\nlcores = 1-3,2\n",
		":2: [engine] lcores: lcore 2 is listed twice");
	tc_expect_file_error("[engine]\nlcores = 0-16\n",
		":2: [engine] lcores: more than 16 lcores");
}

Test(file, duplicate_key)
{
	tc_expect_file_error("[port0]\nmtu = 1500\nvlan = 3\nmtu = 9000\n",
		":4: [port0] mtu: duplicate key (first at line 2)");
}

Test(file, duplicate_section)
{
	tc_expect_file_error("[port0]\nmtu = 1500\n[log]\nlevel = 3\n"
		"[port0]\nvlan = 2\n",
		":5: [port0]: duplicate section (first at line 1)");
}

Test(file, syntax_error_line)
{
	tc_expect_file_error("[port0]\nmtu = 1500\nthis is not ini\n",
		":3: syntax error: 'this is not ini' is neither a [section], "
		"a key = value nor a comment");
	tc_expect_file_error("[port0]\n = 1500\n",
		":2: syntax error: '=' without a key");
	tc_expect_file_error("[port0\nmtu = 1500\n",
		":1: syntax error: '[port0' is not a section header [name]");
	tc_expect_file_error("[port0] mtu = 1\n",
		":1: syntax error: '[port0] mtu = 1' is not a section header "
		"[name]");
}

Test(file, key_outside_section)
{
	tc_expect_file_error("; top\nmtu = 1500\n[port0]\n",
		":2: mtu: key outside any section");
}

Test(file, missing_value)
{
	tc_expect_file_error("[port0]\nmtu =\n",
		":2: [port0] mtu: missing value");
}

Test(file, long_lines)
{
	char text[1024];

	snprintf(text, sizeof(text), "[port0]\n;%0400d\n", 0);
	tc_expect_file_error(text, ":2: line too long (401 characters, "
		"max 320)");
	snprintf(text, sizeof(text), "[port0]\ncapture = /%0260d\n", 0);
	tc_expect_file_error(text, ":2: [port0] capture: value too long "
		"(max 255 characters)");
}

Test(file, nul_byte)
{
	const char *path = tc_write("nul.ini", "");
	char err[RXD_CONF_ERRLEN], want[RXD_CONF_ERRLEN];
	struct rxd_conf c;
	FILE *f = fopen(path, "w");

	fwrite("[port0]\nmtu = 1\0\n", 1, 17, f);
	fclose(f);
	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_load_file(&c, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:2: syntax error: NUL byte in line",
		path);
	cr_assert_str_eq(err, want);
}

Test(file, cannot_open)
{
	char err[RXD_CONF_ERRLEN], path[256], want[512];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	snprintf(path, sizeof(path), "%s/absent.ini", tc_dir());
	cr_assert_eq(rxd_conf_load_file(&c, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: cannot open: %s", path,
		strerror(ENOENT));
	cr_assert_str_eq(err, want);
	cr_assert_eq(rxd_conf_load_file(&c, tc_dir(), err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: cannot open: %s", tc_dir(),
		strerror(EISDIR));
	cr_assert_str_eq(err, want);
}

Test(file, failed_load_changes_nothing)
{
	const char *path = tc_write("half.ini",
		"[port0]\nmtu = 9000\naddr = 10.0.0.1/24\nvlan = 5000\n");
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c, d;

	rxd_conf_defaults(&c);
	rxd_conf_defaults(&d);
	cr_assert_eq(rxd_conf_load_file(&c, path, err, sizeof(err)), -1);
	cr_assert_arr_eq(&c, &d, sizeof(c));
}

Test(file, small_error_buffer)
{
	const char *path = tc_write("x.ini", "[nope]\n");
	char err[8];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_load_file(&c, path, err, sizeof(err)), -1);
	cr_assert_eq(strlen(err), sizeof(err) - 1);
	cr_assert_eq(rxd_conf_load_file(&c, path, NULL, 0), -1);
}
