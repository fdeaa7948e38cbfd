#!/bin/bash
# The main demo: two rxd hosts in this machine joined by net_memif (no NIC,
# no hugepages).  Each side is its own DPDK process (own EAL,
# --file-prefix), as two hosts would be:
#   1. rxd-net: ARP and IPv6 neighbour discovery, ping over IPv4 and IPv6;
#   2. the RC example: the server SENDs, the client RDMA READs and RDMA
#      WRITEs the server's buffer; both print the three messages;
#   3. rxd-perf: RDMA WRITE bandwidth at 64 KiB;
#   4. rxd-perf: SEND latency at 8 B, with the stack's counters;
#   5. host A's capture of that run, decoded by tshark (and checked by
#      ../shared/tools/roce-check when it is there).
# Usage: run-demo.sh BUILD_DIR (source tree), or rxd-demo (installed: the
# programs are found beside it).
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
if [ $# = 0 ] && [ -x "$here/rxd-net" ]; then
	net=$here/rxd-net
	example=$here/rxd-rc-example
	perf=$here/rxd-perf
else
	net=$build/apps/rxd-net
	example=$build/apps/rc-example/rxd-rc-example
	perf=$build/apps/rxd-perf/rxd-perf
fi
checker=${RXD_ROCE_CHECK:-$here/../../../shared/tools/roce-check/roce-check}
dir=$(mktemp -d /tmp/rxd-demo.XXXXXX)
sock=$dir/memif.sock
tcp=$((20000 + $$ % 20000))   # the TCP exchanges of parts 2-4
failed=""
# A memif server's link comes up only when its client connects.
export RXD_LINK_WAIT_MS=30000

cleanup() { kill $(jobs -p) 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT

eal() { # role file-prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxd-demo-$2-$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

wait_sock() {
	for _ in $(seq 100); do [ -S "$sock" ] && return; sleep 0.1; done
}

# pair NAME SERVER-CMD... +++ CLIENT-CMD...: host A serves, host B connects;
# their output goes to NAME.a and NAME.b.  A failure is remembered.
pair() {
	local name=$1 a=() arc brc
	shift
	while [ "$1" != +++ ]; do a+=("$1"); shift; done
	shift
	rm -f "$sock"
	timeout 90 "${a[@]}" >"$dir/$name.a" 2>&1 &
	local apid=$!
	wait_sock
	timeout 90 "$@" >"$dir/$name.b" 2>&1
	brc=$?
	wait $apid
	arc=$?
	if [ $arc != 0 ] || [ $brc != 0 ]; then
		failed="$failed $name"
		echo "  ($name failed: host A exit $arc, host B exit $brc)"
		tail -n 5 "$dir/$name.a" "$dir/$name.b" | sed 's/^/  | /'
	fi
}

echo "== rxd demo: two rxd hosts over net_memif in this machine =="
echo "host A: 10.0.0.1/24 fd00::1/64 (memif server)   host B: 10.0.0.2/24 fd00::2/64 (memif client)"

echo
echo "== 1. IP hosts: ARP, neighbour discovery and ping (rxd-net) =="
# shellcheck disable=SC2046
pair net "$net" $(eal server a) -- --ip 10.0.0.1/24 --ip fd00::1/64 \
	--wait-link 10000 --ping 10.0.0.2,5 --ping fd00::2,5 --serve 2500 \
	--show +++ \
	"$net" $(eal client b) -- --ip 10.0.0.2/24 --ip fd00::2/64 \
	--wait-link 10000 --ping 10.0.0.1,5 --ping fd00::1,5 --serve 1000 \
	--show
for h in a b; do
	echo "-- host $(echo $h | tr ab AB) --"
	grep -E "^(gid|neigh|ping)" "$dir/net.$h" | sed 's/^/  /'
done

echo
echo "== 2. The RC example: SEND, RDMA READ, RDMA WRITE (rxd-rc-example) =="
# shellcheck disable=SC2046
pair example "$example" $(eal server a) -- --ip 10.0.0.1/24 -p $tcp +++ \
	"$example" $(eal client b) -- --ip 10.0.0.2/24 -p $tcp 127.0.0.1
for h in a b; do
	echo "-- host $(echo $h | tr ab AB) ($([ $h = a ] && echo server || echo client)) --"
	grep -E "'(SEND|RDMA read|RDMA write) operation'" "$dir/example.$h" |
		sed 's/^/  /'
done

echo
echo "== 3. rxd-perf write_bw: RDMA WRITE bandwidth, 64 KiB messages =="
# shellcheck disable=SC2046
pair write_bw "$perf" $(eal server a) -- --ip 10.0.0.1/24 write_bw \
	-s 65536 -n 5000 -p $tcp +++ \
	"$perf" $(eal client b) -- --ip 10.0.0.2/24 write_bw \
	-s 65536 -n 5000 -p $tcp 127.0.0.1
grep -E "^ *(#bytes|[0-9]+ +[0-9]+ )" "$dir/write_bw.b" | sed 's/^/  /'

echo
echo "== 4. rxd-perf send_lat: SEND latency, 8 B, and the stack's counters =="
# shellcheck disable=SC2046
pair send_lat "$perf" $(eal server a) -- --ip 10.0.0.1/24 \
	--set "port0.capture=$dir/hostA.pcapng" send_lat -s 8 -n 1000 \
	-p $tcp --stats +++ \
	"$perf" $(eal client b) -- --ip 10.0.0.2/24 send_lat -s 8 -n 1000 \
	-p $tcp --stats 127.0.0.1
grep -E "^ *(#bytes|[0-9]+ +[0-9]+ )" "$dir/send_lat.b" | sed 's/^/  /'
for h in a b; do
	grep -A2 "^ rxd counters" "$dir/send_lat.$h" | sed 's/^/  /'
done

echo
echo "== 5. Host A's capture of the send_lat run, decoded by tshark =="
pcap=$dir/hostA.pcapng
if ! command -v tshark >/dev/null; then
	echo "  tshark not installed"
	failed="$failed tshark"
elif [ ! -s "$pcap" ]; then
	echo "  no capture written"
	failed="$failed capture"
else
	# Wireshark's RPC-over-RDMA heuristic would take perftest's 8-byte
	# payload for a malformed RPC header: show it as plain data.
	ts() { tshark --disable-protocol rpcordma -r "$pcap" "$@" 2>/dev/null; }
	ts | grep -m 4 -E "ARP" | sed 's/^/  /'
	ts | grep -m 8 -E "RRoCE" | sed 's/^/  /'
	echo "  ... $(ts | wc -l) frames in all; RoCE frames by BTH opcode:"
	ts -T fields -e infiniband.bth.opcode -Y infiniband | sort | uniq -c |
		awk '{ printf "    opcode %s: %s frames\n", $2, $1 }'
fi
if [ -x "$checker" ] && [ -s "$pcap" ]; then
	if "$checker" --no-scapy --min-packets 1 "$pcap" >"$dir/check" 2>&1
	then
		echo "  roce-check (../shared/tools): $(tail -1 "$dir/check")"
	else
		echo "  roce-check (../shared/tools) refuses the capture:"
		tail -n 10 "$dir/check" | sed 's/^/  | /'
		failed="$failed roce-check"
	fi
else
	echo "  (roce-check not found: ../shared/tools is not beside this tree)"
fi

echo
echo "Where the figures come from: 'ping X got/N' counts ICMP/ICMPv6 echo"
echo "replies received by rxd's own host layer (lib/net). The RC example's"
echo "lines are printed by each process from its own buffers. The tables are"
echo "rxd-perf's (perftest's columns), measured by host B, the client, over"
echo "memif on this machine's two cores, shared with host A's engine: they"
echo "show that it runs, not what rxd can do (doc/performance.md). The"
echo "counters are rxd_port_counters() and rxd_qp_stats() of each side; the"
echo "frames are what rxd sent and received on host A's DPDK port, written"
echo "by rte_pcapng."
if [ -z "$failed" ]; then
	echo "demo: OK"
	exit 0
fi
echo "demo: FAILED ($failed )"
exit 1
