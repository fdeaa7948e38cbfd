/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An ordinary TCP server (nothing RDMA in it) for the librspreload test:
 * accept one connection, read it to end of stream, print the byte count
 * and CRC-32 (IEEE, as zlib's) of what arrived and send that back as
 * 8 hex digits.  It waits
 * with poll(2) on the socket together with a pipe, so under librspreload
 * rpoll sees an rsocket and an ordinary descriptor at once.  "accepted"
 * is printed once a connection is accepted.
 * With --fork N it is the classic forking server: it accepts N
 * connections one after another, forks a child for each that serves it
 * (the parent closes its copy and accepts the next), and exits 0 once
 * every child has exited 0.  A child reads before it polls: under
 * librspreload's fork support (RDMAV_FORK_SAFE=1) its first read is what
 * moves the accepted kernel connection to an rsocket, and the peer sends
 * nothing before that move, so a poll first would wait for ever.
 * With --select it waits with select(2) instead: under librspreload
 * (up to v62) select maps the rsockets' results back to descriptors by
 * walking them from 0, which breaks when an rsocket's number is below the
 * descriptor the application holds (iperf3's server received nothing).
 * Usage: tcp-sink ADDR PORT [--fork N | --select]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* CRC-32 (IEEE 802.3, reflected), bit by bit per byte via a table. */
static uint32_t crc_table[256];

static void
crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t
crc_update(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	while (n-- > 0)
		crc = crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

static int use_select;

/* Wait with select(2): 0 when fd is readable, -1 after saying why. */
static int
select_readable(int fd, int other)
{
	fd_set rd;
	struct timeval tv = { 60, 0 };
	int n;

	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	FD_SET(other, &rd);
	n = select((fd > other ? fd : other) + 1, &rd, NULL, NULL, &tv);
	if (n <= 0) {
		perror("select");
		return -1;
	}
	if (FD_ISSET(other, &rd)) {
		fprintf(stderr, "the idle pipe became readable\n");
		return -1;
	}
	if (!FD_ISSET(fd, &rd)) {
		fprintf(stderr, "select reported %d ready, none of ours\n", n);
		return -1;
	}
	return 0;
}

static int
wait_readable(int fd, int other)
{
	struct pollfd p[2] = { { fd, POLLIN, 0 }, { other, POLLIN, 0 } };

	if (use_select)
		return select_readable(fd, other);
	for (;;) {
		if (poll(p, 2, 60000) <= 0) {
			perror("poll");
			return -1;
		}
		if (p[1].revents != 0) {
			fprintf(stderr, "the idle pipe became readable\n");
			return -1;
		}
		if (p[0].revents != 0)
			return 0;
	}
}

static int
listen_on(const char *addr, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 4)) {
		perror("listen");
		return -1;
	}
	return fd;
}

/* Serve connection c; poll_first false reads before the first poll. */
static int
sink(int c, int idle, int poll_first)
{
	static unsigned char buf[1 << 16];
	uint32_t crc = 0;
	char hex[9];
	long long total = 0;
	ssize_t n;

	for (;; poll_first = 1) {
		if (poll_first && wait_readable(c, idle) != 0)
			return 1;
		n = read(c, buf, sizeof(buf));
		if (n < 0) {
			perror("read");
			return 1;
		}
		if (n == 0)
			break;
		crc = crc_update(crc, buf, (size_t)n);
		total += n;
	}
	snprintf(hex, sizeof(hex), "%08x", crc);
	printf("received %lld bytes crc32 %s\n", total, hex);
	fflush(stdout);
	return write(c, hex, 8) == 8 ? 0 : 1;
}

/* Accept one connection on l; -1 after saying why. */
static int
accept_one(int l, int idle)
{
	int c;

	if (wait_readable(l, idle) != 0)
		return -1;
	c = accept(l, NULL, NULL);
	if (c < 0) {
		perror("accept");
		return -1;
	}
	printf("accepted\n");
	fflush(stdout);
	return c;
}

/*
 * A child's whole life: close sends everything queued (an rsocket's
 * rclose waits for it) and exit, not _exit, lets the child's own rxd stop.
 */
static int
serve_child(int l, int c, int idle)
{
	int rc;

	close(l);
	rc = sink(c, idle, 0);
	close(c);
	return rc;
}

/* The forking server: n connections, one child each; 0 when all served. */
static int
serve_forking(int l, int idle, int n)
{
	int i, c, status, failed = 0;
	pid_t pid;

	for (i = 0; i < n; i++) {
		c = accept_one(l, idle);
		if (c < 0)
			return 1;
		pid = fork();
		if (pid == 0)
			exit(serve_child(l, c, idle));
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		printf("child %ld serves connection %d\n", (long)pid, i + 1);
		fflush(stdout);
		close(c);
	}
	while ((pid = wait(&status)) > 0)
		failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	printf("%d children served, %d failed\n", n, failed);
	return failed != 0;
}

int
main(int argc, char **argv)
{
	int l, c, idle[2], rc, forks = 0;

	if (argc == 5 && strcmp(argv[3], "--fork") == 0)
		forks = atoi(argv[4]);
	use_select = argc == 4 && strcmp(argv[3], "--select") == 0;
	if (argc != 3 && forks <= 0 && !use_select) {
		fprintf(stderr,
			"usage: tcp-sink ADDR PORT [--fork N | --select]\n");
		return 2;
	}
	crc_init();
	if (pipe(idle) != 0 || (l = listen_on(argv[1], atoi(argv[2]))) < 0)
		return 1;
	if (forks > 0)
		return serve_forking(l, idle[0], forks);
	c = accept_one(l, idle[0]);
	if (c < 0)
		return 1;
	rc = sink(c, idle[0], 1);
	close(c);
	close(l);
	return rc;
}
