#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rs-interop.sh - rsockets between rxd and Linux Soft-RoCE with rdma-core's
# rsockets: Debian's unmodified rstream (verified 4 KiB and 64 KiB
# transfers) and riostream (riomap/riowrite, verified), rxd on the host
# side of the lab's bridge (compat librdmacm.so.1, 10.88.0.1) and the
# guest's librdmacm over rdma_rxe (10.88.0.11), in both roles: the same
# connection data, immediate data and credit SGEs must work each way.
# rxd captures every frame; when ../shared/tools/roce-check exists each
# capture must pass it.
#
# Usage: rs-interop.sh BUILD_DIR     (root; exit 0 ok, 1 failed, 77 skipped)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rxi_script_init "${1:?usage: rs-interop.sh BUILD_DIR}"
H=$RXD_INTEROP_HERE
[ -e "$build/compat/librdmacm.so.1" ] || skip "no $build/compat/librdmacm.so.1"
command -v rstream >/dev/null || skip "rdmacm-utils not installed"

rxi_guest_up

# pair NAME SERVER_SIDE "SERVER ARGS" "CLIENT ARGS" CHECK: the server
# binds its own address (@S@); both must exit 0 and the client's output
# hold CHECK.
pair() {
	local name=$1 side=$2 sargs=$3 cargs=$4 check=$5 job rc grc ip clog
	if [ "$side" = guest ]; then
		ip=$RXD_INTEROP_GUEST_IP
		job=$("$H/guest-exec.sh" -b "${sargs//@S@/$ip}")
		sleep 3
		rxi_rxd_run "$name" ${cargs//@S@/$ip} >"$out/$name.rxd.log" 2>&1
		rc=$?
		"$H/guest-exec.sh" -t 90 -w "$job" >"$out/$name.guest.log" 2>&1
		grc=$?
		clog=$out/$name.rxd.log
	else
		ip=$RXD_INTEROP_RXD_IP
		rxi_rxd_run "$name" ${sargs//@S@/$ip} >"$out/$name.rxd.log" 2>&1 &
		sleep 3
		"$H/guest-exec.sh" -t 90 "${cargs//@S@/$ip}" \
			>"$out/$name.guest.log" 2>&1
		grc=$?
		wait $!
		rc=$?
		clog=$out/$name.guest.log
	fi
	if [ $rc -eq 0 ] && [ $grc -eq 0 ] && grep -Eq "$check" "$clog"; then
		echo "PASS: $name ($side serves): both ends complete"
		rxi_check_capture "$out/$name.pcapng"
	else
		echo "FAIL: $name ($side serves): rxd exit $rc, guest exit $grc"
		sed 's/^/    rxd   | /' "$out/$name.rxd.log" | tail -15
		sed 's/^/    guest | /' "$out/$name.guest.log" | tail -15
		failed=1
	fi
}

for side in guest rxd; do
	pair "rstream-4k-$side" $side "rstream -b @S@ -S 4096 -C 100 -T v" \
		"rstream -s @S@ -S 4096 -C 100 -T v" "^custom "
	pair "rstream-64k-$side" $side "rstream -b @S@ -S 65536 -C 50 -T v" \
		"rstream -s @S@ -S 65536 -C 50 -T v" "^custom "
	pair "riostream-$side" $side "riostream -b @S@ -S 65536 -C 50 -T v" \
		"riostream -s @S@ -S 65536 -C 50 -T v" "^custom "
done
[ -x "$checker" ] || echo "SKIP: roce-check not found ($checker); captures not checked"
echo "logs and captures: $out"
exit $failed
