#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# RXD_OFFLOADS_OFF on a port that offers receive checksum offloads: net_tap
# (a tap in a network namespace this test creates and removes) offers
# rx-ipv4-cksum and rx-udp-cksum; rxd-testpmd's "show ports" must list them
# without the variable, none with "all", only the other with one name, and
# an unknown name must be refused with a line naming it.
# Usage: offloads-off.sh RXD_TESTPMD
set -u
testpmd=$1
ns=rxdoff$$
out=$(mktemp)
fail=0

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for a network namespace"
command -v ip >/dev/null || skip "iproute2 (ip) not installed"
[ -e /dev/net/tun ] || skip "no /dev/net/tun (net_tap)"
ip netns add "$ns" || skip "cannot create a network namespace"
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "/var/run/dpdk/$ns" "$out"' EXIT

# offloads OFF: the "offloads:" line of show ports with RXD_OFFLOADS_OFF=OFF
# (empty: unset); the whole output in the file $out.
offloads() {
	ip netns exec "$ns" env ${1:+RXD_OFFLOADS_OFF="$1"} \
		timeout 60 "$testpmd" -l 0-1 --no-pci --no-huge -m 256 \
		--file-prefix "$ns" --vdev=net_tap0,iface=rxdoff0 \
		--log-level=lib.eal:error --log-level=rxd.port:warning -- \
		--ip 0:10.77.0.1/24 --cmd 'show ports' >"$out" 2>&1
	sed -n 's/^ *offloads: //p' "$out"
}

# expect NAME OFF WANT: the offloads in use with RXD_OFFLOADS_OFF=OFF.
expect() {
	local got
	got=$(offloads "$2")
	if [ "$got" = "$3" ]; then
		echo "PASS: $1: $got"
	else
		echo "FAIL: $1: offloads '$got', expected '$3'"
		tail -10 "$out" | sed 's/^/    | /'
		fail=1
	fi
}

all=$(offloads "")
case $all in
*rx-ipv4-cksum*rx-udp-cksum*) echo "PASS: net_tap offers and rxd uses: $all" ;;
"") echo "FAIL: rxd-testpmd showed no port"; tail -10 "$out" | sed 's/^/    | /'; exit 1 ;;
*) skip "net_tap offers no receive checksum offloads here ($all)" ;;
esac
expect "RXD_OFFLOADS_OFF=all" all none
expect "RXD_OFFLOADS_OFF=rx-ipv4-cksum" rx-ipv4-cksum rx-udp-cksum
# an unknown name: the port is refused with a line naming it, not run
# with the rest of the list
got=$(offloads "bogus rx-udp-cksum")
if [ -z "$got" ] && grep -q "RXD_OFFLOADS_OFF: unknown offload 'bogus'" "$out"
then
	echo "PASS: RXD_OFFLOADS_OFF='bogus rx-udp-cksum' refused, the name said"
else
	echo "FAIL: RXD_OFFLOADS_OFF='bogus rx-udp-cksum': offloads '$got'"
	tail -10 "$out" | sed 's/^/    | /'
	fail=1
fi
exit "$fail"
