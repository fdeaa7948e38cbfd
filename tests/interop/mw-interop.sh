#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# mw-interop.sh - rxd and Linux Soft-RoCE with interop-peer (interop_peer.c,
# built against the host's libibverbs and copied to the guest through the
# 9p share): a WRITE through a type 2 memory window, a SEND with
# Invalidate of its rkey and a WRITE through the dead rkey, with rxd and
# rdma_rxe in both roles; then ATOMIC WRITE both ways and FLUSH from rxd
# when the guest's kernel has them (6.2+: RXD_INTEROP_BACKPORTS_KERNEL=1
# boots Debian 12's backports kernel, 6.12), otherwise it says so and
# those frames are checked by roce-check only in rxd's own tests.  Then
# rxd's keepalive against rdma_rxe (test ka, rxd the client with
# keepalive_ms 200): its probes to an idle rdma_rxe QP are answered (its
# QP stays up, at least 5 probes in its capture), and once the guest
# destroyed its QP the client's receive flushes with IBV_EVENT_QP_FATAL.
# Every capture of rxd's port must pass roce-check when it exists.
#
# Usage: mw-interop.sh BUILD_DIR PEER   (root; exit 0 ok, 1 failed, 77 skipped)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rxi_script_init "${1:?usage: mw-interop.sh BUILD_DIR PEER}"
peer_bin=${2:?usage: mw-interop.sh BUILD_DIR PEER}
H=$RXD_INTEROP_HERE
port=18515
[ -e "$build/compat/libibverbs.so.1" ] || skip "no $build/compat/libibverbs.so.1"
[ -x "$peer_bin" ] || skip "no interop-peer at $peer_bin"

rxi_guest_up
rxi_tools_veth
cp "$peer_bin" "$RXD_INTEROP_SHARE/interop-peer"
gpeer=/mnt/rxd/interop-peer

# run NAME SERVER_SIDE TEST [KNOWN]: interop-peer server on SERVER_SIDE
# (guest or rxd), client on the other; a failure with KNOWN (the reason)
# is reported as KNOWN and not counted.
run() {
	local name=$1 side=$2 test=$3 known=${4:-} job rc grc
	if [ "$side" = guest ]; then
		job=$("$H/guest-exec.sh" -b "$gpeer server $test $port \$RXDG_GID_INDEX")
		rxi_rxd_run "$name" "$peer_bin" client "$test" \
			"$RXD_INTEROP_GUEST_IP" $port 1 >"$out/$name.rxd.log" 2>&1
		rc=$?
		"$H/guest-exec.sh" -t 60 -w "$job" >"$out/$name.guest.log" 2>&1
		grc=$?
		# a server left waiting would hold the port for the next run
		[ $grc -ne 124 ] || "$H/guest-exec.sh" -k "$job" >/dev/null 2>&1
	else
		rxi_rxd_run "$name" "$peer_bin" server "$test" $port 1 \
			>"$out/$name.rxd.log" 2>&1 &
		"$H/guest-exec.sh" -t 90 \
			"$gpeer client $test $kip $port \$RXDG_GID_INDEX" \
			>"$out/$name.guest.log" 2>&1
		grc=$?
		wait $!
		rc=$?
	fi
	if [ $rc -eq 0 ] && [ $grc -eq 0 ]; then
		echo "PASS: $test ($side serves): every check on both ends"
	elif [ -n "$known" ]; then
		echo "KNOWN: $test ($side serves): $known; not counted"
		grep -h '^FAIL' "$out/$name.rxd.log" "$out/$name.guest.log" |
			sed 's/^/    /'
	else
		echo "FAIL: $test ($side serves): rxd exit $rc, guest exit $grc"
		sed 's/^/    rxd   | /' "$out/$name.rxd.log" | tail -15
		sed 's/^/    guest | /' "$out/$name.guest.log" | tail -15
		failed=1
	fi
}

# check NAME: rxd's capture of run NAME must pass roce-check.
check() {
	local known=$failed
	rxi_check_capture "$out/$1.pcapng"
	[ $failed = "$known" ] || echo "FAIL: capture $1"
}

for side in guest rxd; do
	run "mw-$side" $side mw
	check "mw-$side"
done

RXD_KEEPALIVE_MS=200 run ka-guest guest ka
check ka-guest
# a probe: a 0-byte RDMA WRITE ONLY (opcode 10) from rxd
if ! command -v tshark >/dev/null; then
	echo "SKIP: tshark not installed: ka's probes not counted"
else
	probes=$(tshark -r "$out/ka-guest.pcapng" -Y "ip.src == \
		$RXD_INTEROP_RXD_IP && infiniband.bth.opcode == 10 && \
		infiniband.reth.dmalen == 0" 2>/dev/null | wc -l)
	if [ "$probes" -ge 5 ]; then
		echo "PASS: ka: rxd sent $probes keepalive probes to rdma_rxe"
	else
		echo "FAIL: ka: $probes keepalive probes in rxd's capture" \
			"(want 5 or more)"
		failed=1
	fi
fi

# ATOMIC WRITE and FLUSH: rdma_rxe has them from Linux 6.2.
kver=$("$H/guest-exec.sh" -t 30 uname -r 2>/dev/null | tr -d '\r')
kmaj=${kver%%.*} kmin=${kver#*.}
kmin=${kmin%%.*}
if [ -n "$kmaj" ] && { [ "$kmaj" -gt 6 ] ||
	{ [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 2 ]; }; }; then
	run "aw-guest" guest aw        # rxd sends ATOMIC WRITE
	check aw-guest
	run "aw-rxd" rxd aw            # rdma_rxe sends ATOMIC WRITE
	check aw-rxd
	# rxd sends FLUSH: rdma_rxe 6.12 drops it before its responder (no
	# answer, rcvd_pkts unchanged), see doc/interop.md
	run "awf-guest" guest awf \
		"rdma_rxe $kver drops rxd's FLUSH unanswered (doc/interop.md)"
	check awf-guest
	echo "SKIP: FLUSH from rdma_rxe: the guest's rdma-core 44 has no ibv_wr_flush"
else
	echo "SKIP: ATOMIC WRITE and FLUSH: the guest's kernel $kver predates them" \
		"(RXD_INTEROP_BACKPORTS_KERNEL=1 boots 6.12; rc-placement checks" \
		"rxd's frames with roce-check --strict)"
fi
[ -x "$checker" ] || echo "SKIP: roce-check not found ($checker); captures not checked"
echo "logs and captures: $out"
exit $failed
