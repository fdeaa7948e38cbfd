#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# cm-interop.sh - rdma_cm between rxd and Linux Soft-RoCE: Debian's
# unmodified rping with data verification (-V), ucmatose and cmtime (a
# storm of RXD_INTEROP_CMTIME_N connections at once, 100 by default:
# every one made and torn down; its connect and disconnect totals are
# printed, not judged), rxd on the
# host side of the lab's bridge (compat librdmacm.so.1 + libibverbs.so.1,
# net_af_packet on rxdh0, 10.88.0.1) and rdma_rxe with the kernel's
# rdma_cm in the guest (10.88.0.11), in both roles.  The CM MADs travel on
# QP1 like the data: no TCP side channel.  rxd captures every frame; when
# ../shared/tools/roce-check exists each capture must pass it.
#
# Usage: cm-interop.sh BUILD_DIR     (root; exit 0 ok, 1 failed, 77 skipped)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rxi_script_init "${1:?usage: cm-interop.sh BUILD_DIR}"
H=$RXD_INTEROP_HERE
[ -e "$build/compat/librdmacm.so.1" ] || skip "no $build/compat/librdmacm.so.1"
command -v rping >/dev/null || skip "rdmacm-utils not installed"

rxi_guest_up

# kill_tree PID: PID and every process below it (the ones started here).
kill_tree() {
	local c
	for c in $(ps -o pid= --ppid "$1"); do
		kill_tree "$c"
	done
	kill "$1" 2>/dev/null
}

# step_ms LOG STEP: the total ms of a cmtime step row, or empty.
step_ms() {
	awk -v s="$2" '$1 == s && $2 == ":" { print $3 }' "$1"
}

# cmtime_pair SIDE N: cmtime's server never ends (it waits for the next
# round), so it is stopped once the client is done; the client must exit
# 0 with its connect and disconnect rows.
cmtime_pair() {
	local side=$1 n=$2 name=cmtime-$1 job rc ip clog pid
	if [ "$side" = guest ]; then
		ip=$RXD_INTEROP_GUEST_IP
		job=$("$H/guest-exec.sh" -b "cmtime -b $ip -c $n")
		sleep 3
		rxi_rxd_run "$name" cmtime -s "$ip" -c "$n" \
			>"$out/$name.rxd.log" 2>&1
		rc=$?
		"$H/guest-exec.sh" -k "$job" >/dev/null 2>&1
		"$H/guest-exec.sh" -o "$job" >"$out/$name.guest.log" 2>&1
		clog=$out/$name.rxd.log
	else
		ip=$RXD_INTEROP_RXD_IP
		rxi_rxd_run "$name" cmtime -b "$ip" -c "$n" \
			>"$out/$name.rxd.log" 2>&1 &
		pid=$!
		sleep 3
		"$H/guest-exec.sh" -t 120 "cmtime -s $ip -c $n" \
			>"$out/$name.guest.log" 2>&1
		rc=$?
		kill_tree "$pid"
		wait "$pid" 2>/dev/null
		clog=$out/$name.guest.log
	fi
	local con dis
	con=$(step_ms "$clog" connect)
	dis=$(step_ms "$clog" disconnect)
	echo "cmtime -c $n, $side serves: connect ${con:-?} ms," \
		"disconnect ${dis:-?} ms (client on the other side)"
	if [ $rc -eq 0 ] && [ -n "$con" ] && [ -n "$dis" ]; then
		echo "PASS: $name ($side serves): $n connections made and torn down"
		rxi_check_capture "$out/$name.pcapng"
	else
		echo "FAIL: $name ($side serves): client exit $rc"
		sed 's/^/    rxd   | /' "$out/$name.rxd.log" | tail -15
		sed 's/^/    guest | /' "$out/$name.guest.log" | tail -15
		failed=1
	fi
}

for side in guest rxd; do

	rxi_pair "rping-$side" $side "rping -s -a @S@ -V -C 10 -S 100" \
		"rping -c -a @S@ -V -C 10 -S 100 -v" "ping data: rdma-ping-9"
	rxi_pair "ucmatose-$side" $side "ucmatose -b @S@ -c 2 -C 10" \
		"ucmatose -s @S@ -c 2 -C 10" "test complete"
done
# last: the guest may take a while to tear a storm down (TCG)
for side in guest rxd; do
	cmtime_pair $side "${RXD_INTEROP_CMTIME_N:-100}"
done
[ -x "$checker" ] || echo "SKIP: roce-check not found ($checker); captures not checked"
echo "logs and captures: $out"
exit $failed
