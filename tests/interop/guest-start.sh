#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# guest-start.sh - create the interop lab and boot the Soft-RoCE guest.
#
# Usage: guest-start.sh
#
# Creates network namespace $RXD_INTEROP_NETNS (default rxdlab) holding a
# bridge, the guest's tap and the veth pair rxdh0 <-> rxdh0br, where rxdh0 has
# no kernel address and is where rxd attaches (net_af_packet,iface=rxdh0, run
# with "ip netns exec rxdlab"). Boots the guest (guest-build.sh must have run),
# waits until its rxe0 port is ACTIVE and prints the IPv4 GID index; the same
# facts are left in $RXD_INTEROP_RUN/lab.env for other scripts.
# If the guest is already up, prints the facts and returns. On failure the lab
# is torn down again. Nothing in the namespace has a route out of it.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "${1:-}" in
-h | --help)
	sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
"") ;;
*) rxi_die "unknown argument: $1 (see --help)" ;;
esac
rxi_need_root

print_lab() {
	cat <<-INFO
		guest:   $RXD_INTEROP_GUEST_IP/$RXD_INTEROP_PREFIXLEN mac $(rxi_ready_get GUEST_MAC), kernel $(rxi_ready_get KERNEL)
		rxe0:    $(rxi_ready_get RXE_STATE), IPv4 GID index $(rxi_ready_get GID_INDEX) ($(rxi_ready_get GID_TYPE))
		netns:   $RXD_INTEROP_NETNS (bridge $RXD_INTEROP_BRIDGE, tap $RXD_INTEROP_TAP)
		rxd:     ip netns exec $RXD_INTEROP_NETNS <rxd> --vdev=net_af_packet0,iface=$RXD_INTEROP_HOST_IF  (ip $RXD_INTEROP_RXD_IP, mac $RXD_INTEROP_HOST_MAC)
		console: $RXD_INTEROP_RUN/console.log
	INFO
	echo "GID_INDEX=$(rxi_ready_get GID_INDEX)"
}

if pid=$(rxi_qemu_pid) && [ -s "$RXD_INTEROP_SHARE/ready" ]; then
	rxi_log "guest already running (qemu pid $pid)"
	print_lab
	exit 0
fi

for f in "$RXD_INTEROP_IMAGE" "$RXD_INTEROP_KERNEL" "$RXD_INTEROP_INITRD"; do
	[ -s "$f" ] || rxi_die "$f missing: run $RXD_INTEROP_HERE/guest-build.sh first"
done
command -v qemu-system-x86_64 >/dev/null || rxi_die "qemu-system-x86_64 not installed (guest-build.sh installs it)"
[ -c /dev/net/tun ] || rxi_die "/dev/net/tun missing: cannot create the guest's tap"

started=0
cleanup() {
	local rc=$?
	if [ "$started" = 0 ]; then
		rxi_log "start failed, tearing the lab down"
		"$RXD_INTEROP_HERE/guest-stop.sh" >/dev/null 2>&1 || true
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A half-built lab from an earlier crash is removed rather than patched up.
if rxi_ns_exists || [ -e "$RXD_INTEROP_RUN/qemu.pid" ]; then
	"$RXD_INTEROP_HERE/guest-stop.sh" >/dev/null 2>&1 || true
fi

T0=$(rxi_now)
# ---- network namespace ------------------------------------------------------------
ip netns add "$RXD_INTEROP_NETNS"
ns=$RXD_INTEROP_NETNS
ip -n "$ns" link set lo up
# No IPv6 chatter from the lab's own interfaces; IPv4 ARP only answered for an
# address configured on the receiving interface (so a kernel-addressed veth
# never answers for anything on rxdh0); no forwarding.
rxi_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
	net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2 \
	net.ipv4.conf.default.arp_ignore=1 net.ipv4.conf.default.arp_announce=2 \
	net.ipv4.ip_forward=0
ip -n "$ns" link add "$RXD_INTEROP_BRIDGE" type bridge stp_state 0 forward_delay 0
ip -n "$ns" link set "$RXD_INTEROP_BRIDGE" type bridge mcast_snooping 0 2>/dev/null || true
ip -n "$ns" link set "$RXD_INTEROP_BRIDGE" mtu "$RXD_INTEROP_MTU" up
# If br_netfilter is loaded on this host, keep the lab's bridge out of iptables.
for f in /proc/sys/net/bridge/bridge-nf-call-iptables /proc/sys/net/bridge/bridge-nf-call-ip6tables \
	/proc/sys/net/bridge/bridge-nf-call-arptables; do
	if [ -e "$f" ]; then rxi_ns sh -c "echo 0 > $f" 2>/dev/null || true; fi
done
ip -n "$ns" tuntap add dev "$RXD_INTEROP_TAP" mode tap
ip -n "$ns" link set "$RXD_INTEROP_TAP" mtu "$RXD_INTEROP_MTU" master "$RXD_INTEROP_BRIDGE" up
rxi_veth_add "$RXD_INTEROP_HOST_IF" "$RXD_INTEROP_HOST_PEER" none "$RXD_INTEROP_HOST_MAC"
nic_args=()
k=0
for model in $RXD_INTEROP_NIC_MODELS; do
	k=$((k + 1))
	mq=() nq=
	if [ "$RXD_INTEROP_NIC_QUEUES" -gt 1 ]; then
		mq=(multi_queue) nq=",queues=$RXD_INTEROP_NIC_QUEUES"
	fi
	ip -n "$ns" tuntap add dev "${RXD_INTEROP_TAP}n$k" mode tap "${mq[@]}"
	ip -n "$ns" link set "${RXD_INTEROP_TAP}n$k" mtu "$RXD_INTEROP_MTU" master "$RXD_INTEROP_BRIDGE" up
	nic_args+=(-netdev "tap,id=nic$k,ifname=${RXD_INTEROP_TAP}n$k,script=no,downscript=no$nq"
		-device "$model,netdev=nic$k,mac=52:54:00:88:0$k:0b,addr=0x1$((k - 1)),romfile=")
done

# ---- guest ------------------------------------------------------------------------
rm -rf "$RXD_INTEROP_RUN"
mkdir -p "$RXD_INTEROP_SHARE/spool" "$RXD_INTEROP_SHARE/jobs"
install -m 0644 "$RXD_INTEROP_HERE/guest/agent.sh" "$RXD_INTEROP_SHARE/agent.sh"
# The base image is never written: the guest's writes land in this overlay.
qemu-img create -q -f qcow2 -F raw -b "$RXD_INTEROP_IMAGE" "$RXD_INTEROP_RUN/overlay.qcow2"

accel=$(rxi_accel)
if [ "$accel" = kvm ]; then
	accel_args=(-accel kvm -cpu "${RXD_INTEROP_CPU:-host}")
else
	# qemu64, not max: with max the guest picks PCLMUL-based CRC32 for the
	# RoCE ICRC, which TCG emulates slowly.
	accel_args=(-accel "tcg,thread=multi" -cpu "${RXD_INTEROP_CPU:-qemu64}")
fi
append="console=ttyS0 root=/dev/vda rw quiet panic=-1 net.ifnames=0"
append+=" init=/usr/local/sbin/rxd-guest-init"
append+=" rxdg_ip=$RXD_INTEROP_GUEST_IP/$RXD_INTEROP_PREFIXLEN rxdg_mtu=$RXD_INTEROP_MTU"

T_BOOT=$(rxi_now)
rxi_ns qemu-system-x86_64 \
	-name "guest=$RXD_INTEROP_QEMU_NAME" \
	-machine pc "${accel_args[@]}" -smp "$RXD_INTEROP_SMP" -m "$RXD_INTEROP_MEM" \
	-nodefaults -no-user-config -display none -no-reboot \
	-kernel "$RXD_INTEROP_KERNEL" -initrd "$RXD_INTEROP_INITRD" -append "$append" \
	-drive "file=$RXD_INTEROP_RUN/overlay.qcow2,format=qcow2,if=virtio,cache=unsafe" \
	-netdev "tap,id=lan,ifname=$RXD_INTEROP_TAP,script=no,downscript=no" \
	-device "virtio-net-pci,netdev=lan,mac=$RXD_INTEROP_GUEST_MAC,romfile=" \
	"${nic_args[@]}" \
	-monitor "unix:$RXD_INTEROP_RUN/monitor.sock,server=on,wait=off" \
	-fsdev "local,id=share,path=$RXD_INTEROP_SHARE,security_model=none" \
	-device "virtio-9p-pci,fsdev=share,mount_tag=rxdshare" \
	-serial "file:$RXD_INTEROP_RUN/console.log" \
	-D "$RXD_INTEROP_RUN/qemu.log" \
	-pidfile "$RXD_INTEROP_RUN/qemu.pid" -daemonize ||
	rxi_die "qemu did not start (see $RXD_INTEROP_RUN/qemu.log)"
pid=$(rxi_qemu_pid) || rxi_die "qemu exited at once (see $RXD_INTEROP_RUN/qemu.log)"
rxi_log "guest booting: qemu pid $pid, accel $accel"

deadline=$(($(date +%s) + RXD_INTEROP_BOOT_TIMEOUT))
while [ ! -s "$RXD_INTEROP_SHARE/ready" ]; do
	if ! rxi_qemu_pid >/dev/null; then
		tail -n 25 "$RXD_INTEROP_RUN/console.log" >&2 || true
		rxi_die "guest died while booting"
	fi
	if [ "$(date +%s)" -ge "$deadline" ]; then
		tail -n 25 "$RXD_INTEROP_RUN/console.log" >&2 || true
		rxi_die "guest not ready after $RXD_INTEROP_BOOT_TIMEOUT s"
	fi
	sleep 0.2
done
boot=$(rxi_since "$T_BOOT")

[ "$(rxi_ready_get RXE_STATE)" = "4: ACTIVE" ] ||
	rxi_die "rxe0 port is '$(rxi_ready_get RXE_STATE)', not ACTIVE"
[ -n "$(rxi_ready_get GID_INDEX)" ] ||
	rxi_die "no GID for $RXD_INTEROP_GUEST_IP in rxe0's GID table"

cat >"$RXD_INTEROP_RUN/lab.env" <<-ENV
	RXD_INTEROP_NETNS=$RXD_INTEROP_NETNS
	RXD_INTEROP_HOST_IF=$RXD_INTEROP_HOST_IF
	RXD_INTEROP_HOST_MAC=$RXD_INTEROP_HOST_MAC
	RXD_INTEROP_RXD_IP=$RXD_INTEROP_RXD_IP
	RXD_INTEROP_GUEST_IP=$RXD_INTEROP_GUEST_IP
	RXD_INTEROP_GUEST_MAC=$(rxi_ready_get GUEST_MAC)
	RXD_INTEROP_GUEST_GID_INDEX=$(rxi_ready_get GID_INDEX)
	RXD_INTEROP_GUEST_GID=$(rxi_ready_get GID)
ENV
started=1
rxi_log "rxe0 ACTIVE after $boot s (guest uptime $(rxi_ready_get UPTIME) s); lab up in $(rxi_since "$T0") s"
print_lab
echo "BOOT_SECONDS=$boot"
