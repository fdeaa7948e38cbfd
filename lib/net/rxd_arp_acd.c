/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 address conflict detection (RFC 5227) of a port: the probes and
 * announcements rxd sends when it starts or its link comes up, and the
 * frames that claim one of its addresses from another MAC.  Those are
 * counted, reported (a log line at most every RXD_ACD_LOG_S, and the port
 * info rxd-testpmd shows), never learnt or answered; after probing rxd
 * defends its address with one announcement per RXD_ACD_DEFEND_S.  A
 * conflict while probing stops the probes, and nothing is announced.
 *
 * Times scale with arp_probe_ms (RFC 5227's PROBE_WAIT, 1 s): the first
 * probe within one unit, probes one to two units apart, two units before
 * the first announcement (ANNOUNCE_WAIT) and between announcements.
 */
#include <string.h>

#include <rte_log.h>
#include <rte_random.h>

#include "rxd_net_priv.h"

RTE_LOG_REGISTER(rxd_logtype_net, rxd.net, NOTICE);

/* Ticks of units arp_probe_ms plus a random part of up to spread units. */
static uint64_t
units(const struct rxd_net_port *np, uint32_t n, uint32_t spread)
{
	uint64_t unit = np->hz / 1000 * np->acd.probe_ms;

	return n * unit + (spread ? rte_rand_max(spread * unit + 1) : 0);
}

/* One ARP frame for each IPv4 address: a probe or an announcement. */
static void
send_all(struct rxd_net_port *np, bool probe)
{
	unsigned int i;

	for (i = 0; i < np->n_addrs; i++) {
		if (!rxd_gid_is_v4(np->addrs[i].gid))
			continue;
		if (probe)
			rxd_arp_probe(np, np->addrs[i].gid);
		else
			rxd_arp_request(np, np->addrs[i].gid, NULL);
	}
}

void
rxd_acd_start(struct rxd_net_port *np, uint64_t now)
{
	if (np->acd.probe_ms == 0) {
		np->acd.phase = RXD_ACD_IDLE;
		send_all(np, false);
		return;
	}
	np->acd.phase = RXD_ACD_PROBE;
	np->acd.left = RXD_ACD_PROBE_NUM;
	np->acd.deadline = now + units(np, 0, 1);
}

void
rxd_acd_timer(struct rxd_net_port *np, uint64_t now)
{
	struct rxd_net_acd *a = &np->acd;

	if (a->phase == RXD_ACD_IDLE || now < a->deadline)
		return;
	send_all(np, a->phase == RXD_ACD_PROBE);
	if (--a->left > 0) {
		a->deadline = now + (a->phase == RXD_ACD_PROBE ?
			units(np, 1, 1) : units(np, 2, 0));
	} else if (a->phase == RXD_ACD_PROBE) {
		a->phase = RXD_ACD_ANNOUNCE;
		a->left = RXD_ACD_ANNOUNCE_NUM;
		a->deadline = now + units(np, 2, 0);
	} else {
		a->phase = RXD_ACD_IDLE;
	}
}

/* Log the conflict unless one was logged within RXD_ACD_LOG_S. */
static void
report(struct rxd_net_port *np, uint64_t now)
{
	const struct rxd_net_acd *a = &np->acd;
	const uint8_t *ip = a->conflict_ip, *m = a->conflict_mac.addr_bytes;

	if (np->acd.last_log != 0 &&
	    now - np->acd.last_log < np->hz * RXD_ACD_LOG_S)
		return;
	np->acd.last_log = now;
	rte_log(RTE_LOG_WARNING, rxd_logtype_net,
		"rxd: address conflict: %u.%u.%u.%u is claimed by "
		"%02x:%02x:%02x:%02x:%02x:%02x%s (%lu such ARP frames; "
		"rxd keeps the address)\n", ip[0], ip[1], ip[2], ip[3],
		m[0], m[1], m[2], m[3], m[4], m[5],
		a->while_probing ? " while rxd probed for it" : "",
		(unsigned long)np->stats.arp_conflicts + 1);
}

/* Announce ip once, unless rxd did within RXD_ACD_DEFEND_S. */
static void
defend(struct rxd_net_port *np, const uint8_t ip[RXD_GID_LEN], uint64_t now)
{
	if (np->acd.last_defend != 0 &&
	    now - np->acd.last_defend < np->hz * RXD_ACD_DEFEND_S)
		return;
	np->acd.last_defend = now;
	rxd_arp_request(np, ip, NULL);
}

bool
rxd_acd_conflict(struct rxd_net_port *np, uint16_t op,
		 const struct rte_ether_addr *sha,
		 const uint8_t sip[RXD_GID_LEN], const uint8_t tip[RXD_GID_LEN])
{
	struct rxd_net_acd *a = &np->acd;
	bool probing = a->phase == RXD_ACD_PROBE;
	static const uint8_t unspecified[4];
	bool peer_probe = op == RXD_ARP_REQUEST &&
		memcmp(sip + 12, unspecified, 4) == 0;
	const uint8_t *ours = rxd_net_is_local(np, sip) ? sip : tip;
	uint64_t now = rte_rdtsc();

	if (!rxd_net_is_local(np, sip) &&
	    !(probing && peer_probe && rxd_net_is_local(np, tip)))
		return false;
	a->conflict = true;
	a->conflict_mac = *sha;
	memcpy(a->conflict_ip, ours + 12, 4);
	a->while_probing = probing;
	if (probing)
		a->phase = RXD_ACD_IDLE;
	report(np, now);
	if (!probing)
		defend(np, ours, now);
	return true;
}
