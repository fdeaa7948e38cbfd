/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An ordinary TCP server (nothing RDMA in it) for the librspreload test:
 * accept one connection, read it to end of stream, print the byte count
 * and CRC-32 (IEEE, as zlib's) of what arrived and send that back as
 * 8 hex digits.  It waits
 * with poll(2) on the socket together with a pipe, so under librspreload
 * rpoll sees an rsocket and an ordinary descriptor at once.  "accepted"
 * is printed once a connection is accepted.
 * Usage: tcp-sink ADDR PORT
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

static int
wait_readable(int fd, int other)
{
	struct pollfd p[2] = { { fd, POLLIN, 0 }, { other, POLLIN, 0 } };

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
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 1)) {
		perror("listen");
		return -1;
	}
	return fd;
}

static int
sink(int c, int idle)
{
	static unsigned char buf[1 << 16];
	uint32_t crc = 0;
	char hex[9];
	long long total = 0;
	ssize_t n;

	for (;;) {
		if (wait_readable(c, idle) != 0)
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

int
main(int argc, char **argv)
{
	int l, c, idle[2], rc;

	if (argc != 3) {
		fprintf(stderr, "usage: tcp-sink ADDR PORT\n");
		return 2;
	}
	crc_init();
	if (pipe(idle) != 0 || (l = listen_on(argv[1], atoi(argv[2]))) < 0)
		return 1;
	if (wait_readable(l, idle[0]) != 0)
		return 1;
	c = accept(l, NULL, NULL);
	if (c < 0) {
		perror("accept");
		return 1;
	}
	printf("accepted\n");
	fflush(stdout);
	rc = sink(c, idle[0]);
	close(c);
	close(l);
	return rc;
}
