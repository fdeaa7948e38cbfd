/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC example's TCP side channel: the server listens and the client
 * connects; both swap connection data and synchronise their steps over
 * it.  While a side waits for the other, rxd must keep serving its QP (the
 * peer may be reading or writing its buffer), so waits call rxd_poll()
 * when no engine lcore does that.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rxd/rxd.h"

#include "rc_example.h"

#define CONNECT_TRIES 100        /* the client retries every 100 ms */
#define WAIT_MS 30000            /* longest wait for the peer's data */

static int
listen_and_accept(const struct addrinfo *ai)
{
	int one = 1, s, c;

	s = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
	if (s < 0)
		return -1;
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s, ai->ai_addr, ai->ai_addrlen) < 0 || listen(s, 1) < 0) {
		close(s);
		return -1;
	}
	c = accept(s, NULL, NULL);
	close(s);
	return c;
}

static int
connect_retrying(const struct addrinfo *ai)
{
	int s, i;

	for (i = 0; i < CONNECT_TRIES; i++) {
		s = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (s < 0)
			return -1;
		if (connect(s, ai->ai_addr, ai->ai_addrlen) == 0)
			return s;
		close(s);
		if (errno != ECONNREFUSED)
			return -1;
		usleep(100000);
	}
	return -1;
}

int
rc_tcp_connect(const struct rc_config *cfg)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = cfg->server_name ? 0 : AI_PASSIVE };
	struct addrinfo *list, *ai;
	char port[8];
	int rc, s = -1;

	snprintf(port, sizeof(port), "%u", cfg->tcp_port);
	rc = getaddrinfo(cfg->server_name, port, &hints, &list);
	if (rc != 0) {
		fprintf(stderr, "rc-example: %s:%s: %s\n",
			cfg->server_name ? cfg->server_name : "*", port,
			gai_strerror(rc));
		return -1;
	}
	for (ai = list; ai != NULL && s < 0; ai = ai->ai_next)
		s = cfg->server_name ? connect_retrying(ai) :
			listen_and_accept(ai);
	if (s < 0)
		fprintf(stderr, "rc-example: cannot %s TCP port %s%s%s: %s\n",
			cfg->server_name ? "connect to" : "listen on", port,
			cfg->server_name ? " of " : "",
			cfg->server_name ? cfg->server_name : "",
			strerror(errno));
	freeaddrinfo(list);
	return s;
}

static long
elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
		(t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Wait until fd is readable, driving rxd meanwhile if nothing else does. */
static int
wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec t0;
	bool inline_progress = rxd_inline_progress();
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = poll(&p, 1, inline_progress ? 0 : 100);
		if (n != 0)
			return n < 0 ? -1 : 0;
		if (inline_progress)
			rxd_poll();
	} while (elapsed_ms(&t0) < WAIT_MS);
	errno = ETIMEDOUT;
	return -1;
}

static int
read_all(int fd, void *buf, unsigned int len)
{
	unsigned int got = 0;
	ssize_t n;

	while (got < len) {
		if (wait_readable(fd) < 0)
			return -1;
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0) {
			if (n == 0)
				errno = ECONNRESET;
			return -1;
		}
		got += (unsigned int)n;
	}
	return 0;
}

static int
write_all(int fd, const void *buf, unsigned int len)
{
	unsigned int put = 0;
	ssize_t n;

	while (put < len) {
		n = write(fd, (const char *)buf + put, len - put);
		if (n < 0)
			return -1;
		put += (unsigned int)n;
	}
	return 0;
}

int
rc_tcp_exchange(int fd, const void *out, void *in, unsigned int len)
{
	if (write_all(fd, out, len) < 0 || read_all(fd, in, len) < 0) {
		fprintf(stderr, "rc-example: TCP exchange with the peer "
			"failed: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int
rc_tcp_sync(int fd, char tag)
{
	char peer;

	if (rc_tcp_exchange(fd, &tag, &peer, 1) < 0)
		return -1;
	if (peer != tag) {
		fprintf(stderr, "rc-example: out of step: expected '%c' from "
			"the peer, got '%c'\n", tag, peer);
		return -1;
	}
	return 0;
}

/* The server waits for the client to close (it leaves only after its
 * stack has stopped), so that the memif server outlives the client. */
void
rc_tcp_wait_close(int fd)
{
	char c;

	while (wait_readable(fd) == 0 && read(fd, &c, 1) > 0)
		;
}
