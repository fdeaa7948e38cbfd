#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One two-process test program (PROG server and PROG client, each its own
# EAL) between two rxd processes over net_memif, the server on 10.0.0.1,
# the client on 10.0.0.2, meeting on a UNIX control socket: both must
# exit 0.  Used by mw-two-proc (a type 2 window written, invalidated by a
# SEND with Invalidate, then refused with nothing written) and
# mcast-two-proc (one sender, two receiving UD QPs and one with another
# Q_Key; each message reaches each of the two once, byte-exact; after the
# detach nothing arrives).
# Usage: memif-pair.sh PROG WHAT (WHAT: the PASS line's text)
set -u
prog=$1
what=$2
name=$(basename "$prog")
dir=$(mktemp -d "/tmp/rxd-$name.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
eal() { # role prefix ip
	echo "-l 0-1 --no-pci --no-huge -m 256 --file-prefix rxd$name$2$$" \
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
	echo "PASS: $what"
	exit 0
fi
echo "FAIL: $name: client exit $crc, server exit $src"
exit 1
