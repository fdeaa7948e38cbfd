/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxd-conf-reference: print the configuration key reference generated from
 * lib/config's key table (the table in doc/configuration.md), or, with
 * "usage", the application options.
 */
#include <stdio.h>
#include <string.h>

#include "rxd_config.h"

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "usage") == 0)
		return rxd_conf_write_usage(stdout) == 0 ? 0 : 1;
	return rxd_conf_write_reference(stdout) == 0 ? 0 : 1;
}
