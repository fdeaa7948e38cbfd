/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the lib/config tests (see tc_helpers.h).  Criterion runs each
 * test in its own process, so the state here is per test.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tc_helpers.h"

#define TC_MAX_FILES 16

static char dir[64];
static char files[TC_MAX_FILES][PATH_MAX];
static unsigned n_files;

void
tc_setup(void)
{
	static const char *const vars[] = {
		"RXD_CONFIG", "RXD_ADDR", "RXD_MTU", "RXD_LOG", "RXD_CC",
		"RXD_DCQCN",
	};
	unsigned i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	snprintf(dir, sizeof(dir), "/tmp/rxd-conf-test-XXXXXX");
	cr_assert_not_null(mkdtemp(dir), "mkdtemp");
	n_files = 0;
}

void
tc_teardown(void)
{
	unsigned i;

	for (i = 0; i < n_files; i++)
		unlink(files[i]);
	if (dir[0] != '\0')
		rmdir(dir);
}

const char *
tc_dir(void)
{
	return dir;
}

const char *
tc_write(const char *name, const char *text)
{
	char *path;
	FILE *f;

	cr_assert_lt(n_files, TC_MAX_FILES);
	path = files[n_files++];
	snprintf(path, PATH_MAX, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "cannot write %s", path);
	cr_assert_eq(fputs(text, f) >= 0, true);
	cr_assert_eq(fclose(f), 0);
	return path;
}

void
tc_expect_file_error(const char *text, const char *want)
{
	char err[RXD_CONF_ERRLEN], full[RXD_CONF_ERRLEN];
	const char *path = tc_write("bad.ini", text);
	struct rxd_conf c;

	rxd_conf_defaults(&c);
	cr_assert_eq(rxd_conf_load_file(&c, path, err, sizeof(err)), -1,
		"loaded a bad file, want %s", want);
	snprintf(full, sizeof(full), "%s%s", path, want);
	cr_assert_str_eq(err, full);
	cr_assert_null(strchr(err, '\n'), "the message is one line");
}

void
tc_load_ok(struct rxd_conf *c, const char *text)
{
	char err[RXD_CONF_ERRLEN] = "";
	const char *path = tc_write("ok.ini", text);

	rxd_conf_defaults(c);
	cr_assert_eq(rxd_conf_load_file(c, path, err, sizeof(err)), 0,
		"load failed: %s", err);
}
