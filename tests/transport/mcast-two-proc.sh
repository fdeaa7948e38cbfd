#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# UD multicast between two rxd processes over net_memif (mcast-two-proc
# server and client, each its own EAL): one sender, two receiving QPs and
# one with another Q_Key on the receiver; each message reaches each of the
# two once, byte-exact; after the detach nothing arrives.
# Usage: mcast-two-proc.sh MCAST_TWO_PROC
set -u
prog=$1
dir=$(mktemp -d /tmp/rxd-mcast-two-proc.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
eal() { # role prefix ip
	echo "-l 0-1 --no-pci --no-huge -m 256 --file-prefix rxdmc$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error" \
		"-- --ip $3/24"
}
# shellcheck disable=SC2046
"$prog" $(eal server s 10.0.0.1) server "$dir/ctl.sock" >"$dir/s.log" 2>&1 &
spid=$!
for _ in $(seq 50); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
# shellcheck disable=SC2046
"$prog" $(eal client c 10.0.0.2) client "$dir/ctl.sock" >"$dir/c.log" 2>&1
crc=$?
wait $spid
src=$?
cat "$dir/c.log" "$dir/s.log" | grep -v "^TELEMETRY"
if [ $crc = 0 ] && [ $src = 0 ]; then
	echo "PASS: multicast to two UD QPs between two rxd processes," \
		"wrong Q_Key and detached QPs get nothing"
	exit 0
fi
echo "FAIL: client exit $crc, server exit $src"
exit 1
