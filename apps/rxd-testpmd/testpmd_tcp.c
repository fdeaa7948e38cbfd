/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TCP side of "listen" and "connect": accept one peer (within 60 s),
 * connect to one (retrying for 30 s, as the peer may not listen yet), and
 * the line-at-a-time exchange over the socket.  SIGINT/SIGTERM end waits.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testpmd.h"

#define LISTEN_TIMEOUT_S 60
#define CONNECT_TIMEOUT_S 30
#define LINE_TIMEOUT_MS 10000

int
tp_tcp_send_line(int fd, const char *line)
{
	size_t len = strlen(line);

	if (write(fd, line, len) == (ssize_t)len)
		return 0;
	fprintf(stderr, "cannot send to the peer: %s\n", strerror(errno));
	return -1;
}

/* Read one '\n'-terminated line (without it) within LINE_TIMEOUT_MS. */
int
tp_tcp_recv_line(int fd, char *buf, size_t size)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t n = 0;

	while (n + 1 < size) {
		if (poll(&pfd, 1, LINE_TIMEOUT_MS) != 1 ||
		    read(fd, buf + n, 1) != 1)
			break;
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return 0;
		}
		n++;
	}
	fprintf(stderr, "no answer from the peer\n");
	return -1;
}

int
tp_tcp_accept(uint16_t port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_port = htons(port),
				  .sin6_addr = IN6ADDR_ANY_INIT };
	struct pollfd pfd = { .events = POLLIN };
	int one = 1, fd = -1, s = socket(AF_INET6, SOCK_STREAM, 0), t;

	if (s < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1)) {
		fprintf(stderr, "listen: TCP port %u: %s\n", port,
			strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	printf("listening on TCP port %u\n", port);
	pfd.fd = s;
	for (t = 0; t < LISTEN_TIMEOUT_S * 10 && fd < 0 && !tp.interrupted;
	     t++)
		if (poll(&pfd, 1, 100) == 1)
			fd = accept(s, NULL, NULL);
	close(s);
	if (fd < 0 && tp.interrupted)
		fprintf(stderr, "listen: interrupted\n");
	else if (fd < 0)
		fprintf(stderr, "listen: no peer on TCP port %u within %d s\n",
			port, LISTEN_TIMEOUT_S);
	return fd;
}

/* Try every address of host once; a socket or -1. */
static int
try_connect(const char *host, uint16_t port, int *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char service[8];
	int fd = -1, rc;

	snprintf(service, sizeof(service), "%u", port);
	rc = getaddrinfo(host, service, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "connect: %s: %s\n", host, gai_strerror(rc));
		*err = -1;
		return -1;
	}
	for (ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
			*err = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

int
tp_tcp_connect(const char *host, uint16_t port)
{
	int fd = -1, err = 0, t;

	for (t = 0; t < CONNECT_TIMEOUT_S * 10 && fd < 0 && err >= 0; t++) {
		fd = try_connect(host, port, &err);
		if (fd < 0 && (err < 0 || !tp_sleep_ms(100)))
			break;
	}
	if (fd < 0 && err >= 0)
		fprintf(stderr, "connect: %s port %u: %s\n", host, port,
			strerror(err));
	return fd;
}
