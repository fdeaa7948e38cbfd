/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the lib/config tests: a private temporary directory per test
 * for INI files, a clean RXD_* environment, and error-message assertions.
 */
#ifndef TC_HELPERS_H
#define TC_HELPERS_H

#include "rxd_config.h"

#ifndef RXD_TEST_SRCDIR
#define RXD_TEST_SRCDIR "."
#endif

/** Suite init: clean environment and a fresh temporary directory. */
void tc_setup(void);
/** Suite fini: remove the files written and the directory. */
void tc_teardown(void);
/** The temporary directory of this test. */
const char *tc_dir(void);
/** Write text to tc_dir()/name; returns the path (valid for the test). */
const char *tc_write(const char *name, const char *text);
/**
 * Load text as a file over the defaults and assert it fails with exactly
 * "<path>" followed by want (e.g. ":3: [port0] mtux: unknown key").
 */
void tc_expect_file_error(const char *text, const char *want);
/** Load text as a file over the defaults, asserting success. */
void tc_load_ok(struct rxd_conf *c, const char *text);

#endif /* TC_HELPERS_H */
