#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Connection storms: Debian's unmodified cmtime opens N connections at
# once between two rxd processes over net_memif (each -l 0-1), through
# build/compat/librdmacm.so.1, for N = 50 then 1000.  A storm must cost
# no MAD: neither side may report a QP1 drop or a CM resend ("rxd cm:"
# lines, which each stand for a 4.6 s response timeout), the client must
# exit 0 with its connect and disconnect rows, and each of those steps
# must take under one CM response timeout (4,608 ms), a bound far above
# the loss-free time.  Prints N and the connect / disconnect totals.
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
	local n=$1 s c con dis
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
	echo "N=$n connect ${con:-?} ms disconnect ${dis:-?} ms"
	if [ $c != 0 ] || [ -z "$con" ] || [ -z "$dis" ]; then
		echo "FAIL: cmtime -c $n (client exit $c)"
		fail=1
	elif grep -h "^rxd cm:" "$dir/s$n" "$dir/c$n" | sort | uniq -c |
	     sed 's/^/    | /' | grep .; then
		echo "FAIL: cmtime -c $n lost MADs (above)"
		fail=1
	elif ! awk -v a="$con" -v b="$dis" 'BEGIN { exit !(a < 4608 && b < 4608) }'; then
		echo "FAIL: cmtime -c $n: a step took a CM response timeout"
		fail=1
	else
		echo "PASS: cmtime -c $n"
		return
	fi
	tail -n 12 "$dir/s$n" "$dir/c$n" | sed 's/^/    | /'
}

storm 50
storm 1000
exit $fail
