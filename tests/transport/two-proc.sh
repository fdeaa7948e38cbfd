#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# RC between two rxd processes over net_memif (rc-two-proc server and
# client, each its own EAL): every opcode at 0 B .. 16 MiB, several SGEs,
# inline, unsignaled, fence, atomics, checked byte by byte; once at the
# default MTU (path MTU 1024), once with MTU 4200 over memif buffers of
# 8 KiB (path MTU 4096, above the 1518-byte frames memif reports).  An MTU
# that memif's buffers cannot carry must be refused with a message.  Then
# once more over net_af_packet on a veth pair at MTU 9000 (path MTU 4096).
# Usage: two-proc.sh RC_TWO_PROC
set -u
prog=$1
dir=$(mktemp -d /tmp/rxd-two-proc.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
fail=0
in_ns=""
ready=m.sock
vdev() { # role
	echo "net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no"
}
eal() { # role prefix ip vdev-extra rxd-extra
	echo "-l 0-1 --no-pci --no-huge -m 768 --file-prefix rxd2p$2$$" \
		"--vdev=$(vdev "$1")$4" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error" \
		"-- --ip $3/24 $5"
}

# run MTU-WANTED VDEV-EXTRA RXD-EXTRA [OVER]: one server/client pair
run() {
	local want=$1 over=${4:-memif} crc src
	rm -f "$dir/m.sock" "$dir/ctl.sock"
	# shellcheck disable=SC2046
	$in_ns "$prog" $(eal server s 10.0.0.1 "$2" "$3") server \
		"$dir/ctl.sock" >"$dir/s.log" 2>&1 &
	spid=$!
	# the server's memif socket; with af_packet, its control socket
	for _ in $(seq 50); do [ -S "$dir/$ready" ] && break; sleep 0.1; done
	# shellcheck disable=SC2046
	$in_ns "$prog" $(eal client c 10.0.0.2 "$2" "$3") client \
		"$dir/ctl.sock" >"$dir/c.log" 2>&1
	crc=$?
	wait $spid
	src=$?
	cat "$dir/c.log" "$dir/s.log" | grep -v "^TELEMETRY"
	if [ $crc = 0 ] && [ $src = 0 ] &&
	   grep -q "path MTU $want\$" "$dir/c.log"; then
		echo "PASS: every opcode, 0 B to 16 MiB, between two rxd" \
			"processes over $over, path MTU $want"
	else
		echo "FAIL: $over, path MTU $want: client exit $crc," \
			"server exit $src"
		fail=1
	fi
}
run 1024 "" ""
run 4096 ",bsize=8192" "--mtu 4200"

rm -f "$dir/m.sock"
# shellcheck disable=SC2046
out=$("$prog" $(eal server t 10.0.0.1 "" "--mtu 4200") server \
	"$dir/ctl2.sock" 2>&1)
if [ $? != 0 ] && grep -q "MTU 4200 outside the device's range .* (frames of at most bsize=2048 bytes)" <<<"$out"; then
	echo "PASS: MTU 4200 over memif's default bsize refused:" \
		"$(grep -o "port 0.*" <<<"$out")"
else
	echo "FAIL: MTU 4200 over memif's default bsize: $out"
	fail=1
fi

# Path MTU 4096 over net_af_packet on a kernel veth pair (MTU 9000) in a
# network namespace of this test's: af_packet reports 1518-byte frames
# too, and carries what its ring frames (framesz) hold.
ns=rxd2p$$
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null ||
   ! ip netns add "$ns" 2>/dev/null; then
	echo "SKIP: af_packet run (needs root and a network namespace)"
	exit $fail
fi
trap 'kill $(jobs -p) 2>/dev/null; ip netns del "$ns"; rm -rf "$dir"' EXIT
ip -n "$ns" link set lo up
ip -n "$ns" link add v0 type veth peer name v1
ip -n "$ns" link set v0 mtu 9000 up
ip -n "$ns" link set v1 mtu 9000 up
in_ns="ip netns exec $ns"
ready=ctl.sock
vdev() { # role
	[ "$1" = server ] && echo "net_af_packet0,iface=v0" ||
		echo "net_af_packet0,iface=v1"
}
run 4096 ",framesz=12288,blocksz=12288" "--mtu 9000" "af_packet (veth)"

# Ring frames larger than an mbuf can hold must be refused with a message.
# shellcheck disable=SC2046
out=$($in_ns "$prog" $(eal server t 10.0.0.1 ",framesz=65536,blocksz=65536" \
	"--mtu 9000") server "$dir/ctl3.sock" 2>&1)
if [ $? != 0 ] && grep -q "frames of 65536 bytes do not fit an mbuf" <<<"$out"
then
	echo "PASS: af_packet framesz=65536 refused:" \
		"$(grep -o "port 0.*" <<<"$out")"
else
	echo "FAIL: af_packet framesz=65536: $out"
	fail=1
fi
exit $fail
