#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# fork() after a lazy start, between two rxd processes over net_memif:
# each side forks a child that must get ENODEV and exit without touching
# its parent's stack (the memif server's socket, the EAL files, the link),
# then the parents exchange a SEND.  The EAL command lines name no
# --file-prefix: each process gets one of its own, and its runtime
# directory must be gone after it exits.  A stale socket file (a dead
# server's) waits at the server's path first and must not stop it.
# Usage: fork-after-start.sh FORK_AFTER_START
set -u
prog=$1
dir=$(mktemp -d /tmp/rxd-fork.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
export RXD_LINK_WAIT_MS=50000
eal() { # role
	echo "-l 0-1 --no-pci --no-huge -m 256" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
	"$dir/m.sock" || { echo "FAIL: cannot make the stale socket"; exit 1; }
RXD_EAL_ARGS=$(eal server) RXD_ADDR=10.0.0.1/24 \
	"$prog" server "$dir/ctl.sock" >"$dir/s.log" 2>&1 &
spid=$!
sleep 1
for _ in $(seq 100); do [ -S "$dir/ctl.sock" ] && break; sleep 0.1; done
RXD_EAL_ARGS=$(eal client) RXD_ADDR=10.0.0.2/24 \
	"$prog" client "$dir/ctl.sock" >"$dir/c.log" 2>&1 &
cpid=$!
wait $cpid
crc=$?
wait $spid
src=$?
cat "$dir/c.log" "$dir/s.log" | grep -v "^TELEMETRY"
left=""
for p in $spid $cpid; do
	for d in /var/run/dpdk/rxd-$p "${XDG_RUNTIME_DIR:-/tmp}/dpdk/rxd-$p"; do
		[ -e "$d" ] && left="$left $d"
	done
done
if [ $crc = 0 ] && [ $src = 0 ] && [ -z "$left" ]; then
	echo "PASS: fork children refused with ENODEV, parents unharmed," \
		"own file prefixes removed, stale socket replaced"
	exit 0
fi
echo "FAIL: client exit $crc, server exit $src, prefixes left:${left:- none}"
exit 1
