#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Smoke test of rxd-memif-raw (the raw memif baseline): rx against tx and
# fwd against ping, one second each, over net_memif between two
# processes.  Every line must parse (key=value, then --json), the counts
# must be above 0, and tx's peer count must be what rx counted.
# Usage: memif-raw.sh RXD_MEMIF_RAW
# shellcheck disable=SC2317 # jcheck and positive run through check
set -u
prog=$1
dir=$(mktemp -d /tmp/rxd-memif-raw.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
fail=0

eal() { # role prefix lcore
	echo "-l $3 --no-pci --no-huge -m 256 --file-prefix rxdraw$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# pair SERVER_MODE CLIENT_MODE ARGS...: memif server on lcore 0, client on 1
pair() {
	local sm=$1 cm=$2 src crc
	shift 2
	rm -f "$dir/m.sock"
	# shellcheck disable=SC2046
	timeout 30 "$prog" $(eal server s 0) -- "$sm" -t 1 "$@" >"$dir/$sm.out" 2>"$dir/$sm.err" &
	for _ in $(seq 100); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
	# shellcheck disable=SC2046
	timeout 30 "$prog" $(eal client c 1) -- "$cm" -t 1 "$@" >"$dir/$cm.out" 2>"$dir/$cm.err"
	crc=$?
	wait $!
	src=$?
	check "$sm and $cm exit 0" [ "$src$crc" = 00 ]
	[ "$src$crc" = 00 ] || cat "$dir/$sm.err" "$dir/$cm.err"
}

check() { # NAME COMMAND...
	local name=$1
	shift
	if "$@" >/dev/null; then
		echo "PASS: $name"
	else
		echo "FAIL: $name"
		fail=1
	fi
}

# field FILE KEY: the value of KEY in the key=value line of FILE
field() {
	sed -n "s/^memif-raw measure=.* $2=\([-0-9.]*\)\( .*\)\?$/\1/p" "$1"
}

# jcheck FILE PYTHON_EXPR: the expression over the JSON line of FILE (j)
# is true (python3 is there: meson runs on it)
jcheck() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

# positive NUMBER: its integer part is above 0
positive() { [ "${1%%.*}" -gt 0 ] 2>/dev/null; }

pair rx tx -s 64
cat "$dir/rx.out" "$dir/tx.out"
check "rx line parses" grep -qE '^memif-raw measure=rx( [a-z_0-9]+=-?[0-9.]+)+$' "$dir/rx.out"
check "tx line parses" grep -qE '^memif-raw measure=tx( [a-z_0-9]+=-?[0-9.]+)+$' "$dir/tx.out"
check "rx counted frames" positive "$(field "$dir/rx.out" frames)"
check "rx frame rate > 0" positive "$(field "$dir/rx.out" fps)"
check "tx sent frames" positive "$(field "$dir/tx.out" frames)"
check "tx learnt rx's count" [ "$(field "$dir/tx.out" peer_frames)" = "$(field "$dir/rx.out" frames)" ]
check "rx got every frame tx sent" [ "$(field "$dir/rx.out" frames)" = "$(field "$dir/tx.out" frames)" ]
check "rx frames are 64 B" [ "$(field "$dir/rx.out" size)" = 64 ]

pair fwd ping -s 128 --json
cat "$dir/fwd.out" "$dir/ping.out"
check "fwd JSON parses" jcheck "$dir/fwd.out" 'j["measure"] == "fwd"'
check "ping JSON parses" jcheck "$dir/ping.out" 'j["measure"] == "rtt"'
check "ping got round trips" jcheck "$dir/ping.out" 'j["samples"] > 0'
check "fwd echoed frames" jcheck "$dir/fwd.out" 'j["forwarded"] > 0'
check "round trip 0 < min <= median <= p99 <= max" jcheck "$dir/ping.out" \
	'0 < j["min_us"] <= j["median_us"] <= j["p99_us"] <= j["max_us"]'
[ $fail = 0 ] && echo "PASS: raw memif tool" && exit 0
exit 1
