/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Redialling a memif client port (see rxd_port.h).  DPDK 22.11's memif
 * client connects to its server only in rte_eth_dev_start(), so once the
 * server process is gone the port stays down for good.  A forking server
 * (qperf) runs one rxd process per test, each a new memif server on the
 * same socket, while the client process lives on: the client port has to
 * dial again.  It does so by a stop and a start of the device, at most
 * once per REDIAL_MS while its link is down, and, for a socket in the file
 * system, only while the socket file exists.  A dial whose handshake is
 * still running (the link not up yet) is left HANDSHAKE_MS before it is
 * given up: a loaded machine may take seconds over it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>

#include "rxd_driver.h"
#include "rxd_port.h"

#define REDIAL_MS 1000
#define HANDSHAKE_MS 10000
#define MEMIF_DEFAULT_SOCKET "/run/memif.sock"

/* A devarg of the device, or dflt. */
static void
devarg_str(struct rte_kvargs *kv, const char *key, const char *dflt,
	   char *buf, size_t len)
{
	const char *v = kv != NULL ? rte_kvargs_get(kv, key) : NULL;

	snprintf(buf, len, "%s", v != NULL ? v : dflt);
}

void
rxd_port_redial_setup(struct rxd_port *p, const struct rte_device *dev)
{
	const struct rte_devargs *da = rte_dev_devargs(dev);
	struct rte_kvargs *kv = NULL;
	char role[16], abstract[8];

	p->redial = false;
	if (!rxd_driver_traits(p->driver)->redial)
		return;
	if (da != NULL && da->args != NULL)
		kv = rte_kvargs_parse(da->args, NULL);
	devarg_str(kv, "role", "server", role, sizeof(role));
	devarg_str(kv, "socket-abstract", "yes", abstract, sizeof(abstract));
	devarg_str(kv, "socket", MEMIF_DEFAULT_SOCKET, p->redial_path,
		   sizeof(p->redial_path));
	rte_kvargs_free(kv);
	if (strcmp(abstract, "no") != 0)
		p->redial_path[0] = '\0';   /* nothing to look for */
	p->redial = strcmp(role, "client") == 0 || strcmp(role, "slave") == 0;
	p->redial_at = rte_get_timer_cycles();
	p->dialing = true;
}

/* True when the server's socket may be there to dial. */
static bool
server_socket_present(const struct rxd_port *p)
{
	struct stat st;

	return p->redial_path[0] == '\0' ||
		(stat(p->redial_path, &st) == 0 && S_ISSOCK(st.st_mode));
}

void
rxd_port_redial(struct rxd_port *p)
{
	uint64_t now = rte_get_timer_cycles();
	uint64_t ms = rte_get_timer_hz() / 1000;

	if (p->link_up)
		p->dialing = false;
	if (!p->redial || p->link_up ||
	    now - p->redial_at < ms * (p->dialing && !p->stopped ?
				       HANDSHAKE_MS : REDIAL_MS))
		return;
	p->redial_at = now;
	if (!server_socket_present(p))
		return;
	if (!p->stopped) {
		p->stopped = true;
		rte_eth_dev_stop(p->port_id);
	}
	if (rte_eth_dev_start(p->port_id) == 0) {
		p->stopped = false;
		p->dialing = true;
	}
}
