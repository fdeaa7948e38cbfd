/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multicast groups of a port: which groups it has joined, their Ethernet
 * addresses, and when each is reported.  A join is reported at once and
 * repeated once (RFC 3376 5.1, RFC 3810 6.1, robustness 2); a query asks
 * for a report of one group or all of a family within its maximum
 * response time, sent at a random moment in it (RFC 3376 5.2, RFC 3810
 * 6.2).  The frames themselves are rxd_igmp.c's and rxd_mld.c's.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_random.h>

#include "rxd_net_priv.h"

void
rxd_net_mcast_mac(const uint8_t gid[RXD_GID_LEN], struct rte_ether_addr *mac)
{
	uint8_t *m = mac->addr_bytes;

	if (rxd_gid_is_v4(gid)) {
		m[0] = 0x01;
		m[1] = 0x00;
		m[2] = 0x5e;
		m[3] = gid[13] & 0x7f;
		m[4] = gid[14];
		m[5] = gid[15];
		return;
	}
	m[0] = 0x33;
	m[1] = 0x33;
	memcpy(m + 2, gid + 12, 4);
}

/* The slot of a joined group, or -1. */
static int
slot_of(const struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN])
{
	unsigned int i;

	for (i = 0; i < RXD_NET_GROUPS; i++)
		if (np->groups[i].used &&
		    memcmp(np->groups[i].gid, gid, RXD_GID_LEN) == 0)
			return (int)i;
	return -1;
}

bool
rxd_net_is_member(const struct rxd_net_port *np,
		  const uint8_t gid[RXD_GID_LEN])
{
	return slot_of(np, gid) >= 0;
}

static void
report(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN],
       enum rxd_group_record r)
{
	bool sent = rxd_gid_is_v4(gid) ? rxd_igmp_send(np, gid, r) :
		rxd_mld_send(np, gid, r);

	if (sent)
		np->stats.group_reports_tx++;
}

/* Report a join now and once more RXD_MCAST_REPEAT_MS later. */
static void
reported_join(struct rxd_net_port *np, struct rxd_net_group *g)
{
	g->repeats = 1;
	g->report_at = rte_rdtsc() + np->hz / 1000 * RXD_MCAST_REPEAT_MS;
	report(np, g->gid, RXD_GROUP_JOIN);
}

void
rxd_group_announce(struct rxd_net_port *np)
{
	unsigned int i;

	for (i = 0; i < RXD_NET_GROUPS; i++)
		if (np->groups[i].used)
			reported_join(np, &np->groups[i]);
}

int
rxd_net_join(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN])
{
	struct rxd_net_group *g = NULL;
	unsigned int i;

	if (!rxd_gid_is_mcast(gid))
		return -EINVAL;
	if (slot_of(np, gid) >= 0)
		return -EEXIST;
	for (i = 0; i < RXD_NET_GROUPS && g == NULL; i++)
		if (!np->groups[i].used)
			g = &np->groups[i];
	if (g == NULL)
		return -ENOSPC;
	memcpy(g->gid, gid, RXD_GID_LEN);
	g->used = true;
	reported_join(np, g);
	return 0;
}

int
rxd_net_leave(struct rxd_net_port *np, const uint8_t gid[RXD_GID_LEN])
{
	int i = slot_of(np, gid);

	if (i < 0)
		return -ENOENT;
	memset(&np->groups[i], 0, sizeof(np->groups[i]));
	report(np, gid, RXD_GROUP_LEAVE);
	return 0;
}

/* Due no later than max_ms from now, at a random moment before that. */
static void
schedule(struct rxd_net_port *np, struct rxd_net_group *g, uint32_t max_ms)
{
	uint64_t now = rte_rdtsc();
	uint64_t at = now + np->hz / 1000 * (rte_rand() % (max_ms + 1ull));

	if (g->report_at == 0 || g->report_at > at)
		g->report_at = at;
}

void
rxd_group_query(struct rxd_net_port *np, const uint8_t *group, bool v4,
		uint32_t max_ms)
{
	struct rxd_net_group *g;
	unsigned int i;

	np->stats.group_queries++;
	for (i = 0; i < RXD_NET_GROUPS; i++) {
		g = &np->groups[i];
		if (!g->used || rxd_gid_is_v4(g->gid) != v4)
			continue;
		if (group == NULL ||
		    memcmp(group, g->gid, RXD_GID_LEN) == 0)
			schedule(np, g, max_ms);
	}
}

void
rxd_group_timer(struct rxd_net_port *np, uint64_t now)
{
	struct rxd_net_group *g;
	unsigned int i;

	for (i = 0; i < RXD_NET_GROUPS; i++) {
		g = &np->groups[i];
		if (!g->used || g->report_at == 0 || now < g->report_at)
			continue;
		if (g->repeats > 0) {
			g->repeats--;
			report(np, g->gid, RXD_GROUP_JOIN);
		} else {
			report(np, g->gid, RXD_GROUP_CURRENT);
		}
		g->report_at = 0;
	}
}

bool
rxd_group_msg_ignore(struct rxd_net_port *np, const uint8_t *msg,
		     uint32_t len)
{
	(void)msg;
	(void)len;
	np->stats.group_ignored++;
	return true;
}

const struct rxd_group_msg *
rxd_group_msg_find(const struct rxd_group_msg *t, unsigned int n,
		   uint8_t type)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (t[i].type == type)
			return &t[i];
	return NULL;
}
