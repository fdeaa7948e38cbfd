#!/bin/bash
# The main demo: two rxd hosts in this machine joined by net_memif (no NIC,
# no hugepages).  Each is its own DPDK process (own EAL, --file-prefix), as
# two hosts would be.  They resolve each other's MAC (ARP, IPv6 neighbour
# discovery), exchange echo, print their GID tables and counters, and host A
# captures its frames to pcapng, decoded here by tshark.
#
# What it does not show yet: RDMA traffic.  The RC example and rxd-perf
# tables join this demo when the RC transport lands (doc/architecture.md).
# Usage: run-demo.sh BUILD_DIR
set -u
build=${1:-build}
net=$build/apps/rxd-net
dir=$(mktemp -d /tmp/rxd-demo.XXXXXX)
sock=$dir/memif.sock

cleanup() { rm -rf "$dir"; }
trap cleanup EXIT

eal() { # role file-prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxd-demo-$2-$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$sock,socket-abstract=no" \
		"--log-level=lib.eal:error"
}

echo "== rxd demo: two rxd hosts over net_memif in this machine =="
echo "host A: 10.0.0.1/24 fd00::1/64 (memif server)   host B: 10.0.0.2/24 fd00::2/64 (memif client)"
echo
# shellcheck disable=SC2046
"$net" $(eal server a) -- --ip 10.0.0.1/24 --ip fd00::1/64 \
	--capture "$dir/hostA.pcapng" --wait-link 10000 \
	--ping 10.0.0.2,5 --ping fd00::2,5 --serve 2500 --show \
	>"$dir/a.log" 2>&1 &
apid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
# shellcheck disable=SC2046
"$net" $(eal client b) -- --ip 10.0.0.2/24 --ip fd00::2/64 \
	--wait-link 10000 --ping 10.0.0.1,5 --ping fd00::1,5 --serve 1000 \
	--show >"$dir/b.log" 2>&1
brc=$?
wait $apid
arc=$?

for h in A B; do
	f=$dir/$(echo $h | tr AB ab).log
	echo "-- host $h (rxd-net output) --"
	grep -E "^(gid|neigh|ping|resolved|counters)" "$f" | sed 's/^/  /'
done
echo
echo "-- host A's capture ($dir/hostA.pcapng), decoded by tshark --"
if command -v tshark >/dev/null; then
	tshark -r "$dir/hostA.pcapng" 2>/dev/null | head -20 | sed 's/^/  /'
	echo "  ($(tshark -r "$dir/hostA.pcapng" 2>/dev/null | wc -l) frames in all)"
else
	echo "  tshark not installed"
fi
echo
echo "Where the figures come from: 'ping X got/N' counts ICMP/ICMPv6 echo"
echo "replies received by rxd's own host layer (lib/net); 'counters' are the"
echo "port's counters (rxd_port_counters); the frames are what rxd sent and"
echo "received on its DPDK port, written by rte_pcapng."
if [ "$arc" = 0 ] && [ "$brc" = 0 ]; then
	echo "demo: OK"
	exit 0
fi
echo "demo: FAILED (host A exit $arc, host B exit $brc)"
cat "$dir/a.log" "$dir/b.log"
exit 1
