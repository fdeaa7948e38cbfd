/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host-networking control calls of include/rxd/rxd.h: resolve a peer, list
 * the neighbour cache, ping.  Each runs on the engine that owns the port.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "rxd_stack.h"

struct resolve_arg {
	struct rxd_net_port *np;
	const uint8_t *gid;
	struct rte_ether_addr mac;
};

static int
resolve_cmd(struct rxd_engine *e, void *arg)
{
	struct resolve_arg *r = arg;

	(void)e;
	return rxd_net_resolve(r->np, r->gid, &r->mac);
}

int
rxd_resolve(unsigned int port, const uint8_t gid[16], uint8_t mac[6],
	    unsigned int timeout_ms)
{
	struct rxd_engine *e = rxd_stack_engine_of(port);
	struct resolve_arg r = { .gid = gid };
	uint64_t end = rxd_stack_deadline(timeout_ms);
	int rc;

	if (e == NULL)
		return -1;
	r.np = &rxd_stk.net[port];
	while ((rc = rxd_engine_call(e, resolve_cmd, &r)) == -EAGAIN &&
	       rte_get_tsc_cycles() < end)
		rxd_stack_wait();
	if (rc == 0) {
		memcpy(mac, r.mac.addr_bytes, 6);
		return 0;
	}
	return rxd_stack_fail(rc == -EAGAIN ? ETIMEDOUT : -rc,
		    "port %u: cannot resolve the peer's MAC", port);
}

static const char *const neigh_state_name[] = {
	[RXD_NEIGH_FREE] = "free",
	[RXD_NEIGH_INCOMPLETE] = "incomplete",
	[RXD_NEIGH_REACHABLE] = "reachable",
	[RXD_NEIGH_PROBE] = "probe",
	[RXD_NEIGH_FAILED] = "failed",
};

struct neigh_arg {
	struct rxd_net_port *np;
	struct rxd_neigh_info *out;
	unsigned int max;
};

static int
neigh_cmd(struct rxd_engine *e, void *arg)
{
	struct neigh_arg *a = arg;
	unsigned int i, n = 0;

	(void)e;
	for (i = 0; i < RXD_NEIGH_SLOTS && n < a->max; i++) {
		const struct rxd_neigh *ne = &a->np->neigh[i];

		if (ne->state == RXD_NEIGH_FREE)
			continue;
		memcpy(a->out[n].ip, ne->ip, 16);
		memcpy(a->out[n].mac, ne->mac.addr_bytes, 6);
		a->out[n].state = neigh_state_name[ne->state];
		a->out[n++].held = ne->n_held;
	}
	return (int)n;
}

int
rxd_neigh_list(unsigned int port, struct rxd_neigh_info *out,
	       unsigned int max)
{
	struct rxd_engine *e = rxd_stack_engine_of(port);
	struct neigh_arg a = { .out = out, .max = max };

	if (e == NULL)
		return -1;
	a.np = &rxd_stk.net[port];
	return rxd_engine_call(e, neigh_cmd, &a);
}

struct ping_arg {
	struct rxd_net_port *np;
	const uint8_t *gid;
	uint16_t seq;
};

static int
ping_cmd(struct rxd_engine *e, void *arg)
{
	struct ping_arg *p = arg;

	(void)e;
	return rxd_net_ping(p->np, p->gid, (uint16_t)getpid(), p->seq, 56);
}

static int
echo_count_cmd(struct rxd_engine *e, void *arg)
{
	(void)e;
	return (int)((struct rxd_net_port *)arg)->stats.echo_replies_rx;
}

int
rxd_ping(unsigned int port, const uint8_t gid[16], unsigned int count,
	 unsigned int timeout_ms)
{
	struct rxd_engine *e = rxd_stack_engine_of(port);
	struct ping_arg p = { .gid = gid };
	uint64_t end = rxd_stack_deadline(timeout_ms);
	int base, got = 0, rc;
	unsigned int i;

	if (e == NULL)
		return -1;
	p.np = &rxd_stk.net[port];
	base = rxd_engine_call(e, echo_count_cmd, p.np);
	for (i = 0; i < count; i++) {
		p.seq = (uint16_t)i;
		rc = rxd_engine_call(e, ping_cmd, &p);
		if (rc != 0)
			return rxd_stack_fail(-rc, "port %u: ping: %s", port,
				    strerror(-rc));
	}
	while (rte_get_tsc_cycles() < end) {
		got = rxd_engine_call(e, echo_count_cmd, p.np) - base;
		if (got >= (int)count)
			break;
		rxd_stack_wait();
	}
	return got;
}
