/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verbs: the sysfs helpers of libibverbs.  Owns ibv_get_sysfs_path and
 * ibv_read_sysfs_file.  ibv_devinfo reads board_id through them and
 * librdmacm reads the rdma_cm ABI version, so they behave as in Debian's
 * library: the sysfs root is "/sys" unless SYSFS_PATH names another one
 * (ignored in set-user-ID/set-group-ID programs, trailing '/' removed, at
 * most 256 characters, fixed by the first call), and a file is read in the
 * rdma-core way (trailing newline dropped, -1 when the buffer cannot hold
 * the text and its terminating NUL).
 *
 * rxd devices are not in sysfs: the ibdev_path of an rxdN device names a
 * directory that does not exist, so reads under it fail with ENOENT and
 * callers fall back as they do for an absent attribute.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* secure_getenv */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rxd_verbs_compat.h"

/* Longest SYSFS_PATH kept, as in rdma-core (IBV_SYSFS_PATH_MAX). */
#define RXD_SYSFS_PATH_MAX 256

static char sysfs_path_buf[RXD_SYSFS_PATH_MAX + 1];
static const char *sysfs_path = "/sys";
static pthread_once_t sysfs_once = PTHREAD_ONCE_INIT;

static void
sysfs_path_init(void)
{
	const char *env = secure_getenv("SYSFS_PATH");
	size_t len;

	if (env == NULL)
		return;
	len = strnlen(env, RXD_SYSFS_PATH_MAX);
	memcpy(sysfs_path_buf, env, len);
	while (len > 0 && sysfs_path_buf[len - 1] == '/')
		len--;
	sysfs_path_buf[len] = '\0';
	sysfs_path = sysfs_path_buf;
}

const char *
ibv_get_sysfs_path(void)
{
	pthread_once(&sysfs_once, sysfs_path_init);
	return sysfs_path;
}

/* Read up to @size bytes of @fd; stops early only at end of file. */
static ssize_t
read_full(int fd, char *buf, size_t size)
{
	size_t got = 0;

	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/*
 * Make the @len bytes in @buf a string: drop one trailing newline, else
 * terminate after the text.  @return the string length, -1 (EOVERFLOW)
 * when the text fills the whole buffer.  An empty read is 0 whatever
 * @size, as in rdma-core (which then leaves @buf as it was).
 */
static int
terminate(char *buf, size_t len, size_t size)
{
	if (len == 0) {
		if (size > 0)
			buf[0] = '\0';
		return 0;
	}
	if (buf[len - 1] == '\n') {
		buf[--len] = '\0';
		return (int)len;
	}
	if (len < size) {
		buf[len] = '\0';
		return (int)len;
	}
	errno = EOVERFLOW;
	return -1;
}

int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
		    size_t size)
{
	char path[PATH_MAX];
	ssize_t len;
	int fd, n;

	n = snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (size > INT_MAX)
		size = INT_MAX;
	len = read_full(fd, buf, size);
	if (len < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	close(fd);
	return terminate(buf, (size_t)len, size);
}
