/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for lib/config (built by run-fuzz.sh with clang
 * -fsanitize=fuzzer,address,undefined, outside the meson build, linked to
 * DPDK's rte_cfgfile).
 *
 * Input: one mode byte, then text.  Mode (byte % 4):
 *  0  the text is an INI file, loaded with rxd_conf_load_file();
 *  1  NUL-separated section, key and value for rxd_conf_set();
 *  2  NUL-separated RXD_ADDR, RXD_MTU, RXD_LOG and the contents of the file
 *     RXD_CONFIG names, for rxd_conf_apply_env() (a variable whose piece is
 *     missing is unset);
 *  3  NUL-separated options for rxd_conf_apply_args(); every --config
 *     value is replaced by the name of a file holding the last piece.
 * Files are memfds, named /proc/self/fd/N, so nothing touches the disk and
 * no input can name a file of its own.
 *
 * Checked on every input, beyond the sanitizers (LeakSanitizer included):
 *  - a failure comes with a one-line message starting the way the API
 *    documents for that source (file:line:, [section], VARIABLE:, --option)
 *    and leaves the configuration unchanged;
 *  - a success gives a configuration that rxd_conf_validate() judges with
 *    a message when it refuses it, and that rxd_conf_write() writes as a
 *    file which loads back over the defaults and writes the same text.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_log.h>

#include "rxd_config.h"

#define MAX_PIECES 16
#define INPUT_MAX 8192

enum mode { MODE_FILE, MODE_SET, MODE_ENV, MODE_ARGS, MODE_COUNT };

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                      \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "fuzz_conf: %s:%d: %s\n",        \
				__FILE__, __LINE__, #cond);              \
			abort();                                         \
		}                                                        \
	} while (0)

/* A memfd and the name that opens it. */
struct memfile {
	int fd;
	char path[32];
};

static struct memfile input_file, back_file;

static const char *const env_names[] = { "RXD_ADDR", "RXD_MTU", "RXD_LOG" };

/* Outcomes, printed at exit to show how deep the inputs went. */
static unsigned long accepted[MODE_COUNT], refused[MODE_COUNT];
static unsigned long valid;

static void __attribute__((destructor))
print_outcomes(void)
{
	static const char *const names[MODE_COUNT] = {
		"file", "set", "env", "args",
	};
	unsigned int m;

	for (m = 0; m < MODE_COUNT; m++)
		fprintf(stderr, "fuzz_conf: %-4s %10lu accepted %10lu refused\n",
			names[m], accepted[m], refused[m]);
	fprintf(stderr, "fuzz_conf: %lu accepted configurations valid\n",
		valid);
}

static void
memfile_open(struct memfile *f, const char *name)
{
	f->fd = memfd_create(name, 0);
	CHECK(f->fd >= 0);
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

static void
memfile_set(const struct memfile *f, const void *data, size_t len)
{
	CHECK(ftruncate(f->fd, 0) == 0);
	CHECK(pwrite(f->fd, data, len, 0) == (ssize_t)len);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* rte_cfgfile logs every file it refuses; keep the output short. */
	rte_log_set_global_level(RTE_LOG_EMERG);
	memfile_open(&input_file, "fuzz-conf-input");
	memfile_open(&back_file, "fuzz-conf-back");
	return 0;
}

/* Text split at NUL bytes (the last piece ends at the input's end). */
struct pieces {
	char *buf;
	char *p[MAX_PIECES];
	unsigned int n;
};

static void
pieces_split(struct pieces *s, const uint8_t *data, size_t len)
{
	size_t i, start = 0;

	s->buf = malloc(len + 1);
	CHECK(s->buf != NULL);
	memcpy(s->buf, data, len);
	s->buf[len] = '\0';
	s->n = 0;
	for (i = 0; i <= len && s->n < MAX_PIECES; i++) {
		if (s->buf[i] != '\0')
			continue;
		s->p[s->n++] = s->buf + start;
		start = i + 1;
	}
}

/* The text rxd_conf_write() makes of c, as "from no file". */
static char *
written(const struct rxd_conf *c)
{
	struct rxd_conf copy = *c;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK(f != NULL);
	copy.source[0] = '\0';
	CHECK(rxd_conf_write(&copy, f) == 0);
	CHECK(fclose(f) == 0);
	return text;
}

/* An accepted configuration: validated or refused with a message, and
 * written as a file that reads back to the same text. */
static void
check_accepted(const struct rxd_conf *c)
{
	char err[RXD_CONF_ERRLEN] = "";
	struct rxd_conf again;
	char *text, *text2;

	if (rxd_conf_validate(c, err, sizeof(err)) == 0)
		valid++;
	else
		CHECK(err[0] == '[' && strchr(err, '\n') == NULL);
	text = written(c);
	memfile_set(&back_file, text, strlen(text));
	rxd_conf_defaults(&again);
	err[0] = '\0';
	if (rxd_conf_load_file(&again, back_file.path, err, sizeof(err)) != 0)
		fprintf(stderr, "fuzz_conf: written back:\n%s\nrefused: %s\n",
			text, err);
	CHECK(err[0] == '\0');
	CHECK(strcmp(again.source, back_file.path) == 0);
	text2 = written(&again);
	if (strcmp(text, text2) != 0)
		fprintf(stderr, "fuzz_conf: written:\n%s\nread back and "
			"written:\n%s\n", text, text2);
	CHECK(strcmp(text, text2) == 0);
	free(text);
	free(text2);
}

/* "path:LINE: " with a line of the file, or "path: ". */
static bool
names_file_line(const char *err, size_t file_len)
{
	size_t n = strlen(input_file.path);
	char *end;
	unsigned long line;

	if (strncmp(err, input_file.path, n) != 0 || err[n] != ':')
		return false;
	if (err[n + 1] == ' ')
		return true;
	if (!isdigit((unsigned char)err[n + 1]))
		return false;
	line = strtoul(err + n + 1, &end, 10);
	return line >= 1 && line <= file_len + 1 && strncmp(end, ": ", 2) == 0;
}

/* How a message of a failed call must start, by mode. */
static bool
well_formed(enum mode mode, const char *err, size_t file_len)
{
	unsigned int i;

	if (err[0] == '\0' || strchr(err, '\n') != NULL)
		return false;
	if (names_file_line(err, file_len))
		return mode != MODE_SET;
	switch (mode) {
	case MODE_SET:
		return err[0] == '[';
	case MODE_ENV:
		for (i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++)
			if (strncmp(err, env_names[i], strlen(env_names[i]))
			    == 0 && err[strlen(env_names[i])] == ':')
				return true;
		return false;
	case MODE_ARGS:
		return strncmp(err, "--", 2) == 0 ||
			strncmp(err, "unknown option '", 16) == 0 ||
			strncmp(err, "unexpected argument '", 21) == 0;
	default:
		return false;
	}
}

static int
run_set(struct rxd_conf *c, const struct pieces *s, char *err, size_t len)
{
	return rxd_conf_set(c, s->p[0], s->n > 1 ? s->p[1] : "",
			    s->n > 2 ? s->p[2] : "", err, len);
}

/* Returns the length of the file RXD_CONFIG names (0 if unset). */
static size_t
env_prepare(const struct pieces *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++) {
		if (i < s->n)
			CHECK(setenv(env_names[i], s->p[i], 1) == 0);
		else
			CHECK(unsetenv(env_names[i]) == 0);
	}
	if (s->n <= i) {
		CHECK(unsetenv("RXD_CONFIG") == 0);
		return 0;
	}
	memfile_set(&input_file, s->p[i], strlen(s->p[i]));
	CHECK(setenv("RXD_CONFIG", input_file.path, 1) == 0);
	return strlen(s->p[i]);
}

/* argv from the pieces, --config values pointing at the input file. */
static size_t
args_prepare(const struct pieces *s, char **argv, char *config_eq,
	     size_t config_eq_len)
{
	const char *last = s->p[s->n - 1];
	unsigned int i;

	memfile_set(&input_file, last, strlen(last));
	snprintf(config_eq, config_eq_len, "--config=%s", input_file.path);
	argv[0] = "fuzz_conf";
	for (i = 0; i < s->n; i++) {
		argv[i + 1] = s->p[i];
		if (strncmp(s->p[i], "--config=", 9) == 0)
			argv[i + 1] = config_eq;
		else if (i > 0 && strcmp(s->p[i - 1], "--config") == 0)
			argv[i + 1] = input_file.path;
	}
	argv[s->n + 1] = NULL;
	return strlen(last);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[RXD_CONF_ERRLEN] = "", config_eq[64];
	char *argv[MAX_PIECES + 2];
	struct rxd_conf c, before;
	struct pieces s;
	size_t file_len = 0;
	enum mode mode;
	int rc;

	if (size < 1 || size > INPUT_MAX)
		return 0;
	mode = (enum mode)(data[0] % MODE_COUNT);
	data++;
	size--;
	pieces_split(&s, data, size);
	rxd_conf_defaults(&c);
	memcpy(&before, &c, sizeof(c));
	switch (mode) {
	case MODE_FILE:
		memfile_set(&input_file, data, size);
		file_len = size;
		rc = rxd_conf_load_file(&c, input_file.path, err, sizeof(err));
		if (rc == 0)
			CHECK(strcmp(c.source, input_file.path) == 0);
		break;
	case MODE_SET:
		rc = run_set(&c, &s, err, sizeof(err));
		break;
	case MODE_ENV:
		file_len = env_prepare(&s);
		rc = rxd_conf_apply_env(&c, err, sizeof(err));
		break;
	default:
		file_len = args_prepare(&s, argv, config_eq, sizeof(config_eq));
		rc = rxd_conf_apply_args(&c, (int)s.n + 1, argv, err,
					 sizeof(err));
		break;
	}
	free(s.buf);
	CHECK(rc == 0 || rc == -1);
	if (rc != 0) {
		if (!well_formed(mode, err, file_len))
			fprintf(stderr, "fuzz_conf: message '%s'\n", err);
		CHECK(well_formed(mode, err, file_len));
		CHECK(memcmp(&c, &before, sizeof(c)) == 0);
		refused[mode]++;
		return 0;
	}
	CHECK(err[0] == '\0');
	accepted[mode]++;
	check_accepted(&c);
	return 0;
}
