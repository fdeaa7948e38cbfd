#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A hostile host on rxd's segment.  In a network namespace of its own: a
# Linux bridge with two rxd hosts (hostile-peer server and client, over
# net_af_packet), a legitimate kernel host (lh, 10.88.2.5) and an attacker
# (ha, 10.88.2.9).  While the rxd hosts move data-checked RC traffic and a
# UD echo exchange, the attacker sprays RXD_HOSTILE_FRAMES (20,000) forged
# and malformed frames of every class in hostile_gen.py; meanwhile and
# after, both kernel hosts must still get ARP, ND, ICMP and ICMPv6 answers.
# Then: every transfer byte-exact with one completion each (hostile-peer),
# every frame each rxd host received accounted for once, the frames of the
# classes with an exact fate counted exactly there, no neighbour entry for
# an address rxd never asked for nor was asked by, mbufs and heap back.
# RXD_HOSTILE_SEED picks the attack (default: the date's day number).
# Usage: hostile.sh HOSTILE_PEER HOSTILE_GEN_PY
set -u
peer=$1
gen=$2
frames=${RXD_HOSTILE_FRAMES:-20000}
seed=${RXD_HOSTILE_SEED:-$(( $(date +%s) / 86400 ))}
ns=rxdhost$$
dir=$(mktemp -d)
fail=0
py=/usr/bin/python3

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "iproute2 (ip) not installed"
command -v arping >/dev/null || skip "arping not installed"
$py -c 'import scapy.contrib.roce' 2>/dev/null ||
	skip "python3-scapy not installed (scripts/install-deps.sh installs it)"

cleanup() {
	for p in ${spid:-} ${cpid:-} ${gpid:-}; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

pass() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
check() { # name command...
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then pass "$name"; else bad "$name ($*)"; fi
}

ip netns add "$ns" || skip "cannot create a network namespace"
in_ns() { ip netns exec "$ns" "$@"; }
ip -n "$ns" link set lo up
ip -n "$ns" link add br0 type bridge
# A plain switch: with br_netfilter loaded, bridged IP is checked and
# defragmented on the way, and the malformed frames would never reach rxd
for t in arptables iptables ip6tables; do
	in_ns sysctl -qw "net.bridge.bridge-nf-call-$t=0" 2>/dev/null
done
ip -n "$ns" link set br0 up
for p in s c lh ha; do
	ip -n "$ns" link add "$p" type veth peer name "${p}b"
	ip -n "$ns" link set "${p}b" master br0
	ip -n "$ns" link set "${p}b" up
done
for p in s c; do   # rxd's: the kernel stays silent on them
	in_ns sysctl -qw "net.ipv6.conf.$p.disable_ipv6=1"
done
ip -n "$ns" addr add 10.88.2.5/24 dev lh
ip -n "$ns" addr add fd88::5/64 dev lh nodad
ip -n "$ns" addr add 10.88.2.9/24 dev ha
ip -n "$ns" addr add fd88::9/64 dev ha nodad
for p in s c lh ha; do ip -n "$ns" link set "$p" up; done

eal() { # role prefix ip6-suffix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdhp$2$$" \
		"--vdev=net_af_packet0,iface=$2,framecnt=4096" \
		"--log-level=lib.eal:error -- --ip $3/24 --ip fd88::$4/64"
}
# shellcheck disable=SC2046
in_ns timeout 300 "$peer" $(eal server s 10.88.2.1 1) server "$dir/ctl.sock" "$dir" \
	>"$dir/s.log" 2>&1 &
spid=$!
for _ in $(seq 100); do [ -S "$dir/ctl.sock" ] && break; sleep 0.1; done
# shellcheck disable=SC2046
in_ns timeout 300 "$peer" $(eal client c 10.88.2.2 2) client "$dir/ctl.sock" "$dir" \
	>"$dir/c.log" 2>&1 &
cpid=$!
for _ in $(seq 300); do [ -e "$dir/ready" ] && break; sleep 0.1; done
[ -e "$dir/ready" ] || { cat "$dir/s.log" "$dir/c.log"; bad "the hosts never connected"; exit 1; }

host() { # log ip mac -> IP,MAC,RC_QPN,UD_QPN,PSN
	awk -v ip="$2" -v mac="$3" '/: rc qpn/ {
		printf "%s,%s,%s,%s,%s", ip, mac, $4, $9, $6 }' "$1"
}
mac_of() { in_ns cat "/sys/class/net/$1/address"; }
srv=$(host "$dir/s.log" 10.88.2.1 "$(mac_of s)")
cli=$(host "$dir/c.log" 10.88.2.2 "$(mac_of c)")
echo "hostile: seed $seed, $frames frames; server $srv; client $cli"

# The kernel hosts reach rxd before, during and after the attack.
answered() { # tag
	check "$1: legitimate host arpings the server" \
		in_ns arping -c 2 -w 4 -I lh 10.88.2.1
	check "$1: attacker arpings the server" \
		in_ns arping -c 2 -w 4 -I ha 10.88.2.1
	check "$1: attacker arpings the client" \
		in_ns arping -c 2 -w 4 -I ha 10.88.2.2
	check "$1: legitimate host pings the server" \
		in_ns ping -c 2 -i 0.3 -W 3 -I lh 10.88.2.1
	check "$1: attacker pings the client" \
		in_ns ping -c 2 -i 0.3 -W 3 -I ha 10.88.2.2
	check "$1: legitimate host pings the server over IPv6 (ND)" \
		in_ns ping -6 -c 2 -i 0.3 -W 3 -I lh fd88::1
	check "$1: attacker pings the server over IPv6 (ND)" \
		in_ns ping -6 -c 2 -i 0.3 -W 3 -I ha fd88::1
}
answered before

in_ns "$py" "$gen" --iface ha --count "$frames" --seed "$seed" \
	--server "$srv" --client "$cli" --manifest "$dir/manifest" \
	--spraying "$dir/spraying" &
gpid=$!
# "during" is while frames fly: the generator builds them all first, which
# takes tens of seconds on a slow or busy machine
while [ ! -e "$dir/spraying" ] && kill -0 $gpid 2>/dev/null; do sleep 0.2; done
sleep 2
answered during
wait $gpid || { bad "the generator failed"; exit 1; }
gpid=
answered after
in_ns ip neigh flush dev lh
in_ns ip neigh flush dev ha
answered "after, caches flushed"
touch "$dir/attack-done"

wait $cpid
crc=$?
cpid=
wait $spid
src=$?
spid=
grep -E "^(FAIL|client|server|neigh)" "$dir/c.log" | sed 's/^/client log: /'
grep -E "^(FAIL|client|server|neigh)" "$dir/s.log" | sed 's/^/server log: /'
[ $crc = 0 ] && pass "client: every byte and completion right" ||
	bad "client exit $crc"
[ $src = 0 ] && pass "server: every byte and completion right" ||
	bad "server exit $src"
for f in "$dir/s.log" "$dir/c.log"; do
	grep -q "runtime error\|AddressSanitizer" "$f" && bad "sanitizer report in $f"
done

# delta LOG NAME: a counter's growth during the attack
delta() {
	awk -v n="$2" '$1 == "base" && $2 == n { b = $3 }
		$1 == "end" && $2 == n { e = $3 } END { print e - b }' "$1"
}
wire_delta() {
	awk '$1 == "base" && $2 ~ /^wire_/ { b += $3 }
		$1 == "end" && $2 ~ /^wire_/ { e += $3 } END { print e - b }' "$1"
}
sent() { # who fate
	awk -v w="$1" -v f="$2" '$1 == w && $2 == f { n += $3 } END { print n + 0 }' \
		"$dir/manifest"
}
for who in server client; do
	log=$dir/${who:0:1}.log
	awk '$1 == "base" { b[$2] = $3 } $1 == "end" && $3 != b[$2] {
		printf "%s +%d ", $2, $3 - b[$2] } END { print "" }' "$log" |
		sed "s/^/$who counters: /"
	grep "^$who class_" "$dir/manifest" | sed 's/^/manifest: /' | tr '\n' ' '
	echo
	for fate in wire bad_peer bad_cnp neigh_ignored malformed; do
		if [ $fate = wire ]; then got=$(wire_delta "$log")
		else got=$(delta "$log" "$(echo $fate | sed 's/^bad_/roce_bad_/')"); fi
		want=$(sent $who $fate)
		[ "$got" = "$want" ] &&
			pass "$who: $want frames dropped as $fate, as sent" ||
			bad "$who: $fate grew by $got, $want such frames sent"
	done
	# fates legitimate traffic shares: at least what was sent
	for fate in roce_rx other_dropped echo_answered not_for_us; do
		got=$(delta "$log" $fate)
		[ $fate = not_for_us ] &&
			got=$((got + $(delta "$log" roce_not_local)))
		want=$(sent $who $fate)
		[ $fate = not_for_us ] && want=$((want + $(sent $who vlan)))
		[ "$got" -ge "$want" ] &&
			pass "$who: $fate grew by $got, at least the $want sent" ||
			bad "$who: $fate grew by $got, $want such frames sent"
	done
	echo "$who: $(sent $who below_rxd) IP fragments held by the kernel" \
		"(af_packet's fanout reassembles), never seen by rxd"
	grep -q "10.88.2.77\|10.88.3.\|10.88.2.1[0-9][0-9] \|fd88::1[0-9a-f][0-9a-f] " \
		"$log" && bad "$who: a neighbour entry rxd never asked for" ||
		pass "$who: no neighbour entry for an address it was told of unasked"
done
echo "hostile: seed $seed (RXD_HOSTILE_SEED=$seed reproduces it)"
exit $fail
