#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# selftest.sh - prove the interop harness works on this machine, without rxd:
# build the guest (if needed), boot it, check rxe0 and its GID table, check
# rxd's attachment point (rxdh0: no kernel address, in the bridge) and the
# bridge (a temporary kernel veth pings the guest), answer the guest's ping to
# rxd's address from a DPDK net_af_packet port on rxdh0 (dpdk-testpmd, when
# installed), run ibv_rc_pingpong with both ends on the guest's rxe0, then stop
# everything and remove the netns.
#
# Prints one PASS/FAIL line per check and SKIP when this machine cannot run
# the harness. Exit status: 0 all passed, 1 a check failed, 77 skipped (meson's
# skip code). RXD_INTEROP_STRICT=1 turns a failed guest build into a failure
# instead of a skip. Needs root. Takes about a minute when the guest is built.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${RXD_INTEROP_STRICT:=0}"
: "${RXD_INTEROP_PINGPONG_ITERS:=10}"

H=$RXD_INTEROP_HERE
NS=$RXD_INTEROP_NETNS
T_ALL=$(rxi_now)
failed=0 lab_started=0 tcpdump_pid='' testpmd_pid=''
declare -A times

skip() {
	echo "SKIP: $*"
	exit 77
}
pass() { echo "PASS: $*"; }
fail() {
	echo "FAIL: $*"
	failed=1
}
# Indent captured output under the check that produced it.
show() { sed 's/^/    | /'; }

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	local rc=$?
	local p
	for p in "$tcpdump_pid" "$testpmd_pid"; do
		if [ -n "$p" ] && [ -d "/proc/$p" ]; then kill -TERM "$p" 2>/dev/null; fi
	done
	rm -rf "${tp_dir:-}"
	rm -f "${cap_out:-}" "${cap_err:-}"
	if [ "$lab_started" = 1 ]; then
		rxi_veth_del "$RXD_INTEROP_PROBE_IF"
		"$H/guest-stop.sh" 2>&1 | show
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "FAIL: interrupted"; exit 1' INT TERM

# ---- can this machine run it at all? ---------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespace, tap, qemu)"
[ -c /dev/net/tun ] || skip "/dev/net/tun missing"
unshare -n true 2>/dev/null || skip "cannot create network namespaces here"
if rxi_ns_exists || rxi_qemu_pid >/dev/null; then
	skip "lab '$NS' is in use (stop it with guest-stop.sh, or set RXD_INTEROP_NETNS)"
fi

# ---- build -------------------------------------------------------------------------
T=$(rxi_now)
if build_out=$("$H/guest-build.sh" 2>&1); then
	times[build]=$(rxi_since "$T")
	pass "guest build (${times[build]} s)"
	grep -v '^BUILD_SECONDS=' <<<"$build_out" | show
else
	echo "$build_out" | tail -n 15 | show
	[ "$RXD_INTEROP_STRICT" = 1 ] && {
		fail "guest build"
		exit 1
	}
	skip "guest build failed (no Debian mirror or no qemu package?)"
fi
qemu-system-x86_64 -version >/dev/null 2>&1 || skip "qemu-system-x86_64 does not run"

# ---- boot --------------------------------------------------------------------------
T=$(rxi_now)
lab_started=1
if start_out=$("$H/guest-start.sh" 2>&1); then
	times[boot]=$(sed -n 's/^BOOT_SECONDS=//p' <<<"$start_out")
	pass "guest boot, rxe0 ACTIVE after ${times[boot]} s (guest-start.sh ${T:+$(rxi_since "$T")} s)"
	grep -v '^BOOT_SECONDS=\|^GID_INDEX=' <<<"$start_out" | show
else
	echo "$start_out" | tail -n 30 | show
	fail "guest boot"
	exit 1
fi
# shellcheck disable=SC1091 # written by guest-start.sh
. "$RXD_INTEROP_RUN/lab.env"
GIDX=$RXD_INTEROP_GUEST_GID_INDEX
echo "    IPv4 GID index: $GIDX"

gx() { "$H/guest-exec.sh" "$@"; }

# ---- rxe0 --------------------------------------------------------------------------
out=$(gx -t 60 'ibv_devinfo -d rxe0' 2>&1)
if grep -Eq 'state:[[:space:]]+PORT_ACTIVE' <<<"$out"; then
	pass "ibv_devinfo -d rxe0: PORT_ACTIVE"
else
	fail "ibv_devinfo -d rxe0: no PORT_ACTIVE"
fi
show <<<"$out"

out=$(gx -t 60 'rdma link show' 2>&1)
if grep -Eq '^link rxe0/1 state ACTIVE .*netdev eth0' <<<"$out"; then
	pass "rdma link: rxe0/1 ACTIVE on eth0"
else
	fail "rdma link: rxe0/1 not ACTIVE on eth0"
fi
show <<<"$out"

out=$(gx -t 60 'ibv_devinfo -v -d rxe0 | grep -E "GID\[|active_mtu"' 2>&1)
ip_re=${RXD_INTEROP_GUEST_IP//./\\.}
if grep -Eq "GID\[ *$GIDX\]:[[:space:]]+::ffff:$ip_re, RoCE v2" <<<"$out"; then
	pass "GID table: index $GIDX = ::ffff:$RXD_INTEROP_GUEST_IP, RoCE v2"
else
	fail "GID table: index $GIDX is not ::ffff:$RXD_INTEROP_GUEST_IP, RoCE v2"
fi
show <<<"$out"

# ---- rxd's attachment point --------------------------------------------------------
hif=$RXD_INTEROP_HOST_IF
addrs=$(ip -n "$NS" -o addr show dev "$hif" 2>&1)
link=$(ip -n "$NS" -o link show dev "$hif" 2>&1)
offl=$(rxi_ns ethtool -k "$hif" 2>/dev/null |
	grep -E '^(tx-checksumming|rx-checksumming|generic-receive-offload|generic-segmentation-offload|tcp-segmentation-offload):' || true)
if [ -z "$addrs" ] && grep -q "master" <<<"$(ip -n "$NS" -o link show dev "$RXD_INTEROP_HOST_PEER")" &&
	grep -q "mtu $RXD_INTEROP_MTU .*state UP" <<<"$link" && ! grep -q ': on' <<<"$offl"; then
	pass "$hif: up, mtu $RXD_INTEROP_MTU, no kernel address, offloads off, peer in $RXD_INTEROP_BRIDGE"
else
	fail "$hif: not as rxd needs it"
fi
{
	echo "$link"
	echo "addresses: ${addrs:-none}"
	echo "$offl"
} | show

# ---- bridge: a temporary kernel-addressed veth pings the guest -------------------------
probe=$RXD_INTEROP_PROBE_IF
cap_out=$(mktemp) cap_err=$(mktemp)
IFS=. read -r -a octets <<<"$RXD_INTEROP_GUEST_IP"
rxi_veth_add "$probe" "${probe}br" "$RXD_INTEROP_PROBE_IP/$RXD_INTEROP_PREFIXLEN"
# rxdh0 must see the probe's ARP broadcast: rxd will sit on the same segment.
rxi_ns timeout 30 tcpdump -n -l -i "$hif" -c 1 --immediate-mode \
	"arp and arp[24:4] = 0x$(printf '%02x' "${octets[@]}")" \
	>"$cap_out" 2>"$cap_err" &
tcpdump_pid=$!
for _ in $(seq 50); do
	grep -q 'listening on' "$cap_err" && break
	sleep 0.1
done
out=$(rxi_ns ping -c 3 -i 0.3 -W 5 "$RXD_INTEROP_GUEST_IP" 2>&1)
ping_rc=$?
for _ in $(seq 30); do
	[ -d "/proc/$tcpdump_pid" ] || break
	sleep 0.1
done
kill -TERM "$tcpdump_pid" 2>/dev/null
wait "$tcpdump_pid" 2>/dev/null
tcpdump_pid=
if [ "$ping_rc" = 0 ]; then
	pass "bridge: $probe ($RXD_INTEROP_PROBE_IP) pings the guest"
else
	fail "bridge: $probe ($RXD_INTEROP_PROBE_IP) cannot ping the guest"
fi
show <<<"$out"
if grep -q "who-has $RXD_INTEROP_GUEST_IP" "$cap_out"; then
	pass "bridge: $hif sees the ARP broadcast for the guest"
else
	fail "bridge: $hif did not see the ARP broadcast for the guest"
fi
show <"$cap_out"
rxi_veth_del "$probe"
if ip -n "$NS" link show "$probe" >/dev/null 2>&1; then
	fail "temporary veth $probe not removed"
fi

# ---- a DPDK process on rxdh0 (net_af_packet), as rxd will attach --------------------
# dpdk-testpmd in icmpecho mode answers ARP and ping for any address on rxdh0;
# the guest pings rxd's address. Optional: skipped without dpdk-testpmd.
testpmd=${RXD_INTEROP_TESTPMD:-$(command -v dpdk-testpmd || true)}
if [ -z "$testpmd" ]; then
	echo "SKIP: net_af_packet on $hif (dpdk-testpmd not installed; optional check)"
else
	tp_dir=$(mktemp -d)
	mkfifo "$tp_dir/stdin"
	# testpmd quits when its stdin reaches EOF: fd 7 holds the FIFO open.
	rxi_ns stdbuf -oL "$testpmd" --no-pci --no-huge -m 512 -l 0,1 --no-shconf \
		--vdev="net_af_packet0,iface=$hif" -- --forward-mode=icmpecho \
		--auto-start --total-num-mbufs=8192 --stats-period=0 \
		<"$tp_dir/stdin" >"$tp_dir/log" 2>&1 &
	testpmd_pid=$!
	exec 7>"$tp_dir/stdin"
	for _ in $(seq 300); do
		grep -q 'Press enter to exit' "$tp_dir/log" && break
		[ -d "/proc/$testpmd_pid" ] || break
		sleep 0.1
	done
	if grep -q 'Press enter to exit' "$tp_dir/log"; then
		out=$(gx -t 60 "ip neigh flush all; ping -c 3 -W 3 $RXD_INTEROP_RXD_IP; rc=\$?; ip neigh show $RXD_INTEROP_RXD_IP; ip neigh flush all; exit \$rc" 2>&1)
		ping_rc=$?
	else
		out="dpdk-testpmd did not start"
		ping_rc=1
	fi
	exec 7>&-
	for _ in $(seq 50); do
		[ -d "/proc/$testpmd_pid" ] || break
		sleep 0.1
	done
	kill -TERM "$testpmd_pid" 2>/dev/null
	wait "$testpmd_pid" 2>/dev/null
	testpmd_pid=
	if [ "$ping_rc" = 0 ] && grep -qi "$RXD_INTEROP_HOST_MAC" <<<"$out"; then
		pass "net_af_packet on $hif: dpdk-testpmd answers the guest's ping to $RXD_INTEROP_RXD_IP"
	else
		fail "net_af_packet on $hif: no answer to the guest's ping to $RXD_INTEROP_RXD_IP"
		tail -n 15 "$tp_dir/log" | show
	fi
	{
		echo "$out"
		grep -E 'RX-packets|TX-packets' "$tp_dir/log" | head -n 2
	} | show
	rm -rf "$tp_dir"
fi

# ---- rxe loopback in the guest: ibv_rc_pingpong, both ends on rxe0 -----------------------
n=$RXD_INTEROP_PINGPONG_ITERS
pp="ibv_rc_pingpong -d rxe0 -g $GIDX -n $n -s 1024"
T=$(rxi_now)
if srv=$(gx -b "$pp"); then
	listening=0
	for _ in $(seq 60); do
		if gx -t 30 'ss -Hltn sport = :18515' 2>/dev/null | grep -q 18515; then
			listening=1
			break
		fi
	done
	if [ "$listening" = 1 ]; then
		cli_out=$(gx -t 120 "$pp $RXD_INTEROP_GUEST_IP" 2>&1)
		cli_rc=$?
		srv_out=$(gx -w -t 60 "$srv" 2>&1)
		srv_rc=$?
		if [ "$cli_rc" = 0 ] && [ "$srv_rc" = 0 ] && grep -q 'bytes in' <<<"$cli_out"; then
			pass "ibv_rc_pingpong over rxe0 loopback ($n x 1024 B, GID index $GIDX, $(rxi_since "$T") s)"
		else
			fail "ibv_rc_pingpong over rxe0 loopback (client $cli_rc, server $srv_rc)"
		fi
		{
			echo "client: $cli_out"
			echo "server: $srv_out"
		} | show
	else
		gx -k "$srv" >/dev/null 2>&1
		gx -o "$srv" | show
		fail "ibv_rc_pingpong server never listened on TCP 18515"
	fi
else
	fail "could not start ibv_rc_pingpong server in the guest"
fi

# ---- stop and clean up ----------------------------------------------------------------
T=$(rxi_now)
"$H/guest-stop.sh" 2>&1 | show
lab_started=0
times[stop]=$(rxi_since "$T")
if rxi_ns_exists || rxi_qemu_pid >/dev/null; then
	fail "stop: netns $NS or qemu still present"
else
	pass "stop: guest stopped, netns $NS removed (${times[stop]} s)"
fi

echo "TIMES: build ${times[build]} s, boot ${times[boot]:-?} s, stop ${times[stop]} s, total $(rxi_since "$T_ALL") s"
if [ "$failed" = 0 ]; then
	echo "RESULT: PASS"
	exit 0
fi
echo "RESULT: FAIL"
exit 1
