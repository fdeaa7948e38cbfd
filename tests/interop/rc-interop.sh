#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rc-interop.sh - rxd and Linux Soft-RoCE: Debian's unmodified
# ibv_rc_pingpong, perftest (ib_write_bw, ib_read_bw, ib_send_lat,
# ib_atomic_bw), ibv_ud_pingpong and ibv_uc_pingpong with rxd on the host side of the lab's bridge (net_af_packet
# on rxdh0, 10.88.0.1) and rdma_rxe in the guest (10.88.0.11), in both roles.
# The TCP exchange of the tools runs over a kernel veth (10.88.0.254). rxd
# captures every frame to pcapng; when ../shared/tools/roce-check exists (CI)
# each capture must pass it.
#
# Usage: rc-interop.sh BUILD_DIR     (root; exit 0 ok, 1 failed, 77 skipped)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rxi_script_init "${1:?usage: rc-interop.sh BUILD_DIR}"
H=$RXD_INTEROP_HERE
[ -e "$build/compat/libibverbs.so.1" ] || skip "no $build/compat/libibverbs.so.1"
command -v ib_write_bw >/dev/null || skip "perftest not installed"

rxi_guest_up
rxi_tools_veth

# The path MTU both ends should agree on at the lab's MTU: the largest of
# 256..4096 that fits MTU - 80 (rxd's and Soft-RoCE's active MTU).
pmtu=4096
while [ $pmtu -gt 256 ] && [ $pmtu -gt $((RXD_INTEROP_MTU - 80)) ]; do
	pmtu=$((pmtu / 2))
done

# pair NAME SERVER_SIDE TOOL ARGS: SERVER_SIDE is guest or rxd
pair() {
	local name=$1 side=$2 tool=$3 args=$4 job rc grc dev_g=rxe0 dev_r=rxd0
	local gx="-g 1" rx="-g 1"
	case $tool in ib_*) gx="-x 1" rx="-x 1" ;; esac
	if [ "$side" = guest ]; then
		job=$("$H/guest-exec.sh" -b "$tool -d $dev_g $gx $args")
		sleep 3
		rxi_rxd_run "$name" "$tool" -d "$dev_r" $rx $args "$RXD_INTEROP_GUEST_IP" \
			>"$out/$name.rxd.log" 2>&1
		rc=$?
		"$H/guest-exec.sh" -t 60 -w "$job" >"$out/$name.guest.log" 2>&1
		grc=$?
	else
		rxi_rxd_run "$name" "$tool" -d "$dev_r" $rx $args \
			>"$out/$name.rxd.log" 2>&1 &
		sleep 3
		"$H/guest-exec.sh" -t 60 "$tool -d $dev_g $gx $args $kip" \
			>"$out/$name.guest.log" 2>&1
		grc=$?
		wait $!
		rc=$?
	fi
	if [ $rc -eq 0 ] && [ $grc -eq 0 ]; then
		echo "PASS: $tool $args ($side serves): both ends complete"
		rxi_check_capture "$out/$name.pcapng"
		# perftest prints the path MTU it used on rxd's side
		case $tool in ib_*)
			if grep -q "Mtu *: $pmtu\[B\]" "$out/$name.rxd.log"; then
				echo "PASS: $tool ($side serves) ran at path MTU $pmtu"
			else
				echo "FAIL: $tool ($side serves) did not run at" \
					"path MTU $pmtu: $(grep -m1 Mtu "$out/$name.rxd.log")"
				failed=1
			fi ;;
		esac
	else
		echo "FAIL: $tool $args ($side serves): rxd exit $rc, guest exit $grc"
		sed 's/^/    rxd   | /' "$out/$name.rxd.log" | tail -15
		sed 's/^/    guest | /' "$out/$name.guest.log" | tail -15
		failed=1
	fi
}

for side in guest rxd; do
	pair "pingpong-$side" $side ibv_rc_pingpong "-n 20 -s 4096"
	pair "write-bw-$side" $side ib_write_bw "-s 65536 -n 50"
	pair "read-bw-$side" $side ib_read_bw "-s 65536 -n 50"
	pair "send-lat-$side" $side ib_send_lat "-s 8 -n 100"
	pair "atomic-bw-$side" $side ib_atomic_bw "-n 100"
	pair "ud-pingpong-$side" $side ibv_ud_pingpong "-n 20 -s 512 -c"
	pair "uc-pingpong-$side" $side ibv_uc_pingpong "-n 20 -s 4096 -c"
done
[ -x "$checker" ] || echo "SKIP: roce-check not found ($checker); captures not checked"
echo "logs and captures: $out"
exit $failed
