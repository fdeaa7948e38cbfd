#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# mcast-interop.sh - UD multicast between rxd and Linux Soft-RoCE with
# Debian's unmodified mckey, in both roles: rxd (compat librdmacm,
# net_af_packet, 10.88.0.1) and rdma_rxe with the kernel's rdma_cm in the
# guest (10.88.0.11), which joins the group on the guest's netdev (IGMP)
# so that rxe's UDP socket receives it.  The lab's bridge snoops IGMP and
# queries for it (mcast_snooping 1, mcast_querier 1) for this test: a
# group is forwarded to the ports that reported it, so rxd's reports must
# be right for rxd to receive; the bridge's group table must name rxd's
# port.  rxd captures every frame; each capture must pass roce-check
# (when ../shared/tools/roce-check exists).  About 3 minutes with the
# guest's boot (TCG).
#
# Usage: mcast-interop.sh BUILD_DIR  (root; exit 0 ok, 1 failed, 77 skipped)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rxi_script_init "${1:?usage: mcast-interop.sh BUILD_DIR}"
H=$RXD_INTEROP_HERE
[ -e "$build/compat/librdmacm.so.1" ] || skip "no $build/compat/librdmacm.so.1"
command -v mckey >/dev/null || skip "rdmacm-utils not installed"
COUNT=10

rxi_guest_up
rxi_ns ip link set "$RXD_INTEROP_BRIDGE" type bridge mcast_snooping 1 \
	mcast_querier 1 mcast_query_interval 1000 ||
	skip "the lab's bridge cannot snoop multicast"

report() { # NAME OK RXD_LOG GUEST_LOG
	if [ "$2" = 1 ]; then
		echo "PASS: $1: $COUNT messages"
		rxi_check_capture "$out/$1.pcapng"
	else
		echo "FAIL: $1"
		sed 's/^/    rxd   | /' "$3" | tail -12
		sed 's/^/    guest | /' "$4" | tail -12
		failed=1
	fi
}

# rxd receives: it joins, says so, then the guest sends.
rxd_receives() {
	local name=rxd-receives group=239.88.1.1 pid ok=0 grc
	rxi_rxd_run $name timeout 60 stdbuf -oL mckey -m $group \
		-b "$RXD_INTEROP_RXD_IP" -C $COUNT >"$out/$name.rxd.log" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		grep -q "receiving data transfers" "$out/$name.rxd.log" && break
		sleep 0.1
	done
	sleep 2      # the bridge learns the report (and hears a query answered)
	rxi_ns bridge mdb show dev "$RXD_INTEROP_BRIDGE" >"$out/$name.mdb" 2>&1
	"$H/guest-exec.sh" -t 60 "mckey -m $group -s -b $RXD_INTEROP_GUEST_IP -C $COUNT" \
		>"$out/$name.guest.log" 2>&1
	grc=$?
	wait "$pid" && [ $grc -eq 0 ] &&
		grep -q "data transfers complete" "$out/$name.rxd.log" && ok=1
	report $name $ok "$out/$name.rxd.log" "$out/$name.guest.log"
	if grep -q "$RXD_INTEROP_HOST_PEER.*$group" "$out/$name.mdb"; then
		echo "PASS: the bridge forwards $group to rxd's port (IGMP learnt)"
	else
		echo "FAIL: the bridge's group table lacks rxd's port for $group"
		sed 's/^/    | /' "$out/$name.mdb"
		failed=1
	fi
}

# The guest receives: it joins in the background, then rxd sends.
guest_receives() {
	local name=guest-receives group=239.88.1.2 job ok=0 rc grc
	job=$("$H/guest-exec.sh" -b "mckey -m $group -b $RXD_INTEROP_GUEST_IP -C $COUNT")
	sleep 5
	rxi_rxd_run $name timeout 60 mckey -m $group -s \
		-b "$RXD_INTEROP_RXD_IP" -C $COUNT >"$out/$name.rxd.log" 2>&1
	rc=$?
	"$H/guest-exec.sh" -t 60 -w "$job" >"$out/$name.guest.log" 2>&1
	grc=$?
	[ $rc -eq 0 ] && [ $grc -eq 0 ] &&
		grep -q "data transfers complete" "$out/$name.guest.log" && ok=1
	report $name $ok "$out/$name.rxd.log" "$out/$name.guest.log"
}

rxd_receives
guest_receives
[ -x "$checker" ] || echo "SKIP: roce-check not found ($checker); captures not checked"
echo "logs and captures: $out"
exit $failed
