#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# guest-stop.sh - stop the guest and remove the interop lab: processes still
# running inside the namespace (e.g. an rxd left behind) get SIGTERM, then
# SIGKILL; the tap, the veths, the bridge and the namespace are deleted. The
# console log stays in $RXD_INTEROP_RUN for a post mortem. Safe to run again
# and when nothing is running.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
rxi_need_root

# Wait up to $2 tenths of a second for process $1 to go away.
gone() {
	local i
	for ((i = 0; i < $2; i++)); do
		[ -d "/proc/$1" ] || return 0
		sleep 0.1
	done
	[ ! -d "/proc/$1" ]
}

if pid=$(rxi_qemu_pid); then
	rxi_log "stopping guest (qemu pid $pid)"
	# The root disk is a throw-away overlay: no need for a clean shutdown.
	kill -TERM "$pid" 2>/dev/null
	if ! gone "$pid" 50; then
		rxi_log "qemu pid $pid ignores SIGTERM: SIGKILL"
		kill -KILL "$pid" 2>/dev/null
		gone "$pid" 20 || rxi_log "qemu pid $pid still there"
	fi
fi
rm -f "$RXD_INTEROP_RUN/qemu.pid" "$RXD_INTEROP_RUN/overlay.qcow2" "$RXD_INTEROP_RUN/lab.env"

if rxi_ns_exists; then
	# Anything else still attached to the lab (an rxd, a tcpdump, a ping).
	mapfile -t pids < <(ip netns pids "$RXD_INTEROP_NETNS" 2>/dev/null)
	for p in "${pids[@]}"; do
		rxi_log "terminating pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60)) in netns $RXD_INTEROP_NETNS"
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		gone "$p" 30 || kill -KILL "$p" 2>/dev/null
	done
	for l in "$RXD_INTEROP_HOST_IF" "$RXD_INTEROP_PROBE_IF" "$RXD_INTEROP_TAP" \
		"$RXD_INTEROP_TAP"n{1,2,3,4,5,6} "$RXD_INTEROP_BRIDGE"; do
		ip -n "$RXD_INTEROP_NETNS" link del "$l" 2>/dev/null
	done
	ip netns del "$RXD_INTEROP_NETNS" || rxi_die "could not delete netns $RXD_INTEROP_NETNS"
	rxi_log "netns $RXD_INTEROP_NETNS removed"
fi
exit 0
