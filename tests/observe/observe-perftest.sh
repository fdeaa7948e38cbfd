#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# dpdk-telemetry.py on an unmodified program: Debian's ib_write_bw on rxd
# (through build/compat), two processes over net_memif.  While the client
# writes, the client's /rxd/qps must list its RC QP in RTS, /rxd/qp,QPN must
# show its packet counter and PSN growing, /rxd/ports and /rxd/engines must
# answer; once with an engine lcore on the client, once with its engine
# run inline by the program's threads (one lcore).  Telemetry needs no
# hugepages: EAL runs with --no-huge here.
# Usage: observe-perftest.sh BUILD_DIR (root: a network namespace)
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v ib_write_bw >/dev/null || { echo "SKIP: perftest not installed"; exit 77; }
command -v dpdk-telemetry.py >/dev/null ||
	{ echo "SKIP: dpdk-telemetry.py not installed (Debian package dpdk)"; exit 77; }
# perftest meets its peer over TCP: in a network namespace of the test's
# own that holds only lo, so nothing leaves the machine and no other run's
# tools can answer on perftest's port
if [ -z "${RXD_OBPT_NETNS:-}" ]; then
	unshare --net true 2>/dev/null ||
		{ echo "SKIP: cannot create a network namespace"; exit 77; }
	exec env RXD_OBPT_NETNS=1 unshare --net "$0" "$@"
fi
ip link set lo up || { echo "FAIL: lo of the test's namespace"; exit 1; }
dir=$(mktemp -d /tmp/rxd-observe-pt.XXXXXX)
fail=0 spid='' cpid=''
pfx=rxdobpt$$
trap 'kill $spid $cpid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir" /var/run/dpdk/${pfx}[sc]*' EXIT
ok() { echo "PASS: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# The tools' environment (compat libibverbs.so.1, ASan's runtime), given to
# the tools only: not to dpdk-telemetry.py and python.
# shellcheck source=../lib/compat-env.sh
. "$here/../lib/compat-env.sh" "$build"
tool_env=(LD_LIBRARY_PATH="$LD_LIBRARY_PATH" LD_PRELOAD="${LD_PRELOAD:-}"
	ASAN_OPTIONS="${ASAN_OPTIONS:-}" RXD_LINK_WAIT_MS=50000)
unset LD_LIBRARY_PATH LD_PRELOAD ASAN_OPTIONS
eal() { # role prefix lcores
	echo "-l $3 --no-pci --no-huge -m 512 --file-prefix $pfx$2$3" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}
# tel CMD KEY...: the fields of the client's reply to CMD, one a line.
tel() {
	local cmd=$1
	shift
	echo "$cmd" | timeout 120 dpdk-telemetry.py -f "${pfx}c$lc" | "$here/tel_field.py" "$@"
}

# observe LCORES MODE: a pair with the client on EAL lcores LCORES, whose
# engine /rxd/engines must report as MODE; then both are stopped.
observe() {
	local lc=$1 mode=$2 qpn='' tx1=0 tx2 psn1 psn2 dq drv roce qps loops m
	echo "client -l $lc:"
	rm -f "$dir/m.sock"
	env "${tool_env[@]}" RXD_EAL_ARGS="$(eal server s 0-1)" RXD_ADDR=10.0.0.1/24 \
		timeout 600 ib_write_bw -d rxd0 -x 1 -s 4096 -D 400 >"$dir/s.out" 2>&1 &
	spid=$!
	for _ in $(seq 1200); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
	env "${tool_env[@]}" RXD_EAL_ARGS="$(eal client c "$lc")" RXD_ADDR=10.0.0.2/24 \
		timeout 600 "$here/../lib/retry-connect.sh" ib_write_bw -d rxd0 -x 1 \
		-s 4096 -D 400 127.0.0.1 >"$dir/c.out" 2>&1 &
	cpid=$!

	# The client's RC QP in RTS, as /rxd/qps lists it (QP1 may be there too).
	for _ in $(seq 120); do
		qpn=$( { tel /rxd/qps qpn type state 2>/dev/null || true; } | python3 -c '
import sys
rows = [l.split() for l in sys.stdin.read().splitlines()]
if len(rows) == 3:
    for q, t, s in zip(*rows):
        if (t, s) == ("RC", "RTS"):
            print(q)
            break')
		[ -n "$qpn" ] && break
		sleep 0.5
	done
	[ -n "$qpn" ] && ok "/rxd/qps of ib_write_bw lists RC QP $qpn in RTS" ||
		bad "/rxd/qps of ib_write_bw shows no RC QP in RTS"
	if [ -n "$qpn" ]; then
		# The first WRITEs follow RTS once perftest has exchanged its buffers.
		for _ in $(seq 120); do
			{ read -r tx1; read -r psn1; } < <(tel "/rxd/qp,$qpn" tx_pkts sq_psn)
			[ "${tx1:-0}" -gt 0 ] 2>/dev/null && break
			sleep 0.5
		done
		sleep 1
		{ read -r tx2; read -r psn2; read -r dq; } < <(tel "/rxd/qp,$qpn" tx_pkts sq_psn dest_qpn)
		[ "${tx2:-0}" -gt "${tx1:-0}" ] 2>/dev/null && [ "$psn2" != "$psn1" ] &&
			ok "/rxd/qp,$qpn: tx_pkts $tx1 -> $tx2, sq_psn $psn1 -> $psn2, dest_qpn $dq" ||
			bad "/rxd/qp,$qpn: tx_pkts '$tx1' -> '$tx2', sq_psn '$psn1' -> '$psn2'"
	fi
	{ read -r drv; read -r roce; } < <(tel /rxd/ports driver roce_rx)
	[ "$drv" = net_memif ] && [ "${roce:-0}" -gt 0 ] 2>/dev/null &&
		ok "/rxd/ports: net_memif, roce_rx $roce" || bad "/rxd/ports: driver '$drv' roce_rx '$roce'"
	{ read -r qps; read -r loops; read -r m; } < <(tel /rxd/engines qps loops mode)
	[ "${qps:-0}" -ge 1 ] 2>/dev/null && [ "${loops:-0}" -gt 0 ] 2>/dev/null &&
		[ "$m" = "$mode" ] && ok "/rxd/engines: $m engine, $qps QP(s), $loops loops" ||
		bad "/rxd/engines: mode '$m' (not $mode) qps '$qps' loops '$loops'"
	if [ $fail != 0 ]; then
		echo "--- server"; tail -20 "$dir/s.out"; echo "--- client"; tail -20 "$dir/c.out"
	fi
	kill "$spid" "$cpid" 2>/dev/null
	wait "$spid" "$cpid" 2>/dev/null
	spid='' cpid=''
}

observe 0-1 lcore
observe 1 inline
exit $fail
