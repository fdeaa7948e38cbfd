#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Two rxd-testpmd processes over net_memif, each driven by a batch file:
# ports, GIDs, an RC connection set up over TCP, counted send, write and
# read traffic with data checks, 5% of the client's frames dropped during
# a write run (retransmissions must repair it), a capture of that run, a
# run until stopped with the periodic traffic line, and the counters that
# must have moved.  Asserts on the printed output.
# Usage: testpmd-memif.sh RXD_TESTPMD
set -u
prog=$1
dir=$(mktemp -d /tmp/rxd-testpmd.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
fail=0
tcp=$((20000 + $$ % 20000))
rx_total=1100                  # 400 send + 400 write + 300 write

eal() { # role prefix ip
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdtp$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error" \
		"-- --ip $3/24"
}

cat >"$dir/server.cmds" <<END
wait link 0 up 30
show ports
show gids
listen $tcp
show qps
wait rx $rx_total 60
show stats
# the client quits first: a memif server must outlive its client
wait link 0 down 60
quit
END

cat >"$dir/client.cmds" <<END
wait link 0 up 30
show ports
show gids
connect 127.0.0.1 $tcp
show qps
show neigh
set stats-period 1
start traffic send 4096 16 400
wait traffic 60
start traffic write 4096 16 400
wait traffic 60
start traffic read 4096 8 100
wait traffic 60
capture start 0 $dir/c.pcapng
set fault 0 tx drop 5%
start traffic write 1024 8 300
wait traffic 60
set fault 0 tx drop 0
capture stop 0
start traffic read 1024 4
sleep 2
stop traffic
show stats
show mem
quit
END

ok() { echo "PASS: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# expect FILE REGEX WHAT: some line of FILE matches the extended REGEX
expect() {
	if grep -Eq "$2" "$1"; then ok "$3"; else bad "$3 (no /$2/ in $(basename "$1"))"; fi
}

# counter FILE WHERE NAME: value of a "WHERE NAME VALUE" line of show stats
counter() {
	awk -v w="^$2 " -v n="$3" '$0 ~ w && $(NF-1) == n { v = $NF } END { print v + 0 }' "$1"
}

# shellcheck disable=SC2046
"$prog" $(eal server s 10.0.0.1) --cmdline-file "$dir/server.cmds" >"$dir/s.out" 2>&1 &
spid=$!
for _ in $(seq 100); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
# shellcheck disable=SC2046
"$prog" $(eal client c 10.0.0.2) --cmdline-file "$dir/client.cmds" >"$dir/c.out" 2>&1
crc=$?
wait $spid
src=$?
s=$dir/s.out
c=$dir/c.out
[ $crc = 0 ] && ok "client batch ran to the end" || bad "client exit $crc"
[ $src = 0 ] && ok "server batch ran to the end" || bad "server exit $src"

expect "$s" '^  link up' "show ports: link up"
expect "$s" '^  mac ([0-9a-f]{2}:){5}[0-9a-f]{2}, mtu 1500, ib_mtu 1024' "show ports: MAC, MTU"
expect "$s" '^  queues: rx 1 \(all polled\), tx 1$' "show ports: queues"
expect "$s" '^port 0 gid 1 ::ffff:10\.0\.0\.1$' "show gids: server's IPv4 GID"
expect "$c" '^port 0 gid 1 ::ffff:10\.0\.0\.2$' "show gids: client's IPv4 GID"
expect "$c" '^qp 0x[0-9a-f]{6} connected to qp 0x[0-9a-f]{6} at ::ffff:10\.0\.0\.1' "connect"
expect "$s" '^qp 0x[0-9a-f]{6} port 0 RC RTS .* peer 10\.0\.0\.2' "show qps: RTS, peer"
expect "$c" '^port 0 neigh 10\.0\.0\.1 ([0-9a-f]{2}:){5}[0-9a-f]{2} reachable' "show neigh"
expect "$c" 'traffic done: 400 send of 4096 B' "400 SENDs completed"
expect "$c" 'traffic done: 400 write of 4096 B' "400 WRITEs completed"
expect "$c" 'traffic done: 100 read of 4096 B' "100 READs completed"
expect "$c" 'traffic done: 300 write of 1024 B' "300 WRITEs completed under 5% loss"
expect "$s" "^received [0-9]+ messages" "server received every message"
expect "$c" '^  total +[0-9]+ +[0-9]+ +[0-9]+$' "show mem (this tool, RC and UD at the limits)"
expect "$c" '^qp 0x[0-9a-f]{6}: read [0-9]+ msg/s' "periodic traffic line"
expect "$c" 'traffic stopped: [1-9][0-9]* read of 1024 B' "stop traffic"
expect "$c" 'capture stopped, [1-9][0-9]* frames written, 0 lost' "capture stop"

q='qp 0x[0-9a-f]+'
rx=$(counter "$s" "$q" msgs_rx)
[ "$rx" = $rx_total ] && ok "server msgs_rx $rx" || bad "server msgs_rx $rx, expected $rx_total"
for f in "$s" "$c"; do
	n=$(basename "$f")
	[ "$(counter "$f" "$q" data_errors)" = 0 ] && ok "$n: data_errors 0" || bad "$n: data errors"
	[ "$(counter "$f" "$q" wc_errors)" = 0 ] && ok "$n: wc_errors 0" || bad "$n: completion errors"
done
done_msgs=$(counter "$c" "$q" msgs_done)
[ "$done_msgs" -gt 1200 ] && ok "client msgs_done $done_msgs" || bad "client msgs_done $done_msgs"
for k in "port 0 tx_pkts" "port 0 roce_rx" "$q tx_pkts" "$q rx_pkts" "port 0 fault_tx_dropped"; do
	v=$(counter "$c" "${k% *}" "${k##* }")
	[ "$v" -gt 0 ] && ok "client $k $v" || bad "client $k is $v"
done
re=$(( $(counter "$c" "$q" retransmits) + $(counter "$c" "$q" timeouts) ))
[ "$re" -gt 0 ] && ok "client retransmits + timeouts $re" || bad "no retransmission after drops"
[ "$(counter "$s" "$q" naks_tx_psn_seq)" -gt 0 ] && ok "server sent sequence NAKs" || echo "note: server sent no sequence NAK (only timeouts)"

if [ -s "$dir/c.pcapng" ]; then
	ok "capture file written ($(stat -c %s "$dir/c.pcapng") bytes)"
	if command -v tshark >/dev/null; then
		n=$(tshark -r "$dir/c.pcapng" -Y 'udp.dstport == 4791' 2>/dev/null | wc -l)
		[ "$n" -gt 0 ] && ok "tshark reads $n RoCE frames" || bad "tshark reads no RoCE frame"
	else
		echo "note: tshark not installed, capture not decoded"
	fi
else
	bad "capture file missing or empty"
fi

if [ $fail != 0 ]; then
	echo "--- server"; cat "$s"; echo "--- client"; cat "$c"
fi
exit $fail
