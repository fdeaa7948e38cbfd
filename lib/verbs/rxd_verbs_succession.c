/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lazily started processes that follow one another: the EAL file prefix
 * and the memif server socket of a lazy start.  A forking server (qperf)
 * starts rxd anew in one child per test, every child with the same EAL
 * command line, and a child may start while the one before it is still
 * stopping.  So, before EAL starts:
 *  - a command line that names no --file-prefix (and no --in-memory) gets
 *    one of its own, "rxd-PID", whose runtime directory is removed when
 *    the process stops rxd (two such processes never share EAL files);
 *  - a named prefix whose EAL configuration is still locked by another
 *    process is waited for, as long as the links are;
 *  - the socket file of a memif server (--vdev=net_memif...,role=server,
 *    socket=PATH,socket-abstract=no) is removed when nobody listens on it
 *    any more (a process that died left it), and waited for while its
 *    process still listens.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_eal.h>

#include "rxd_verbs.h"

#define WAIT_STEP_US 20000
#define PATH_LEN 4096

static bool prefix_ours;

/* The value of option opt in args, into buf; false when absent. */
static bool
option_value(const char *args, const char *opt, char *buf, size_t len)
{
	size_t n = strlen(opt);
	const char *p = args;

	while ((p = strstr(p, opt)) != NULL) {
		bool starts = p == args || p[-1] == ' ' || p[-1] == '\t';

		p += n;
		if (!starts || (*p != '=' && *p != ' ' && *p != '\t' && *p))
			continue;
		p += strspn(p, "= \t");
		snprintf(buf, len, "%.*s", (int)strcspn(p, " \t\n"), p);
		return true;
	}
	return false;
}

int
rxd_eal_args_own_prefix(char *args, size_t len)
{
	char v[256];
	size_t used = strlen(args);
	int n;

	if (option_value(args, "--file-prefix", v, sizeof(v)) ||
	    strstr(args, "--in-memory") != NULL)
		return 0;
	n = snprintf(args + used, len - used, " --file-prefix rxd-%ld",
		     (long)getpid());
	if (n < 0 || (size_t)n >= len - used) {
		args[used] = '\0';
		return E2BIG;
	}
	prefix_ours = true;
	return 0;
}

/* True while another process holds the EAL configuration of prefix. */
static bool
prefix_locked(const char *prefix)
{
	const char *base = getuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[PATH_LEN];
	bool locked;
	int fd;

	snprintf(path, sizeof(path), "%s/dpdk/%s/config",
		 base != NULL ? base : "/tmp", prefix);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	locked = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	close(fd);
	return locked;
}

/* 1 when a process listens on the socket file, 0 when none, -1 no socket. */
static int
socket_listened(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	if (stat(path, &st) != 0 || !S_ISSOCK(st.st_mode) ||
	    strlen(path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	close(fd);
	if (rc == 0)
		return 1;
	return errno == ECONNREFUSED ? 0 : -1;
}

/* The socket file of a memif server vdev in the token tok, into buf. */
static bool
memif_server_socket(const char *tok, char *buf, size_t len)
{
	const char *s;

	if (strstr(tok, "net_memif") == NULL ||
	    strstr(tok, "role=server") == NULL ||
	    strstr(tok, "socket-abstract=no") == NULL)
		return false;
	s = strstr(tok, ",socket=");
	if (s == NULL)
		return false;
	s += strlen(",socket=");
	snprintf(buf, len, "%.*s", (int)strcspn(s, ","), s);
	return buf[0] != '\0';
}

/* Wait (until end, in steps) for a listened socket to go; remove a stale one. */
static void
settle_socket(const char *path, long *left_us)
{
	int l;

	while ((l = socket_listened(path)) == 1 && *left_us > 0) {
		usleep(WAIT_STEP_US);
		*left_us -= WAIT_STEP_US;
	}
	if (l == 0)
		unlink(path);
}

void
rxd_eal_args_wait_predecessor(const char *args, long wait_ms)
{
	long left_us = wait_ms * 1000;
	char prefix[256], buf[PATH_LEN], copy[4096], *tok, *save = NULL;

	if (option_value(args, "--file-prefix", prefix, sizeof(prefix)))
		while (prefix_locked(prefix) && left_us > 0) {
			usleep(WAIT_STEP_US);
			left_us -= WAIT_STEP_US;
		}
	snprintf(copy, sizeof(copy), "%s", args);
	for (tok = strtok_r(copy, " \t\n", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t\n", &save))
		if (memif_server_socket(tok, buf, sizeof(buf)))
			settle_socket(buf, &left_us);
}

void
rxd_eal_prefix_remove(void)
{
	const char *dir = rte_eal_get_runtime_dir();
	char path[PATH_LEN];
	struct dirent *e;
	DIR *d;

	if (!prefix_ours || dir == NULL || (d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     e->d_name) < sizeof(path))
			unlink(path);
	closedir(d);
	rmdir(dir);
	prefix_ours = false;
}
