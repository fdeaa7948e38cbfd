/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Validation of a complete configuration: every value through its type's
 * check (so a struct filled by code is held to the file's rules), then the
 * relations between values that no single key can check.
 */
#include <string.h>
#include <sys/socket.h>

#include "rxd_conf_priv.h"

/* Every key of every section instance in its range. */
static int
check_keys(const struct rxd_conf *c, char *err, size_t errlen)
{
	char sect[16], why[RXD_CONF_ERRLEN];
	const struct rxd_conf_key *k;
	unsigned i;
	int slot;

	for (slot = 0; slot < RXD_CONF_N_SLOTS; slot++) {
		for (i = 0; i < rxd_conf_n_keys; i++) {
			k = &rxd_conf_keys[i];
			if (k->sect != rxd_conf_slot_sect(slot) ||
			    rxd_conf_types[k->type]->check(k,
				    rxd_conf_slot_cbase(c, slot), why,
				    sizeof(why)) == 0)
				continue;
			rxd_conf_slot_name(slot, sect, sizeof(sect));
			rxd_conf_err(err, errlen, "[%s] %s: %s", sect, k->name,
				why);
			return -1;
		}
	}
	return 0;
}

static bool
is_link_local(const struct rxd_conf_addr *a)
{
	return a->family == AF_INET6 && a->addr[0] == 0xfe &&
		(a->addr[1] & 0xc0) == 0x80;
}

/* A gateway must be on-link: inside a subnet of its port. */
static int
check_gateway(const struct rxd_conf_port *p, unsigned port,
	const struct rxd_conf_addr *gw, char *err, size_t errlen)
{
	char s[RXD_CONF_ADDRSTRLEN];
	unsigned i;

	if (is_link_local(gw))
		return 0;
	for (i = 0; i < p->n_addrs; i++)
		if (rxd_conf_addr_in_subnet(gw, &p->addrs[i]))
			return 0;
	rxd_conf_err(err, errlen, "[port%u] gateway: %s is not in a subnet "
		"of the port's IPv%c addresses", port,
		rxd_conf_addr_str(gw, s, sizeof(s)),
		gw->family == AF_INET ? '4' : '6');
	return -1;
}

/* The pool must fill every rx descriptor and cover every tx one. */
static int
check_mbufs(const struct rxd_conf *c, unsigned port, char *err,
	size_t errlen)
{
	const struct rxd_conf_port *p = &c->port[port];
	uint64_t need = (uint64_t)p->rx_queues * p->rx_desc +
		(uint64_t)p->tx_queues * p->tx_desc;

	if (c->mbufs >= need)
		return 0;
	rxd_conf_err(err, errlen, "[limits] mbufs: %u is fewer than port%u "
		"needs (%u x %u rx + %u x %u tx descriptors = %lu)", c->mbufs,
		port, p->rx_queues, p->rx_desc, p->tx_queues, p->tx_desc,
		(unsigned long)need);
	return -1;
}

/* An address belongs to one port only. */
static int
check_unique(const struct rxd_conf *c, unsigned port, char *err,
	size_t errlen)
{
	const struct rxd_conf_port *p = &c->port[port], *q;
	char s[RXD_CONF_ADDRSTRLEN];
	unsigned i, j, other;

	for (other = 0; other < port; other++) {
		q = &c->port[other];
		for (i = 0; i < p->n_addrs; i++) {
			for (j = 0; j < q->n_addrs; j++) {
				if (!rxd_conf_addr_equal(&p->addrs[i],
						&q->addrs[j]))
					continue;
				rxd_conf_err(err, errlen, "[port%u] addr: %s "
					"is also an address of port%u", port,
					rxd_conf_addr_str(&p->addrs[i], s,
						sizeof(s)), other);
				return -1;
			}
		}
	}
	return 0;
}

static int
check_port(const struct rxd_conf *c, unsigned port, char *err,
	size_t errlen)
{
	const struct rxd_conf_port *p = &c->port[port];

	if (p->has_gw4 && check_gateway(p, port, &p->gw4, err, errlen) < 0)
		return -1;
	if (p->has_gw6 && check_gateway(p, port, &p->gw6, err, errlen) < 0)
		return -1;
	if (check_mbufs(c, port, err, errlen) < 0)
		return -1;
	return check_unique(c, port, err, errlen);
}

int
rxd_conf_validate(const struct rxd_conf *c, char *err, size_t errlen)
{
	unsigned port;

	if (check_keys(c, err, errlen) < 0)
		return -1;
	for (port = 0; port < RXD_MAX_PORTS; port++)
		if (check_port(c, port, err, errlen) < 0)
			return -1;
	return 0;
}
