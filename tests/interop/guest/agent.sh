#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Guest agent of the rxd interop harness. guest-start.sh copies it to the 9p
# share at every start; the guest's init (guest/init) runs it with bash.
#
# 1. Brings up eth0 with the address given on the kernel command line
#    (rxdg_ip=A.B.C.D/N rxdg_mtu=M) and creates the Soft-RoCE device rxe0 on it.
# 2. Waits until rxe0's port is ACTIVE, finds the GID index of the RoCEv2
#    IPv4-mapped GID and publishes the result in $SHARE/ready (KEY=VALUE).
# 3. Serves the command spool (protocol shared with guest-exec.sh):
#      host:  spool/<id>.job            a /bin/sh script, renamed into place
#      agent: jobs/<id>/cmd             the script, moved there when taken
#             jobs/<id>/pid             pid = process group of the job
#             jobs/<id>/out             stdout + stderr
#             jobs/<id>/rc              exit status, written last (atomic)
# Commands run as root in /root with RXDG_GID_INDEX and RXDG_IP exported.
# Fork and exec cost milliseconds under TCG, so the idle loop forks nothing.

SHARE=/mnt/rxd
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH HOME=/root
cd /root 2>/dev/null || cd / || exit 1

say() { echo "rxd-agent: $*" >/dev/console; }

# A pause that forks nothing: a read with timeout on a FIFO nobody writes to.
mkfifo /run/rxd-agent.pause
exec 9<>/run/rxd-agent.pause
pause() { read -r -t "$1" -u 9 _; }

addr=10.88.0.11/24 mtu=1500
read -r cmdline </proc/cmdline
for w in $cmdline; do
	case $w in
	rxdg_ip=*) addr=${w#*=} ;;
	rxdg_mtu=*) mtu=${w#*=} ;;
	esac
done
ip4=${addr%/*}

hostname rxd-peer
ip link set lo up
modprobe -q virtio_net
for _ in $(seq 200); do
	[ -e /sys/class/net/eth0 ] && break
	pause 0.05
done
ip link set eth0 mtu "$mtu"
ip addr add "$addr" dev eth0
ip link set eth0 up

for m in rdma_rxe ib_uverbs rdma_ucm ib_umad; do
	modprobe -q "$m" || say "modprobe $m failed"
done
rdma link add rxe0 type rxe netdev eth0 || say "rdma link add rxe0 failed"

port=/sys/class/infiniband/rxe0/ports/1
state=
for _ in $(seq 600); do
	read -r state <"$port/state" 2>/dev/null
	[ "$state" = "4: ACTIVE" ] && break
	pause 0.05
done

# The IPv4 address appears in the GID table as ::ffff:a.b.c.d; look for it
# with a single grep over all entries (a loop over 1024 files is slow here).
IFS=. read -r o1 o2 o3 o4 <<<"$ip4"
gid=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$o1" "$o2" "$o3" "$o4")
gidx=
for _ in $(seq 200); do
	hit=$(grep -lx "$gid" "$port"/gids/* 2>/dev/null | head -n 1)
	if [ -n "$hit" ]; then
		gidx=${hit##*/}
		break
	fi
	pause 0.05
done
gtype=
[ -z "$gidx" ] || read -r gtype <"$port/gid_attrs/types/$gidx" 2>/dev/null
read -r mac </sys/class/net/eth0/address
read -r uptime _ </proc/uptime

export RXDG_GID_INDEX=$gidx RXDG_IP=$ip4
mkdir -p "$SHARE/spool" "$SHARE/jobs"
cat >"$SHARE/ready.tmp" <<INFO
GUEST_IP=$ip4
GUEST_ADDR=$addr
GUEST_MAC=$mac
GUEST_MTU=$mtu
KERNEL=$(uname -r)
RXE_DEV=rxe0
RXE_STATE=$state
GID_INDEX=$gidx
GID=$gid
GID_TYPE=$gtype
UPTIME=$uptime
INFO
mv "$SHARE/ready.tmp" "$SHARE/ready"
say "ready: $addr rxe0 '$state' ipv4 gid index ${gidx:-?} ($gtype) after ${uptime}s"

run_job() { # ID: runs as a background subshell of the agent
	local d="$SHARE/jobs/$1" pid rc
	# setsid: the job leads its own process group, so one kill reaches all of it
	setsid /bin/sh "$d/cmd" >"$d/out" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$d/pid"
	wait "$pid"
	rc=$?
	echo "$rc" >"$d/rc.tmp"
	mv "$d/rc.tmp" "$d/rc"
}

while [ ! -e "$SHARE/halt" ]; do
	for f in "$SHARE"/spool/*.job; do
		[ -e "$f" ] || continue
		id=${f##*/}
		id=${id%.job}
		if ! mkdir -p "$SHARE/jobs/$id" || ! mv "$f" "$SHARE/jobs/$id/cmd"; then
			continue
		fi
		run_job "$id" &
	done
	pause 0.1
done
say "halt requested"
