/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The out-of-band exchange (see perf_xchg.h): sockets, and perftest's
 * messages.  The formats are perftest 6.06's, so that Debian's perftest
 * and rxd-perf can serve each other.  A side waiting for the peer keeps
 * running engines that have no lcore (EAL -l 0): a passive server's QPs
 * must still answer while it waits for the client's report.
 */
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rte_cycles.h>
#include <rte_pause.h>

#include "perf_xchg.h"
#include "rxd/rxd.h"

#define PROTO_VERSION "6.06"     /* the perftest protocol spoken */
#define VERSION_LEN 16
#define VERSION_MIN 5.70         /* older perftest exchange differently */
#define KEY_MSG_LEN 108          /* the key message with its NUL */
#define KEY_FIELDS 23            /* LID OUT QPN PSN RKEY VA GIDx16 SRQN */
#define MTU_MSG_LEN 2            /* "%d" of enum ibv_mtu, one digit + NUL */
#define CACHE_LINE 64
#define WAIT_CHECK_US 200        /* socket checks while driving engines */
#define CONNECT_RETRY_MS 100

/* A socket bound to every address: IPv6 with IPv4 mapped, else IPv4. */
static int
bind_any(uint16_t port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int fd = socket(AF_INET6, SOCK_STREAM, 0), on = 1;
	bool v6 = fd >= 0;

	if (!v6)
		fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
	    (v6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6)) :
		  bind(fd, (struct sockaddr *)&a4, sizeof(a4))) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
perf_xchg_listen(uint16_t port)
{
	int fd = bind_any(port);

	if (fd < 0 || listen(fd, 1) != 0) {
		fprintf(stderr, "rxd-perf: cannot listen on TCP port %u: %s\n",
			port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int
perf_xchg_accept(int lfd)
{
	int fd = accept(lfd, NULL, NULL);

	if (fd < 0)
		fprintf(stderr, "rxd-perf: accept: %s\n", strerror(errno));
	return fd;
}

/* One attempt over every address of host; -1 with errno set. */
static int
try_connect(const struct addrinfo *list)
{
	const struct addrinfo *ai;
	int fd, err = ECONNREFUSED;

	for (ai = list; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			return fd;
		err = errno;
		close(fd);
	}
	errno = err;
	return -1;
}

int
perf_xchg_connect(const char *host, uint16_t port, unsigned int wait_ms)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM }, *list;
	char service[8];
	unsigned int waited = 0;
	int rc, fd;

	snprintf(service, sizeof(service), "%u", port);
	rc = getaddrinfo(host, service, &hints, &list);
	if (rc != 0) {
		fprintf(stderr, "rxd-perf: %s: %s\n", host, gai_strerror(rc));
		return -1;
	}
	while ((fd = try_connect(list)) < 0 && errno == ECONNREFUSED &&
	       waited < wait_ms) {
		usleep(CONNECT_RETRY_MS * 1000);
		waited += CONNECT_RETRY_MS;
	}
	if (fd < 0)
		fprintf(stderr, "rxd-perf: cannot connect to %s:%u: %s\n",
			host, port, strerror(errno));
	freeaddrinfo(list);
	return fd;
}

/*
 * Block until fd has data (or EOF), driving inline engines meanwhile.
 * The socket is looked at every WAIT_CHECK_US: a poll(2) per engine pass
 * took a third of the receiver's core during write_bw.
 */
static void
wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t every = rte_get_tsc_hz() / 1000000 * WAIT_CHECK_US;
	uint64_t next = 0, now;

	if (!rxd_running() || !rxd_inline_progress())
		return;
	for (;;) {
		now = rte_rdtsc();
		if (now >= next) {
			if (poll(&p, 1, 0) != 0)
				return;
			next = now + every;
		}
		if (rxd_poll() == 0)
			rte_pause();
	}
}

/* Move all len bytes to (out) or from the peer; -1 if it went away. */
static int
transfer(int fd, void *p, size_t len, bool out)
{
	char *c = p;
	ssize_t n;

	while (len > 0) {
		if (!out)
			wait_readable(fd);
		n = out ? send(fd, c, len, MSG_NOSIGNAL) : read(fd, c, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One symmetric exchange of len bytes: the client writes first. */
static int
xchg(int fd, bool client, const void *out, void *in, size_t len)
{
	void *o = (void *)(uintptr_t)out;
	int rc = client ? transfer(fd, o, len, true) ||
			  transfer(fd, in, len, false)
			: transfer(fd, in, len, false) ||
			  transfer(fd, o, len, true);

	if (rc != 0)
		fprintf(stderr, "rxd-perf: the exchange with the peer failed "
			"(%s)\n", errno != 0 ? strerror(errno) :
			"connection closed");
	return rc != 0 ? -1 : 0;
}

static int
check_version(const char *v)
{
	char copy[VERSION_LEN + 1];

	memcpy(copy, v, VERSION_LEN);
	copy[VERSION_LEN] = '\0';
	if (strtod(copy, NULL) >= VERSION_MIN)
		return 0;
	fprintf(stderr, "rxd-perf: the peer speaks perftest protocol '%s'; "
		"rxd-perf needs %.2f or later\n", copy, VERSION_MIN);
	return -1;
}

int
perf_xchg_preamble(int fd, bool client, unsigned int *mtu)
{
	char mine[VERSION_LEN] = PROTO_VERSION, theirs[VERSION_LEN];
	uint32_t page = htobe32((uint32_t)sysconf(_SC_PAGESIZE));
	uint32_t line = htobe32(CACHE_LINE), rem_page, rem_line;
	char my_mtu[MTU_MSG_LEN], rem_mtu[MTU_MSG_LEN + 1] = "";
	long rem;

	if (xchg(fd, client, mine, theirs, sizeof(mine)) != 0 ||
	    check_version(theirs) != 0 ||
	    xchg(fd, client, &page, &rem_page, sizeof(page)) != 0 ||
	    xchg(fd, client, &line, &rem_line, sizeof(line)) != 0)
		return -1;
	my_mtu[0] = (char)('0' + *mtu);
	my_mtu[1] = '\0';
	if (xchg(fd, client, my_mtu, rem_mtu, MTU_MSG_LEN) != 0)
		return -1;
	rem = strtol(rem_mtu, NULL, 10);
	if (rem >= IBV_MTU_256 && rem < (long)*mtu)
		*mtu = (unsigned int)rem;
	return 0;
}

static void
format_dest(const struct perf_dest *d, char *msg)
{
	int n;
	unsigned int i;

	memset(msg, 0, KEY_MSG_LEN);
	n = snprintf(msg, KEY_MSG_LEN, "%04x:%04x:%06x:%06x:%08x:%016llx:",
		     d->lid, d->out_reads, d->qpn, d->psn, d->rkey,
		     (unsigned long long)d->vaddr);
	for (i = 0; i < 16; i++)
		n += snprintf(msg + n, (size_t)(KEY_MSG_LEN - n), "%02x:",
			      d->gid[i]);
	snprintf(msg + n, (size_t)(KEY_MSG_LEN - n), "%08x:", d->srqn);
}

/* Split msg on ':' into KEY_FIELDS hexadecimal numbers. */
static int
parse_dest(const char *msg, struct perf_dest *d)
{
	unsigned long long v[KEY_FIELDS];
	const char *p = msg;
	char *end;
	unsigned int i;

	for (i = 0; i < KEY_FIELDS; i++) {
		v[i] = strtoull(p, &end, 16);
		if (end == p || *end != ':')
			break;
		p = end + 1;
	}
	if (i < KEY_FIELDS) {
		fprintf(stderr, "rxd-perf: cannot parse the peer's QP message "
			"<%.*s>\n", KEY_MSG_LEN, msg);
		return -1;
	}
	d->lid = (uint32_t)v[0];
	d->out_reads = (uint32_t)v[1];
	d->qpn = (uint32_t)v[2];
	d->psn = (uint32_t)v[3];
	d->rkey = (uint32_t)v[4];
	d->vaddr = v[5];
	for (i = 0; i < 16; i++)
		d->gid[i] = (uint8_t)v[6 + i];
	d->srqn = (uint32_t)v[22];
	return 0;
}

int
perf_xchg_dest(int fd, bool client, const struct perf_dest *mine,
	       struct perf_dest *theirs)
{
	char out[KEY_MSG_LEN], in[KEY_MSG_LEN + 1];

	format_dest(mine, out);
	if (xchg(fd, client, out, in, KEY_MSG_LEN) != 0)
		return -1;
	in[KEY_MSG_LEN] = '\0';
	return parse_dest(in, theirs);
}

static uint64_t
double_be(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return htobe64(u);
}

static double
be_double(uint64_t be)
{
	uint64_t u = be64toh(be);
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

int
perf_xchg_report(int fd, bool client, const struct perf_bw_result *mine,
		 struct perf_bw_result *theirs)
{
	uint64_t out[5] = { htobe64(mine->size), htobe64(mine->iters),
		double_be(mine->peak), double_be(mine->avg),
		double_be(mine->msg_rate) }, in[5];
	unsigned int i;

	for (i = 0; i < 5; i++)
		if (xchg(fd, client, &out[i], &in[i], sizeof(in[i])) != 0)
			return -1;
	theirs->size = be64toh(in[0]);
	theirs->iters = be64toh(in[1]);
	theirs->peak = be_double(in[2]);
	theirs->avg = be_double(in[3]);
	theirs->msg_rate = be_double(in[4]);
	return 0;
}

void
perf_xchg_done(int fd)
{
	char done[] = "done";

	(void)transfer(fd, done, sizeof(done), true);
}

void
perf_xchg_wait_close(int fd, unsigned int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char junk[64];

	while (poll(&p, 1, (int)ms) > 0 && read(fd, junk, sizeof(junk)) > 0)
		;
}
