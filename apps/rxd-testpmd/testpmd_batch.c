/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Batch mode: run commands from a file (--cmdline-file) or from the
 * command line (--cmd), echoing each after the prompt.  The first command
 * that cannot be parsed or that fails stops the batch with an error naming
 * where it came from (FILE:LINE, or the --cmd text).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmdline.h>

#include "testpmd.h"

#define LINE_MAX_LEN 1024

static const char *
parse_error(int rc)
{
	switch (rc) {
	case CMDLINE_PARSE_AMBIGUOUS:
		return "ambiguous command";
	case CMDLINE_PARSE_BAD_ARGS:
		return "bad arguments";
	default:
		return "unknown command";
	}
}

static bool
blank_or_comment(const char *s)
{
	s += strspn(s, " \t\r");
	return *s == '\0' || *s == '#';
}

/* Run one line (no newline); print "WHERE: reason" and return -1 on error. */
static int
run_line(struct cmdline *cl, const char *line, const char *where)
{
	char buf[LINE_MAX_LEN + 2];
	int rc;

	if (blank_or_comment(line))
		return 0;
	if (strlen(line) > LINE_MAX_LEN) {
		fprintf(stderr, "%s: line longer than %d characters\n", where,
			LINE_MAX_LEN);
		return -1;
	}
	printf("%s%s\n", TP_PROMPT, line);
	snprintf(buf, sizeof(buf), "%s\n", line);
	tp.cmd_failed = false;
	rc = cmdline_parse(cl, buf);
	if (rc < 0) {
		fprintf(stderr, "%s: '%s': %s (see help)\n", where, line,
			parse_error(rc));
		return -1;
	}
	if (tp.cmd_failed) {
		fprintf(stderr, "%s: '%s' failed\n", where, line);
		return -1;
	}
	return 0;
}

int
tp_run_string(struct cmdline *cl, const char *cmd, const char *origin)
{
	return run_line(cl, cmd, origin);
}

int
tp_run_file(struct cmdline *cl, const char *path)
{
	char where[4096 + 16];
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	char *line = NULL;
	unsigned int n = 0;
	ssize_t len;
	int rc = 0;

	if (f == NULL) {
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && !tp.quit && (len = getline(&line, &cap, f)) >= 0) {
		n++;
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		snprintf(where, sizeof(where), "%s:%u", path, n);
		rc = run_line(cl, line, where);
		if (rc == 0 && tp.interrupted) {
			fprintf(stderr, "%s: interrupted\n", where);
			rc = -1;
		}
	}
	free(line);
	fclose(f);
	return rc;
}
