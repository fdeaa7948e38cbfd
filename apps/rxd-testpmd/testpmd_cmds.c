/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The commands table: every command of rxd-testpmd as a DPDK cmdline
 * instruction (its tokens, its help line, its handler).  The tokens fill
 * struct tp_args; one dispatcher calls the handler and records a failure
 * for the batch runner.  Completion and the '?' help come from cmdline.
 */
#include <stdio.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>

#include "testpmd.h"

struct tp_cmd {
	tp_handler fn;
};

static void
dispatch(void *parsed, struct cmdline *cl, void *data)
{
	const struct tp_cmd *c = data;

	tp.cmd_failed = c->fn(parsed) != 0;
	if (tp.quit)
		cmdline_quit(cl);
}

static int
cmd_quit(const struct tp_args *a)
{
	(void)a;
	tp.quit = true;
	return 0;
}

static int
cmd_sleep(const struct tp_args *a)
{
	return tp_sleep_ms(a->seconds * 1000u) ? 0 : -1;
}

#define WORD(name, i, words) \
	static cmdline_parse_token_string_t name = \
		TOKEN_STRING_INITIALIZER(struct tp_args, word[i], words)
#define TEXT(name) \
	static cmdline_parse_token_string_t name = \
		TOKEN_STRING_INITIALIZER(struct tp_args, text, NULL)
#define NUM(name, field, type) \
	static cmdline_parse_token_num_t name = \
		TOKEN_NUM_INITIALIZER(struct tp_args, field, type)

WORD(w_help, 0, "help");
WORD(w_quit, 0, "quit");
WORD(w_sleep, 0, "sleep");
WORD(w_show, 0, "show");
WORD(w_ports, 1, "ports");
WORD(w_gids, 1, "gids");
WORD(w_neigh, 1, "neigh#arp");
WORD(w_qps, 1, "qps");
WORD(w_stats, 1, "stats");
WORD(w_mem, 1, "mem");
WORD(w_engines, 1, "engines");
WORD(w_set, 0, "set");
WORD(w_fault, 1, "fault");
WORD(w_dir, 2, "rx#tx");
WORD(w_fault_kind, 3, "drop#dup#reorder#reorder_depth#corrupt#cut#drop_opcode#only_qpn");
WORD(w_stats_period, 1, "stats-period");
WORD(w_conn_gid, 1, "conn-gid");
WORD(w_capture, 0, "capture");
WORD(w_cap_start, 1, "start");
WORD(w_cap_stop, 1, "stop");
WORD(w_listen, 0, "listen");
WORD(w_cm, 0, "cm");
WORD(w_cm1, 1, "cm");
WORD(w_listen1, 1, "listen");
WORD(w_connect, 0, "connect");
WORD(w_start, 0, "start");
WORD(w_stop, 0, "stop");
WORD(w_traffic, 1, "traffic");
WORD(w_op, 2, "send#write#read");
WORD(w_wait, 0, "wait");
WORD(w_rx, 1, "rx");
WORD(w_link, 1, "link");
WORD(w_updown, 2, "up#down");
TEXT(t_text);
NUM(n_port, port, RTE_UINT16);
NUM(n_tcp_port, tcp_port, RTE_UINT16);
NUM(n_size, size, RTE_UINT32);
NUM(n_depth, depth, RTE_UINT32);
NUM(n_count, count, RTE_UINT64);
NUM(n_seconds, seconds, RTE_UINT32);
NUM(n_index, index, RTE_UINT32);

#define CMD(name, handler, help, ...) \
	static struct tp_cmd name##_cmd = { handler }; \
	static cmdline_parse_inst_t name = { \
		.f = dispatch, .data = &name##_cmd, .help_str = help, \
		.tokens = { __VA_ARGS__, NULL }, \
	}

CMD(c_help, tp_cmd_help, "help: list the commands", &w_help.hdr);
CMD(c_sleep, cmd_sleep, "sleep SECONDS: pause (a script's traffic runs on)",
    &w_sleep.hdr, &n_seconds.hdr);
CMD(c_quit, cmd_quit, "quit: stop traffic, close the QPs and exit",
    &w_quit.hdr);
CMD(c_show_ports, tp_show_ports,
    "show ports: link, MAC, MTU, IB MTU, queues and offloads of every port",
    &w_show.hdr, &w_ports.hdr);
CMD(c_show_gids, tp_show_gids, "show gids: the GID table of every port",
    &w_show.hdr, &w_gids.hdr);
CMD(c_show_neigh, tp_show_neigh,
    "show neigh|arp: the neighbour (ARP/ND) cache of every port",
    &w_show.hdr, &w_neigh.hdr);
CMD(c_show_qps, tp_show_qps,
    "show qps: the QPs this tool created: state, PSNs, peer, traffic",
    &w_show.hdr, &w_qps.hdr);
CMD(c_show_stats, tp_show_stats,
    "show stats: port counters, then each QP's transport and data counters",
    &w_show.hdr, &w_stats.hdr);
CMD(c_show_mem, tp_show_mem,
    "show mem: bytes per QP and per outstanding WQE",
    &w_show.hdr, &w_mem.hdr);
CMD(c_show_engines, tp_show_engines,
    "show engines: each engine's QPs, busy/idle cycles and hand-offs",
    &w_show.hdr, &w_engines.hdr);
CMD(c_show_cm, tp_show_cm,
    "show cm: the connection manager's MAD, id and memory counters",
    &w_show.hdr, &w_cm1.hdr);
CMD(c_cm_listen, tp_cm_listen,
    "cm listen PORT: accept every rdma_cm request to PORT (an RC QP each)",
    &w_cm.hdr, &w_listen1.hdr, &n_tcp_port.hdr);
CMD(c_wait_cm, tp_wait_cm,
    "wait cm COUNT SECONDS: wait until COUNT requests came to the listener "
    "and the CM holds no id but its listeners again",
    &w_wait.hdr, &w_cm1.hdr, &n_count.hdr, &n_seconds.hdr);
CMD(c_set_fault, tp_set_fault,
    "set fault PORT rx|tx drop|dup|reorder|reorder_depth|corrupt|cut|"
    "drop_opcode|only_qpn VALUE: change one fault of a port (rates as 0.05 or 5%)",
    &w_set.hdr, &w_fault.hdr, &n_port.hdr, &w_dir.hdr, &w_fault_kind.hdr,
    &t_text.hdr);
CMD(c_stats_period, tp_set_stats_period,
    "set stats-period SECONDS: print a traffic line every SECONDS (0 = off)",
    &w_set.hdr, &w_stats_period.hdr, &n_seconds.hdr);
CMD(c_conn_gid, tp_set_conn_gid,
    "set conn-gid PORT INDEX: port and GID index of the next connections",
    &w_set.hdr, &w_conn_gid.hdr, &n_port.hdr, &n_index.hdr);
CMD(c_cap_start, tp_capture_start,
    "capture start PORT FILE: write every frame of the port to a pcapng file",
    &w_capture.hdr, &w_cap_start.hdr, &n_port.hdr, &t_text.hdr);
CMD(c_cap_stop, tp_capture_stop,
    "capture stop PORT: stop the port's capture and close the file",
    &w_capture.hdr, &w_cap_stop.hdr, &n_port.hdr);
CMD(c_listen, tp_listen,
    "listen TCPPORT: wait for a peer's connect, then set up an RC QP with it",
    &w_listen.hdr, &n_tcp_port.hdr);
CMD(c_connect, tp_connect,
    "connect HOST TCPPORT: connect to a listening peer, set up an RC QP",
    &w_connect.hdr, &t_text.hdr, &n_tcp_port.hdr);
CMD(c_start, tp_start_traffic,
    "start traffic send|write|read SIZE DEPTH: traffic on every QP until "
    "stopped",
    &w_start.hdr, &w_traffic.hdr, &w_op.hdr, &n_size.hdr, &n_depth.hdr);
CMD(c_start_count, tp_start_traffic,
    "start traffic send|write|read SIZE DEPTH COUNT: COUNT messages per QP",
    &w_start.hdr, &w_traffic.hdr, &w_op.hdr, &n_size.hdr, &n_depth.hdr,
    &n_count.hdr);
CMD(c_stop, tp_stop_traffic,
    "stop traffic: stop posting, wait for what is outstanding, print totals",
    &w_stop.hdr, &w_traffic.hdr);
CMD(c_wait_traffic, tp_wait_traffic,
    "wait traffic SECONDS: wait until every counted run has finished",
    &w_wait.hdr, &w_traffic.hdr, &n_seconds.hdr);
CMD(c_wait_rx, tp_wait_rx,
    "wait rx COUNT SECONDS: wait until COUNT messages were received in all",
    &w_wait.hdr, &w_rx.hdr, &n_count.hdr, &n_seconds.hdr);
CMD(c_wait_link, tp_wait_link,
    "wait link PORT up|down SECONDS: wait for the port's link state",
    &w_wait.hdr, &w_link.hdr, &n_port.hdr, &w_updown.hdr, &n_seconds.hdr);

cmdline_parse_ctx_t tp_ctx[] = {
	&c_help, &c_show_ports, &c_show_gids, &c_show_neigh, &c_show_qps,
	&c_show_stats, &c_show_mem, &c_show_engines, &c_show_cm, &c_cm_listen, &c_wait_cm,
	&c_set_fault, &c_stats_period,
	&c_conn_gid, &c_cap_start, &c_cap_stop, &c_listen, &c_connect,
	&c_start, &c_start_count, &c_stop, &c_wait_traffic, &c_wait_rx,
	&c_wait_link, &c_sleep, &c_quit, NULL,
};

int
tp_cmd_help(const struct tp_args *a)
{
	unsigned int i;

	(void)a;
	for (i = 0; tp_ctx[i] != NULL; i++)
		printf("  %s\n", tp_ctx[i]->help_str);
	return 0;
}
