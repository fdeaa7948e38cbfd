/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Application options, and rxd_conf_load(): the order of precedence
 * defaults < file < environment < options, and the options it leaves for
 * the application.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "tc_helpers.h"

TestSuite(args, .init = tc_setup, .fini = tc_teardown);

#define ARGV(...) ((char *[]){ "prog", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "prog", __VA_ARGS__ }) / \
	sizeof(char *)))
#define APPLY(c, err, ...) \
	rxd_conf_apply_args(c, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), \
		err, sizeof(err))

static void
expect_args_error(int argc, char **argv, const char *want)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c, d;

	rxd_conf_defaults(&c);
	rxd_conf_defaults(&d);
	cr_assert_eq(rxd_conf_apply_args(&c, argc, argv, err, sizeof(err)),
		-1, "accepted, want %s", want);
	cr_assert_str_eq(err, want);
	cr_assert_arr_eq(&c, &d, sizeof(c), "unchanged on error");
}

#define EXPECT_ERROR(want, ...) \
	expect_args_error(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), want)

static const char *
addr(const struct rxd_conf *c, unsigned port, unsigned i)
{
	static char s[RXD_CONF_ADDRSTRLEN];

	return rxd_conf_addr_str(&c->port[port].addrs[i], s, sizeof(s));
}

Test(args, none)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c, d;

	rxd_conf_defaults(&c);
	rxd_conf_defaults(&d);
	cr_assert_eq(rxd_conf_apply_args(&c, 1, ARGV(NULL), err,
		sizeof(err)), 0);
	cr_assert_eq(rxd_conf_apply_args(&c, 0, NULL, err, sizeof(err)), 0);
	cr_assert_arr_eq(&c, &d, sizeof(c));
}

Test(args, ip_repeatable_and_per_port)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(APPLY(&c, err, "--ip", "10.0.0.1/24", "--ip=fd00::1/64",
		"--ip", "1:10.1.0.1/16", "--ip", "1:fe80::2/64",
		"--ip", "2001:db8::1/48", "--ip", "0::5/128"), 0, "%s", err);
	cr_assert_eq(c.port[0].n_addrs, 4);
	cr_assert_str_eq(addr(&c, 0, 3), "::5/128");
	cr_assert_str_eq(addr(&c, 0, 0), "10.0.0.1/24");
	cr_assert_str_eq(addr(&c, 0, 1), "fd00::1/64");
	cr_assert_str_eq(addr(&c, 0, 2), "2001:db8::1/48");
	cr_assert_eq(c.port[1].n_addrs, 2);
	cr_assert_str_eq(addr(&c, 1, 0), "10.1.0.1/16");
	cr_assert_str_eq(addr(&c, 1, 1), "fe80::2/64");
	cr_assert(c.port[0].present && c.port[1].present);
	cr_assert(!c.port[2].present);
}

Test(args, ip_replaces_earlier_sources)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	tc_load_ok(&c, "[port0]\naddr = 192.168.0.1/24, 192.168.0.2/24\n"
		"[port1]\naddr = 172.16.0.1/12\n");
	cr_assert_eq(APPLY(&c, err, "--ip", "10.0.0.1/24"), 0, "%s", err);
	cr_assert_eq(c.port[0].n_addrs, 1);
	cr_assert_str_eq(addr(&c, 0, 0), "10.0.0.1/24");
	cr_assert_eq(c.port[1].n_addrs, 1, "port 1 untouched");
}

Test(args, scalar_options)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(APPLY(&c, err, "--mtu", "9000", "--mtu=3:4000",
		"--lcores", "1-3", "--idle", "spin", "--log=err"), 0,
		"%s", err);
	cr_assert_eq(c.port[0].mtu, 9000);
	cr_assert_eq(c.port[3].mtu, 4000);
	cr_assert(c.port[3].present);
	cr_assert_eq(c.n_engine_lcores, 3);
	cr_assert_eq(c.engine_lcores[2], 3);
	cr_assert_eq(c.idle, RXD_IDLE_SPIN);
	cr_assert_eq(c.log_level, 4);
}

Test(args, set_any_key)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(APPLY(&c, err, "--set", "port2.fault.rx.drop=1%",
		"--set=limits.max_qp=64", "--set", "port2.capture=/tmp/a=b"),
		0, "%s", err);
	cr_assert_float_eq(c.port[2].fault_rx.drop, 0.01, 1e-12);
	cr_assert_eq(c.max_qp, 64);
	cr_assert_str_eq(c.port[2].capture, "/tmp/a=b");
	cr_assert(c.port[2].present);
}

Test(args, config_first_wherever_it_is)
{
	const char *path = tc_write("a.ini", "[port0]\nmtu = 2000\nvlan = 9\n");
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(APPLY(&c, err, "--mtu", "5000", "--config",
		(char *)path), 0, "%s", err);
	cr_assert_eq(c.port[0].mtu, 5000);
	cr_assert_eq(c.port[0].vlan, 9);
	cr_assert_str_eq(c.source, path);
}

Test(args, argv_is_not_modified)
{
	char err[RXD_CONF_ERRLEN];
	char *argv[] = { "prog", "--ip", "10.0.0.1/24", "--mtu", "9000", NULL };
	char *copy[6];
	struct rxd_conf c;

	memcpy(copy, argv, sizeof(argv));
	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_apply_args(&c, 5, argv, err, sizeof(err)), 0);
	cr_assert_arr_eq(argv, copy, sizeof(argv));
}

Test(args, errors)
{
	EXPECT_ERROR("unknown option '--foo'", "--mtu", "9000", "--foo");
	EXPECT_ERROR("unknown option '-i'", "-i");
	EXPECT_ERROR("unexpected argument 'extra'", "--mtu", "9000", "extra");
	EXPECT_ERROR("--mtu: missing value [PORT:]N", "--mtu");
	EXPECT_ERROR("--mtu: 'abc' is not a number", "--mtu", "abc");
	EXPECT_ERROR("--mtu: 70000 is out of range 68..9600", "--mtu=70000");
	EXPECT_ERROR("--mtu: port 9 is out of range 0..7", "--mtu", "9:1500");
	EXPECT_ERROR("--ip: '10.0.0.1' has no /prefix", "--ip", "10.0.0.1");
	EXPECT_ERROR("--ip: 10.0.0.1/24 is listed twice",
		"--ip", "10.0.0.1/24", "--ip", "0:10.0.0.1/24");
	EXPECT_ERROR("--idle: 'doze' is not one of spin, pause, sleep",
		"--idle", "doze");
	EXPECT_ERROR("--lcores: lcore 128 is out of range 0..127",
		"--lcores", "127-128");
	EXPECT_ERROR("--set: 'mtu=1' is not SECTION.KEY=VALUE",
		"--set", "mtu=1");
	EXPECT_ERROR("--set: [port9]: unknown section", "--set",
		"port9.mtu=1");
	EXPECT_ERROR("--set: [port0] mut: unknown key", "--set",
		"port0.mut=1");
	EXPECT_ERROR("--config: given twice", "--config", "a", "--config",
		"b");
}

/* Found by fuzz_conf: a newline quoted from an option made the message
 * two lines. */
Test(args, errors_stay_one_line)
{
	EXPECT_ERROR("unexpected argument 'a?FAKE: b'", "a\nFAKE: b");
	EXPECT_ERROR("--idle: 'spin?X?' is not one of spin, pause, sleep",
		"--idle", "spin\rX\x1b");
}

Test(args, config_error)
{
	const char *path = tc_write("b.ini", "[port0]\nvlan = x\n");
	char want[RXD_CONF_ERRLEN];

	snprintf(want, sizeof(want), "%s:2: [port0] vlan: 'x' is not a number",
		path);
	EXPECT_ERROR(want, "--config", (char *)path);
}

Test(args, load_precedence)
{
	const char *path = tc_write("p.ini",
		"[engine]\nidle = pause\nidle_spins = 7\n"
		"[log]\nlevel = info\n"
		"[port0]\naddr = 192.168.0.1/24\nmtu = 2000\nvlan = 3\n");
	char *argv[] = { "prog", "--mtu", "4000", "--ip", "10.0.0.1/24", NULL };
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;
	int argc = 5;

	setenv("RXD_CONFIG", path, 1);
	setenv("RXD_MTU", "3000", 1);
	setenv("RXD_LOG", "crit", 1);
	setenv("RXD_ADDR", "172.16.0.1/12", 1);
	cr_assert_eq(rxd_conf_load(&c, &argc, argv, err, sizeof(err)), 0,
		"%s", err);
	cr_assert_eq(c.idle_spins, 7, "file beats defaults");
	cr_assert_eq(c.port[0].vlan, 3, "file beats defaults");
	cr_assert_eq(c.log_level, 3, "env beats file");
	cr_assert_eq(c.port[0].mtu, 4000, "options beat env");
	cr_assert_eq(c.port[0].n_addrs, 1);
	cr_assert_str_eq(addr(&c, 0, 0), "10.0.0.1/24", "options beat env");
	cr_assert_eq(c.sq_depth, 16384, "defaults");
	cr_assert_eq(argc, 1);
}

Test(args, load_config_option_beats_rxd_config)
{
	const char *a = tc_write("a.ini", "[port0]\nmtu = 2000\n");
	const char *b = tc_write("b.ini", "[port0]\nmtu = 3000\n");
	char *argv[] = { "prog", "--config", (char *)b, NULL };
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;
	int argc = 3;

	setenv("RXD_CONFIG", a, 1);
	cr_assert_eq(rxd_conf_load(&c, &argc, argv, err, sizeof(err)), 0,
		"%s", err);
	cr_assert_eq(c.port[0].mtu, 3000);
	cr_assert_str_eq(c.source, b);
}

Test(args, load_leaves_application_options)
{
	char *argv[] = { "prog", "-i", "--ip", "10.0.0.1/24", "--foo", "x",
		"--log=debug", "--burst", "32", NULL };
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;
	int argc = 9;

	cr_assert_eq(rxd_conf_load(&c, &argc, argv, err, sizeof(err)), 0,
		"%s", err);
	cr_assert_eq(argc, 6);
	cr_assert_str_eq(argv[0], "prog");
	cr_assert_str_eq(argv[1], "-i");
	cr_assert_str_eq(argv[2], "--foo");
	cr_assert_str_eq(argv[3], "x");
	cr_assert_str_eq(argv[4], "--burst");
	cr_assert_str_eq(argv[5], "32");
	cr_assert_null(argv[6]);
	cr_assert_eq(c.log_level, 8);
	cr_assert_eq(c.port[0].n_addrs, 1);
}

Test(args, load_without_arguments)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	setenv("RXD_ADDR", "10.0.0.2/24", 1);
	cr_assert_eq(rxd_conf_load(&c, NULL, NULL, err, sizeof(err)), 0,
		"%s", err);
	cr_assert_str_eq(addr(&c, 0, 0), "10.0.0.2/24");
}

Test(args, load_validates_and_keeps_argv_on_error)
{
	char *argv[] = { "prog", "--ip", "10.0.0.1/24", "--set",
		"port0.gateway=10.1.0.1", "-i", NULL };
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;
	int argc = 6;

	rxd_conf_defaults(&c);
	c.max_qp = 5;
	cr_assert_eq(rxd_conf_load(&c, &argc, argv, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "[port0] gateway: 10.1.0.1 is not in a subnet "
		"of the port's IPv4 addresses");
	cr_assert_eq(argc, 6);
	cr_assert_str_eq(argv[1], "--ip");
	cr_assert_eq(c.max_qp, 5, "unchanged on error");
}

Test(args, usage_lists_every_option)
{
	static const char *const names[] = {
		"--config FILE", "--ip [PORT:]ADDR/PREFIX", "--mtu [PORT:]N",
		"--lcores LIST", "--idle spin|pause|sleep", "--log LEVEL",
		"--set SECTION.KEY=VALUE",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned i;

	cr_assert_eq(rxd_conf_write_usage(f), 0);
	fclose(f);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		cr_assert_not_null(strstr(buf, names[i]), "%s", names[i]);
	free(buf);
}
