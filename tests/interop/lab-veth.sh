#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# lab-veth.sh - add or remove an extra veth port on the running lab's bridge.
#
# Usage:
#   lab-veth.sh add IF ADDR [MAC]   veth IF <-> IFbr, IFbr in the bridge;
#                                   ADDR is IP/LEN (kernel-owned end, e.g. for
#                                   the TCP exchange of verbs examples) or
#                                   "none" (an end a userspace stack owns)
#   lab-veth.sh del IF
#
# Offloads are off on both ends; in the lab the kernel answers ARP only on the
# interface that holds the address, so a kernel-addressed port never answers
# for rxd's address. guest-stop.sh removes the whole namespace with every port.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
	sed -n '6,12p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
[ $# -ge 2 ] || usage
rxi_need_root
rxi_ns_exists || rxi_die "lab $RXD_INTEROP_NETNS is not up (guest-start.sh)"
ifn=$2
[ ${#ifn} -le 13 ] || rxi_die "interface name '$ifn' too long (max 13 characters)"
case "$ifn" in
"$RXD_INTEROP_HOST_IF" | "$RXD_INTEROP_TAP" | "$RXD_INTEROP_BRIDGE")
	rxi_die "$ifn belongs to the lab itself"
	;;
esac
case "$1" in
add)
	[ $# -ge 3 ] || usage
	rxi_veth_add "$ifn" "${ifn}br" "$3" "${4:-}"
	ip -n "$RXD_INTEROP_NETNS" -br addr show dev "$ifn"
	;;
del) rxi_veth_del "$ifn" ;;
*) usage ;;
esac
