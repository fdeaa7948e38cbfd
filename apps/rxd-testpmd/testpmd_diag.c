/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port diagnostics: fault injection (one key of a port's fault settings
 * at a time, parsed by rxd_conf_set and applied with rxd_fault_set),
 * pcapng capture, and waiting for a link state.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "testpmd.h"

bool
tp_port_ok(unsigned int port)
{
	if (port < rxd_port_count())
		return true;
	fprintf(stderr, "port %u does not exist (%u port(s))\n", port,
		rxd_port_count());
	return false;
}

bool
tp_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
	return !tp.interrupted;
}

static void
print_fault(unsigned int port, const char *dir, const struct rxd_conf_fault *f)
{
	printf("port %u %s faults: drop %g dup %g reorder %g (depth %u) "
	       "corrupt %g cut %s drop_opcode %d only_qpn %u\n", port, dir,
	       f->drop, f->dup, f->reorder, f->reorder_depth, f->corrupt,
	       f->cut ? "on" : "off", f->drop_opcode, f->only_qpn);
}

int
tp_set_fault(const struct tp_args *a)
{
	bool rx = strcmp(a->word[2], "rx") == 0;
	char section[16], key[2 * STR_TOKEN_SIZE + 8], err[RXD_CONF_ERRLEN];
	struct rxd_port_info info;
	struct rxd_conf_port *p;

	if (!tp_port_ok(a->port) || rxd_port_info(a->port, &info) != 0)
		return -1;
	snprintf(section, sizeof(section), "port%u", info.dpdk_port);
	snprintf(key, sizeof(key), "fault.%s.%s", a->word[2], a->word[3]);
	if (rxd_conf_set(&tp.conf, section, key, a->text, err,
			 sizeof(err)) != 0) {
		fprintf(stderr, "set fault: %s\n", err);
		return -1;
	}
	p = &tp.conf.port[info.dpdk_port];
	if (rxd_fault_set(a->port, rx ? RXD_DIR_RX : RXD_DIR_TX,
			  rx ? &p->fault_rx : &p->fault_tx,
			  p->fault_seed) != 0) {
		fprintf(stderr, "set fault: %s\n", rxd_last_error());
		return -1;
	}
	print_fault(a->port, a->word[2], rx ? &p->fault_rx : &p->fault_tx);
	return 0;
}

int
tp_capture_start(const struct tp_args *a)
{
	if (!tp_port_ok(a->port))
		return -1;
	if (rxd_capture_start(a->port, a->text) != 0) {
		fprintf(stderr, "capture start: port %u: %s\n", a->port,
			rxd_last_error());
		return -1;
	}
	printf("port %u: capturing to %s\n", a->port, a->text);
	return 0;
}

int
tp_capture_stop(const struct tp_args *a)
{
	struct rxd_port_counters c;

	if (!tp_port_ok(a->port) || rxd_port_counters(a->port, &c) != 0)
		return -1;
	if (rxd_capture_stop(a->port) != 0) {
		fprintf(stderr, "capture stop: port %u: %s\n", a->port,
			rxd_last_error());
		return -1;
	}
	printf("port %u: capture stopped, %" PRIu64 " frames written, %"
	       PRIu64 " lost\n", a->port, c.capture_written, c.capture_lost);
	return 0;
}

int
tp_wait_link(const struct tp_args *a)
{
	bool want = strcmp(a->word[2], "up") == 0;
	struct rxd_port_info info;
	unsigned int ms;

	if (!tp_port_ok(a->port))
		return -1;
	for (ms = 0; ms <= a->seconds * 1000u; ms += 10) {
		if (rxd_port_info(a->port, &info) == 0 &&
		    info.link_up == want) {
			printf("port %u: link %s\n", a->port, a->word[2]);
			return 0;
		}
		if (!tp_sleep_ms(10))
			break;
	}
	fprintf(stderr, "wait link: port %u still not %s after %u s\n",
		a->port, a->word[2], a->seconds);
	return -1;
}
