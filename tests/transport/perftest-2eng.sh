#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's unmodified ib_write_bw -q 16 between two rxd processes, two
# engines on each side's port (RXD_ENGINES_PER_PORT=2, two queue pairs,
# three lcores floating over the CPUs there are): both exit 0 and the
# client reports its bandwidth line.  LINK memif (the default) joins them
# with net_memif; afpacket with net_af_packet (qpairs=2) on the two ends
# of a veth pair, where the kernel's fanout, not rxd, picks each frame's
# queue, so frames reach the wrong engine and are handed off.  Each
# side's engines report at exit (RXD_ENGINE_STATS): both of the server's
# took RoCE frames, and over memif (lanes) neither handed a frame off.
# (Over af_packet a slow owner's full ring drops hand-offs, which RC
# resends: counted, not asserted.)  Runs in a network namespace of its own.
# Usage: perftest-2eng.sh BUILD_DIR [LINK]
set -u
build=$1
link=${2:-memif}
here=$(cd "$(dirname "$0")" && pwd)
command -v ib_write_bw >/dev/null || { echo "SKIP: perftest not installed"; exit 77; }
# perftest's TCP side channel stays in a network namespace of the test's
# own holding only lo.
if [ -z "${RXD_PT2_NETNS:-}" ]; then
	unshare --net true 2>/dev/null ||
		{ echo "SKIP: cannot create a network namespace"; exit 77; }
	exec env RXD_PT2_NETNS=1 unshare --net "$0" "$@"
fi
ip link set lo up
if [ "$link" = afpacket ]; then
	# far-apart indexes: DPDK 22.11's af_packet fanout group is
	# (pid ^ ifindex) & 0xffff, which two processes must not share
	ip link add pta index 40000 type veth peer name ptb index 9 &&
		ip link set pta up && ip link set ptb up ||
		{ echo "SKIP: cannot create a veth pair"; exit 77; }
fi
dir=$(mktemp -d /tmp/rxd-pt2eng.XXXXXX)
# shellcheck source=../lib/compat-env.sh
. "$here/../lib/compat-env.sh" "$build"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
export RXD_LINK_WAIT_MS=50000 RXD_ENGINES_PER_PORT=2 RXD_ENGINE_STATS=1
port=$((20000 + $$ % 20000))

eal() { # role prefix
	local vdev="net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no"
	[ "$link" = afpacket ] && vdev="net_af_packet0,iface=pt$2,qpairs=2"
	echo "--lcores=(0-2)@(0-1) --no-pci --no-huge -m 512" \
		"--file-prefix rxdq$2$$ --vdev=$vdev" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

args="-d rxd0 -x 1 -p $port -q 16 -s 65536 -n 200"
# shellcheck disable=SC2086
RXD_EAL_ARGS=$(eal server a) RXD_ADDR=10.0.0.1/24 timeout 200 \
	ib_write_bw $args >"$dir/s" 2>&1 &
s=$!
[ "$link" = afpacket ] ||
	for _ in $(seq 300); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
# shellcheck disable=SC2086
RXD_EAL_ARGS=$(eal client b) RXD_ADDR=10.0.0.2/24 timeout 200 \
	"$here/../lib/retry-connect.sh" ib_write_bw $args 127.0.0.1 \
	>"$dir/c" 2>&1
c=$?
wait $s
s=$?
if [ $s != 0 ] || [ $c != 0 ] || ! grep -Eq '^ *65536 +3200 ' "$dir/c"; then
	echo "FAIL: ib_write_bw -q 16 with two engines: server $s, client $c"
	tail -n 15 "$dir/s" "$dir/c"
	exit 1
fi
grep -E '^ *65536 +3200 ' "$dir/c"
# the engines' reports at exit: the server's two (the side receiving the
# data) are asserted; the client's, printed when it wrote them (in the
# full suite its stderr at exit was sometimes missing: see doc/testing.md)
grep -o 'rxd engine [0-9]*: .*' "$dir/c" | tail -n 2
grep -o 'rxd engine [0-9]*: .*' "$dir/s" | tail -n 2 >"$dir/engines"
cat "$dir/engines"
# field value of each "rxd engine" line: roce_rx, handoff_sent, ...
if ! awk -v link="$link" '
	{ for (i = 1; i < NF; i++) v[$i] = $(i + 1); n++
	  if (v["roce_rx"] == 0) { print "FAIL: an engine took no RoCE frame: " $0; bad = 1 }
	  if (link == "memif" && v["handoff_sent"] != 0) {
		print "FAIL: lanes, yet frames handed off: " $0; bad = 1 }
	  sent += v["handoff_sent"]; dropped += v["handoff_dropped"] }
	END { if (n != 2) { print "FAIL: " n " server engine reports, not 2"; bad = 1 }
	      print "server hand-offs: " sent ", dropped (ring full) " dropped
	      exit bad }' "$dir/engines"; then
	exit 1
fi
echo "ib_write_bw -q 16, two engines a side over $link: ok"
