#!/bin/bash
# Two rxd processes over net_memif, like two hosts on one wire: each
# resolves the other (ARP, ND) and exchanges echo; the server captures its
# frames to pcapng, which tshark must read back with ARP and ICMP in it.
# The server outlives the client: DPDK 22.11's memif interrupt thread may
# handle the peer's disconnect while rte_eal_cleanup() frees its memory, so
# the side that exits last must not see the other go during its own exit.
# Usage: memif.sh RXD_NET
set -u
peer=$1
dir=$(mktemp -d)
sock=$dir/memif.sock
fail=0

cleanup() {
	[ -n "${spid:-}" ] && kill "$spid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

check() {
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then
		echo "PASS: $name"
	else
		echo "FAIL: $name ($*)"
		fail=1
	fi
}

eal() { # role prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxd$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$sock,socket-abstract=no"
}

# shellcheck disable=SC2046
"$peer" $(eal server s) -- --ip 10.0.0.1/24 --ip fd00::1/64 \
	--capture "$dir/server.pcapng" --wait-link 10000 \
	--ping 10.0.0.2,5 --ping fd00::2,5 --serve 3000 --show \
	>"$dir/server.log" 2>&1 &
spid=$!
for _ in $(seq 100); do # the client needs the server's socket
	[ -S "$sock" ] && break
	sleep 0.1
done
# shellcheck disable=SC2046
"$peer" $(eal client c) -- --ip 10.0.0.2/24 --ip fd00::2/64 \
	--set "port0.capture=$dir/client.pcapng" --wait-link 10000 --ping 10.0.0.1,5 --ping fd00::1,5 --serve 1500 \
	--show >"$dir/client.log" 2>&1
crc=$?
wait "$spid"
src=$?
spid=

check "server exits 0" test "$src" = 0
check "client exits 0" test "$crc" = 0
check "client pings server (IPv4)" grep -q "^ping 10.0.0.1 5/5" "$dir/client.log"
check "client pings server (IPv6)" grep -q "^ping fd00::1 5/5" "$dir/client.log"
check "server pings client (IPv4)" grep -q "^ping 10.0.0.2 5/5" "$dir/server.log"
check "server pings client (IPv6)" grep -q "^ping fd00::2 5/5" "$dir/server.log"
check "server learnt the client's MAC" \
	grep -q "^neigh 10.0.0.2 .* reachable" "$dir/server.log"
if command -v tshark >/dev/null; then
	tshark -r "$dir/server.pcapng" >"$dir/tshark.txt" 2>&1
	check "tshark reads the capture" test $? = 0
	check "capture has ARP" grep -q "ARP" "$dir/tshark.txt"
	check "capture has ICMP echo" grep -q "Echo (ping) reply" "$dir/tshark.txt"
	check "capture has ICMPv6 ND" grep -q "Neighbor" "$dir/tshark.txt"
	# rxd's first frame: its RFC 5227 probe (within arp_probe_ms)
	check "the port0.capture key captures from the start" \
		sh -c "tshark -r '$dir/client.pcapng' | grep -q '10.0.0.2? (ARP Probe)'"
else
	echo "SKIP: tshark not installed; capture not decoded"
fi
[ $fail = 0 ] || { cat "$dir/server.log" "$dir/client.log"; }
exit $fail
