#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Debian's unmodified mckey (rdmacm-utils) between two rxd processes over
# net_memif, through build/compat/librdmacm.so.1 and libibverbs.so.1: a
# receiver (-m GROUP -b 10.0.0.1) joins with rdma_join_multicast_ex and
# waits for -C messages on each of its -c UD QPs; once it says "receiving
# data transfers" a sender (-s -b 10.0.0.2) joins and sends them.  Runs:
# IPv4 239.1.1.1 with two receiving QPs, IPv6 ff0e::1:2:3, a send-only
# join (-o) and a sender without multicast loopback (-l).  Both sides of
# each run must exit 0 and the receiver must report the transfers done.
# The receiver starts without waiting for its link (RXD_LINK_WAIT_MS
# empty): memif comes up only when the sender's process starts.
# Usage: mckey.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/rxd-mckey.XXXXXX)
fail=0
command -v mckey >/dev/null || { echo "SKIP: rdmacm-utils not installed"; exit 77; }
# shellcheck source=../lib/compat-env.sh
. "$here/../lib/compat-env.sh" "$build"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT

eal() { # role prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdmk$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# run NAME "RECEIVER ARGS" "SENDER ARGS"
run() {
	local name=$1 rargs=$2 sargs=$3 r s
	rm -f "$dir/m.sock" "$dir/$name.r"
	# shellcheck disable=SC2086
	RXD_LINK_WAIT_MS= RXD_EAL_ARGS=$(eal server r) \
		RXD_ADDR=10.0.0.1/24,fd88::1/64 \
		timeout 60 stdbuf -oL mckey $rargs >"$dir/$name.r" 2>&1 &
	r=$!
	for _ in $(seq 600); do
		grep -q "receiving data transfers" "$dir/$name.r" && break
		kill -0 $r 2>/dev/null || break
		sleep 0.1
	done
	# shellcheck disable=SC2086
	RXD_LINK_WAIT_MS=30000 RXD_EAL_ARGS=$(eal client s) \
		RXD_ADDR=10.0.0.2/24,fd88::2/64 \
		timeout 60 stdbuf -oL mckey $sargs >"$dir/$name.s" 2>&1
	s=$?
	wait $r
	r=$?
	if [ $r = 0 ] && [ $s = 0 ] &&
	   grep -q "data transfers complete" "$dir/$name.r"; then
		echo "PASS: $name (mckey $rargs / mckey $sargs)"
	else
		echo "FAIL: $name (receiver exit $r, sender exit $s)"
		tail -n 8 "$dir/$name.r" "$dir/$name.s" | sed 's/^/    | /'
		fail=1
	fi
}

run ipv4-two-qps "-m 239.1.1.1 -b 10.0.0.1 -c 2 -C 20 -S 1000" \
	"-m 239.1.1.1 -s -b 10.0.0.2 -C 20 -S 1000"
run ipv6 "-m ff0e::1:2:3 -b fd88::1 -C 20 -S 100" \
	"-m ff0e::1:2:3 -s -b fd88::2 -C 20 -S 100"
run send-only "-m 239.1.1.2 -b 10.0.0.1 -C 10" \
	"-m 239.1.1.2 -s -o -b 10.0.0.2 -C 10"
run no-loopback "-m 239.1.1.3 -b 10.0.0.1 -C 10" \
	"-m 239.1.1.3 -s -l -b 10.0.0.2 -C 10"
exit $fail
