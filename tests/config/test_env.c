/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RXD_* environment: RXD_CONFIG loads a file, RXD_ADDR / RXD_MTU /
 * RXD_LOG / RXD_CC override it, errors name the variable, empty variables
 * are unset, the replaced RXD_DCQCN is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "tc_helpers.h"

TestSuite(env, .init = tc_setup, .fini = tc_teardown);

static void
expect_env_error(const char *want)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c, d;

	rxd_conf_defaults(&c);
	rxd_conf_defaults(&d);
	cr_assert_eq(rxd_conf_apply_env(&c, err, sizeof(err)), -1);
	cr_assert_str_eq(err, want);
	cr_assert_arr_eq(&c, &d, sizeof(c), "unchanged on error");
}

Test(env, nothing_set)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c, d;

	rxd_conf_defaults(&c);
	rxd_conf_defaults(&d);
	cr_assert_eq(rxd_conf_apply_env(&c, err, sizeof(err)), 0);
	cr_assert_arr_eq(&c, &d, sizeof(c));
}

Test(env, addr_replaces_port0_addresses)
{
	char err[RXD_CONF_ERRLEN], s[RXD_CONF_ADDRSTRLEN];
	struct rxd_conf c;

	tc_load_ok(&c, "[port0]\naddr = 192.168.1.1/24, 192.168.1.2/24, "
		"fd00::9/64\n");
	setenv("RXD_ADDR", "10.0.0.1/24,fd00::1/64", 1);
	cr_assert_eq(rxd_conf_apply_env(&c, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.port[0].n_addrs, 2);
	cr_assert_str_eq(rxd_conf_addr_str(&c.port[0].addrs[0], s,
		sizeof(s)), "10.0.0.1/24");
	cr_assert_str_eq(rxd_conf_addr_str(&c.port[0].addrs[1], s,
		sizeof(s)), "fd00::1/64");
	cr_assert_eq(c.port[0].addrs[2].family, 0, "old entries cleared");
	cr_assert(c.port[0].present);
}

Test(env, mtu_and_log)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	setenv("RXD_MTU", " 9000 ", 1);
	setenv("RXD_LOG", "debug", 1);
	cr_assert_eq(rxd_conf_apply_env(&c, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.port[0].mtu, 9000);
	cr_assert_eq(c.log_level, 8);
	setenv("RXD_LOG", "4", 1);
	cr_assert_eq(rxd_conf_apply_env(&c, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.log_level, 4);
}

Test(env, config_file_then_variables)
{
	const char *path = tc_write("env.ini",
		"[port0]\nmtu = 2000\nvlan = 7\n[log]\nlevel = info\n");
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	setenv("RXD_CONFIG", path, 1);
	setenv("RXD_MTU", "3000", 1);
	cr_assert_eq(rxd_conf_apply_env(&c, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.port[0].mtu, 3000, "RXD_MTU beats the file");
	cr_assert_eq(c.port[0].vlan, 7);
	cr_assert_eq(c.log_level, 7);
	cr_assert_str_eq(c.source, path);
}

Test(env, config_errors_are_the_files)
{
	const char *path = tc_write("env.ini", "[port0]\nmtu = 1\n");
	char want[RXD_CONF_ERRLEN];

	setenv("RXD_CONFIG", path, 1);
	snprintf(want, sizeof(want),
		"%s:2: [port0] mtu: 1 is out of range 68..9600", path);
	expect_env_error(want);
	setenv("RXD_CONFIG", "/nonexistent/rxd.ini", 1);
	snprintf(want, sizeof(want), "/nonexistent/rxd.ini: cannot open: %s",
		strerror(ENOENT));
	expect_env_error(want);
}

Test(env, errors_name_the_variable)
{
	setenv("RXD_MTU", "abc", 1);
	expect_env_error("RXD_MTU: 'abc' is not a number");
	setenv("RXD_MTU", "70000", 1);
	expect_env_error("RXD_MTU: 70000 is out of range 68..9600");
	unsetenv("RXD_MTU");
	setenv("RXD_ADDR", "10.0.0.1", 1);
	expect_env_error("RXD_ADDR: '10.0.0.1' has no /prefix");
	setenv("RXD_ADDR", "10.0.0.1/24,bogus/8", 1);
	expect_env_error("RXD_ADDR: 'bogus/8' is not an IPv4 or IPv6 address");
	unsetenv("RXD_ADDR");
	setenv("RXD_LOG", "loud", 1);
	expect_env_error("RXD_LOG: 'loud' is not 1..8 or one of emerg, alert, "
		"crit, err, warning, notice, info, debug");
	/* found by fuzz_conf: the value's newline made two lines */
	setenv("RXD_LOG", "loud\nRXD_LOG: ok", 1);
	expect_env_error("RXD_LOG: 'loud?RXD_LOG: ok' is not 1..8 or one of "
		"emerg, alert, crit, err, warning, notice, info, debug");
}

Test(env, cc_chooses_the_law_and_rxd_dcqcn_is_refused)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(c.port[0].cc, RXD_CC_DCQCN, "today's DCQCN by default");
	setenv("RXD_CC", "delay", 1);
	cr_assert_eq(rxd_conf_apply_env(&c, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.port[0].cc, RXD_CC_DELAY);
	setenv("RXD_CC", "on", 1);
	expect_env_error("RXD_CC: 'on' is not one of off, dcqcn, ecn, delay");
	unsetenv("RXD_CC");
	setenv("RXD_DCQCN", "false", 1);
	expect_env_error("RXD_DCQCN: replaced by RXD_CC (off, dcqcn, ecn or "
		"delay)");
}

Test(env, empty_means_unset)
{
	char err[RXD_CONF_ERRLEN];
	struct rxd_conf c, d;

	setenv("RXD_CONFIG", "", 1);
	setenv("RXD_ADDR", "", 1);
	setenv("RXD_MTU", "", 1);
	setenv("RXD_LOG", "", 1);
	rxd_conf_defaults(&c);
	rxd_conf_defaults(&d);
	cr_assert_eq(rxd_conf_apply_env(&c, err, sizeof(err)), 0, "%s", err);
	cr_assert_arr_eq(&c, &d, sizeof(c));
}
