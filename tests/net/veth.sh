#!/bin/bash
# rxd as an IP host on a kernel veth: a network namespace with a veth pair,
# rxd (rxd-net) on one end through net_af_packet, the kernel on the other.
# The kernel pings (ICMP, ICMPv6) and arpings rxd; rxd resolves and pings
# the kernel.  Everything lives in a namespace this test creates and removes.
# Usage: veth.sh RXD_NET
set -u
peer=$1
ns=rxdveth$$
log=$(mktemp)
fail=0

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "iproute2 (ip) not installed"

cleanup() {
	[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -f "$log"
}
trap cleanup EXIT

check() { # name command...
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then
		echo "PASS: $name"
	else
		echo "FAIL: $name ($*)"
		fail=1
	fi
}

ip netns add "$ns" || skip "cannot create a network namespace"
ip -n "$ns" link set lo up
ip -n "$ns" link add vk type veth peer name vr
ip -n "$ns" link set vk up
ip -n "$ns" link set vr up
ip -n "$ns" addr add 10.99.0.1/24 dev vk
ip -n "$ns" addr add fd99::1/64 dev vk nodad

ip netns exec "$ns" "$peer" -l 0-1 --no-pci --no-huge -m 512 --no-shconf \
	--vdev=net_af_packet0,iface=vr -- --ip 10.99.0.2/24 --ip fd99::2/64 \
	--wait-link 5000 --resolve 10.99.0.1 --ping 10.99.0.1,3 \
	--ping fd99::1,3 --serve 30000 --show >"$log" 2>&1 &
pid=$!

for _ in $(seq 100); do
	grep -q "^ping fd99::1" "$log" && break
	sleep 0.1
done

check "rxd resolves the kernel (ARP)" grep -q "^resolved 10.99.0.1" "$log"
check "rxd pings the kernel (ICMP)" grep -q "^ping 10.99.0.1 3/3" "$log"
check "rxd pings the kernel (ICMPv6, ND)" grep -q "^ping fd99::1 3/3" "$log"
check "kernel pings rxd (ICMP)" \
	ip netns exec "$ns" ping -c 3 -i 0.2 -W 2 10.99.0.2
check "kernel arpings rxd (ARP)" \
	ip netns exec "$ns" arping -c 3 -w 5 -I vk 10.99.0.2
check "kernel pings rxd (ICMPv6, ND)" \
	ip netns exec "$ns" ping -6 -c 3 -i 0.2 -W 2 fd99::2
mac=$(ip netns exec "$ns" cat /sys/class/net/vr/address)
check "kernel's neighbour entry for rxd has vr's MAC" \
	sh -c "ip -n $ns neigh show 10.99.0.2 | grep -q $mac"

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
check "rxd-net exits cleanly" test "$rc" = 0
grep -E "^(gid|neigh|counters)" "$log"
[ $fail = 0 ] || { echo "--- rxd-net log"; cat "$log"; }
exit $fail
