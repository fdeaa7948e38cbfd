/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses: IP socket addresses to GIDs and back, which rxd port and GID
 * index own a local address (the port's GID table, rxd_query_gid), and
 * address resolution of a destination through rxd's ARP/ND (rxd_resolve),
 * trying each port unless the id is bound to one.  rxd has no loopback
 * interface: a loopback address (127.0.0.0/8, ::1) to bind stands for the
 * host itself, that is the first address of its family on rxd's first
 * port (libfabric's verbs provider binds "localhost" to find a device).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "rxd/rxd.h"
#include "rxd_cm_priv.h"
#include "rxd_wire.h"

#define EPHEMERAL_LO 32768
#define EPHEMERAL_N 28232

int
rxd_cm_addr_gid(const struct sockaddr *sa, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (sa->sa_family == AF_INET) {
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12,
		       &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return EAFNOSUPPORT;
}

void
rxd_cm_addr_from_gid(const uint8_t gid[16], uint16_t port,
		     struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (rxd_gid_is_v4(gid)) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		memcpy(&s->sin_addr, gid + 12, 4);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		memcpy(&s->sin6_addr, gid, 16);
	}
}

uint16_t
rxd_cm_addr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

uint16_t
rxd_cm_addr_ephemeral(void)
{
	uint16_t p;
	struct rxd_cm_id *c;

again:
	p = (uint16_t)(EPHEMERAL_LO + (uint32_t)random() % EPHEMERAL_N);
	for (c = rxd_cm.ids; c != NULL; c = c->next)
		if (c->sport == p)
			goto again;
	return p;
}

/* The GID index (1..) of @p gid on rxd port @p port, or -1. */
static int
gid_index(unsigned int port, const uint8_t gid[16])
{
	uint8_t g[16];
	unsigned int i;

	for (i = 1; rxd_query_gid(port, i, g) == 0; i++)
		if (memcmp(g, gid, 16) == 0)
			return (int)i;
	return -1;
}

/* True for 127.0.0.0/8 and ::1. */
static bool
is_loopback(const struct sockaddr *sa)
{
	static const uint8_t v6_lo[16] = { [15] = 1 };

	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr)
			>> 24) == 127;
	return sa->sa_family == AF_INET6 &&
		memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, v6_lo,
		       16) == 0;
}

int
rxd_cm_addr_loopback(const struct sockaddr *sa, struct sockaddr_storage *host)
{
	uint8_t gid[16];
	unsigned int i;

	if (!is_loopback(sa) || rxd_cm.n_dev == 0)
		return ENOENT;
	for (i = 1; rxd_query_gid(rxd_cm.dev[0].port, i, gid) == 0; i++)
		if (rxd_gid_is_v4(gid) == (sa->sa_family == AF_INET)) {
			rxd_cm_addr_from_gid(gid, rxd_cm_addr_port(sa), host);
			return 0;
		}
	return EADDRNOTAVAIL;
}

int
rxd_cm_addr_local(const struct sockaddr *sa, struct rxd_cm_dev **dev,
		  uint8_t *sgid_index, uint8_t gid[16])
{
	unsigned int i;
	int idx;

	if (rxd_cm_addr_gid(sa, gid) != 0)
		return EAFNOSUPPORT;
	for (i = 0; i < rxd_cm.n_dev; i++) {
		idx = gid_index(rxd_cm.dev[i].port, gid);
		if (idx > 0) {
			*dev = &rxd_cm.dev[i];
			*sgid_index = (uint8_t)idx;
			return 0;
		}
	}
	return EADDRNOTAVAIL;
}

/* The first GID of the destination's family on a port: its source. */
static int
source_gid(struct rxd_cm_id *c, bool v4)
{
	unsigned int i;

	for (i = 1; rxd_query_gid(c->dev->port, i, c->sgid) == 0; i++)
		if (rxd_gid_is_v4(c->sgid) == v4) {
			c->sgid_index = (uint8_t)i;
			return 0;
		}
	return EADDRNOTAVAIL;
}

static int
resolve_on(struct rxd_cm_id *c, struct rxd_cm_dev *dev, int timeout_ms)
{
	uint8_t mac[6];
	bool bound = c->dev != NULL;

	c->dev = dev;
	if (!bound && source_gid(c, rxd_gid_is_v4(c->dgid)) != 0) {
		c->dev = NULL;
		return EADDRNOTAVAIL;
	}
	if (rxd_resolve(dev->port, c->dgid, mac,
			(unsigned int)(timeout_ms > 0 ? timeout_ms : 2000))) {
		if (!bound)
			c->dev = NULL;
		return errno ? errno : EHOSTUNREACH;
	}
	return 0;
}

int
rxd_cm_addr_resolve(struct rxd_cm_id *c, const struct sockaddr *dst,
		    int timeout_ms)
{
	unsigned int i;
	int rc = EHOSTUNREACH;

	rc = rxd_cm_addr_gid(dst, c->dgid);
	if (rc != 0)
		return rc;
	if (c->dev != NULL)
		return resolve_on(c, c->dev, timeout_ms);
	for (i = 0; i < rxd_cm.n_dev; i++) {
		rc = resolve_on(c, &rxd_cm.dev[i], timeout_ms);
		if (rc == 0)
			return 0;
	}
	return rc;
}
