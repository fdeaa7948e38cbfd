#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Connection storms: Debian's unmodified cmtime opens N connections at
# once between two rxd processes over net_memif (each -l 0-1), through
# build/compat/librdmacm.so.1, for N = 50, 500 and 1000.  The client must
# exit 0 with its connect and disconnect rows.  For N <= 500 neither side
# may report a QP1 drop ("rxd cm: QP1 ... dropped"): the MADs that reach
# a side in one step (REQs and RTUs, or DREQs and DREPs) are at most 2N,
# within QP1's 1024 receive buffers however late its CM thread runs, so
# this count cannot flake; each such drop costs a 4.6 s CM response
# timeout (issue 22's stalls).  CM resends are shown, not judged: a peer
# that takes over 4.6 s to accept on a loaded machine causes them.
# Prints N, the connect and disconnect totals, drops and resends.
# Usage: cm-storm.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/rxd-cm-storm.XXXXXX)
fail=0
command -v cmtime >/dev/null || { echo "SKIP: rdmacm-utils not installed"; exit 77; }
# shellcheck source=../lib/compat-env.sh
. "$here/../lib/compat-env.sh" "$build"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
export RXD_LINK_WAIT_MS=50000

eal() { # role prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdst$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# step_ms LOG STEP: the total ms of a cmtime step row, or empty.
step_ms() {
	awk -v s="$2" '$1 == s && $2 == ":" { print $3 }' "$1"
}

# storm N: the server (cmtime -c N) waits for the next round once done,
# so it is stopped when the client has finished.
storm() {
	local n=$1 s c con dis drops resends
	rm -f "$dir/m.sock"
	# shellcheck disable=SC2086
	RXD_EAL_ARGS=$(eal server s) RXD_ADDR=10.0.0.1/24 \
		timeout 120 cmtime -c "$n" >"$dir/s$n" 2>&1 &
	s=$!
	for _ in $(seq 300); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
	# shellcheck disable=SC2086
	RXD_EAL_ARGS=$(eal client c) RXD_ADDR=10.0.0.2/24 \
		timeout 120 cmtime -s 10.0.0.1 -c "$n" >"$dir/c$n" 2>&1
	c=$?
	kill $s 2>/dev/null
	wait $s 2>/dev/null
	con=$(step_ms "$dir/c$n" connect)
	dis=$(step_ms "$dir/c$n" disconnect)
	drops=$(cat "$dir/s$n" "$dir/c$n" | grep -c "^rxd cm: QP1 .* dropped")
	resends=$(cat "$dir/s$n" "$dir/c$n" | grep -c "^rxd cm: no answer")
	echo "N=$n connect ${con:-?} ms disconnect ${dis:-?} ms;" \
		"QP1 drop reports $drops, CM resends $resends"
	if [ $c != 0 ] || [ -z "$con" ] || [ -z "$dis" ]; then
		echo "FAIL: cmtime -c $n (client exit $c)"
	elif [ "$n" -le 500 ] && [ "$drops" != 0 ]; then
		echo "FAIL: cmtime -c $n: QP1 dropped MADs"
	else
		echo "PASS: cmtime -c $n"
		return
	fi
	fail=1
	tail -n 12 "$dir/s$n" "$dir/c$n" | sed 's/^/    | /'
}

storm 50
storm 500
storm 1000
exit $fail
