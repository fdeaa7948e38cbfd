#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# steer-interop.sh - steering with two engines on one port: rxd runs INSIDE
# the lab guest on a virtio-net-pci NIC with two queue pairs and QEMU's RSS
# (mq=on,rss=on; a multiqueue tap), under DPDK's virtio PMD bound to
# uio_pci_generic, with RXD_ENGINES_PER_PORT=2; perftest's ib_read_bw -q 8
# (rxd the client, rdma_rxe on the guest's eth0 the server) makes rdma_rxe
# send read responses to eight RC QPs, four owned by each engine.
#  - RXD_STEERING=reta: rxd gives RSS its key and points the RETA entry
#    each connection's frames hash to at the owner's queue: the port says
#    "steering reta", connections are steered, and the engines hand off
#    (almost) nothing while each takes RoCE frames of its own;
#  - RXD_STEERING=none (control): frames land where QEMU's RSS puts them
#    with the PMD's key: some take the hand-off.
# Then rte_flow steering: rxd on DPDK's net_tap in the guest (two queues;
# its rte_flow is the guest kernel's tc flower and multiq), rdma_rxe on
# the tap's kernel side (rxe1 on dtap0), ib_write_bw -q 8 from rdma_rxe:
#  - RXD_STEERING=flow: one rule per connection; no hand-off;
#  - RXD_STEERING=none (control): frames take the hand-off.
# The counters are rxd's own (RXD_ENGINE_STATS, printed at exit).
#
# Usage: steer-interop.sh BUILD_DIR    (root; exit 0 ok, 1 failed, 77 skipped)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rxi_script_init "${1:?usage: steer-interop.sh BUILD_DIR}"
H=$RXD_INTEROP_HERE
rxi_guest_dpdk_init mempool_ring net_virtio net_tap

export RXD_INTEROP_CPU=Nehalem RXD_INTEROP_MEM=1536
export RXD_INTEROP_NIC_MODELS="virtio-net-pci,mq=on,rss=on,vectors=6"
export RXD_INTEROP_NIC_QUEUES=2
pci=0000:00:10.0
qps=8
g=/mnt/rxd/steer                     # the share, as the guest sees it
d=$RXD_INTEROP_SHARE/steer

# stage: rxd and DPDK into the share (rxi_guest_dpdk_stage), and the two
# configurations.
stage() {
	rxi_guest_dpdk_stage "$d"
	cat >"$d/rxd.ini" <<-INI
	[port0]
	addr = $RXD_INTEROP_RXD_IP/24
	INI
	printf '[port0]\naddr = 10.99.0.1/24\n' >"$d/tap.ini"
}

# the NIC off virtio_net onto uio_pci_generic, hugepages
guest_setup() {
	"$H/guest-exec.sh" -t 120 "set -e
	echo 256 > /proc/sys/vm/nr_hugepages
	mkdir -p /dev/hugepages
	mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
	modprobe uio_pci_generic
	dev=/sys/bus/pci/devices/$pci
	if [ -e \$dev/driver ]; then echo $pci > \$dev/driver/unbind; fi
	echo uio_pci_generic > \$dev/driver_override
	echo $pci > /sys/bus/pci/drivers_probe
	echo $pci: \$(readlink \$dev/driver)"
}

listening='ss -ltn | grep -q ":18515 "'
wait_listening() {
	local end=$((SECONDS + 120))
	while [ $SECONDS -lt $end ]; do
		"$H/guest-exec.sh" -t 60 "$listening" >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}

# run MODE: ib_read_bw -q $qps, rxd the client with RXD_STEERING=MODE;
# its log in $out/steer-MODE.rxd.log.  Status 0 when both sides exit 0.
run() {
	local mode=$1 job rc eal
	eal="--lcores 0@0,1@0,2@0 -a $pci -d $g/pmds/librte_mempool_ring.so.23"
	eal+=" -d $g/pmds/librte_net_virtio.so.23 --file-prefix rxdsteer --log-level=lib.eal:error"
	# one read in flight per QP (-o 1): the guest's one vCPU runs both
	# engines, the main lcore and rdma_rxe, and a burst of responses
	# larger than the virtio ring would be lost while an engine waits
	local args="-q $qps -s 4096 -n 100 -o 1 -F"
	job=$("$H/guest-exec.sh" -b "ib_read_bw -d rxe0 -x $gid4 $args")
	wait_listening || echo "    (rxe server not listening after 120 s)"
	"$H/guest-exec.sh" -t 400 "env LD_LIBRARY_PATH=$g/lib RXD_CONFIG=$g/rxd.ini \
		RXD_EAL_ARGS='$eal' RXD_ENGINES_PER_PORT=2 RXD_STEERING=$mode \
		RXD_ENGINE_STATS=1 timeout 380 \
		ib_read_bw -d rxd0 -x 1 $args -u 18 127.0.0.1" \
		>"$out/steer-$mode.rxd.log" 2>&1
	rc=$?
	"$H/guest-exec.sh" -t 120 -w "$job" >"$out/steer-$mode.rxe.log" 2>&1 || rc=$((rc | 2))
	return $rc
}

# tap_run MODE: rxd serves ib_write_bw -q $qps on net_tap (dtap0) with
# RXD_STEERING=MODE, rdma_rxe's rxtMODE on dtap0 (another MAC: the PMD and
# the kernel side start with the same one) is the client; the rxd log in
# $out/steer-tap-MODE.rxd.log.  Status 0 when both sides exit 0.
tap_run() {
	local mode=$1 job rc eal i
	eal="--lcores 0@0,1@0,2@0 --no-pci --vdev net_tap0,iface=dtap0"
	eal+=" -d $g/pmds/librte_mempool_ring.so.23 -d $g/pmds/librte_net_tap.so.23"
	eal+=" --file-prefix rxdtap --log-level=lib.eal:error"
	local args="-q $qps -s 4096 -n 100 -F"
	job=$("$H/guest-exec.sh" -b "env LD_LIBRARY_PATH=$g/lib RXD_CONFIG=$g/tap.ini \
		RXD_EAL_ARGS='$eal' RXD_ENGINES_PER_PORT=2 RXD_STEERING=$mode \
		RXD_ENGINE_STATS=1 timeout 300 ib_write_bw -d rxd0 -x 1 $args")
	for i in $(seq 1 60); do
		"$H/guest-exec.sh" -t 30 "ip link show dtap0 && $listening" \
			>/dev/null 2>&1 && break
		sleep 2
	done
	# a Soft-RoCE device of its own each run, gone before the tap goes:
	# one left on the previous run's (removed) dtap0 sends nothing
	"$H/guest-exec.sh" -t 300 "ip link set dtap0 address 02:99:00:00:00:02
		ip addr add 10.99.0.2/24 dev dtap0; ip link set dtap0 up
		rdma link add rxt$mode type rxe netdev dtap0; sleep 2
		timeout 240 ib_write_bw -d rxt$mode -x 1 $args 127.0.0.1; r=\$?
		rdma link delete rxt$mode; exit \$r" \
		>"$out/steer-tap-$mode.rxe.log" 2>&1
	rc=$?
	"$H/guest-exec.sh" -t 120 -w "$job" >"$out/steer-tap-$mode.rxd.log" 2>&1 || rc=$((rc | 1))
	return $rc
}

# lines LOG: rxd's RXD_ENGINE_STATS lines of the LOG (standard error: one
# may follow perftest's last line of standard output on the same line).
lines() { grep -o 'rxd \(engine\|port\) [0-9]*:.*' "$1"; }

# field LOG WHAT KEY: the sum of KEY over the "rxd WHAT" lines.
field() {
	lines "$1" | awk -v what="rxd $2" -v key="$3" 'index($0, what) == 1 {
		for (i = 1; i < NF; i++) if ($i == key) s += $(i + 1) }
		END { print s + 0 }'
}

# engine_rx LOG SHARD: RoCE frames the QPs of the port's shard SHARD took.
engine_rx() {
	lines "$1" | awk -v sh="$2" '/^rxd engine / { for (i = 1; i < NF; i++) {
		if ($i == "shard") s = $(i + 1); if ($i == "roce_rx") r = $(i + 1) }
		if (s == sh) t += r } END { print t + 0 }'
}

fail() { echo "FAIL: $*"; failed=1; }

# check_run NAME MODE STATUS: what run NAME's counters must show.
check_run() {
	local mode=$2 rc=$3 log=$out/steer-$1.rxd.log
	local steering rx0 rx1 sent steered coll refused
	if [ "$rc" -ne 0 ]; then
		fail "ib_read_bw -q $qps with RXD_STEERING=$mode (status $rc)"
		sed 's/^/    rxd | /' "$log" | tail -15
		sed 's/^/    rxe | /' "$out/steer-$1.rxe.log" | tail -8
		return
	fi
	steering=$(lines "$log" | awk '/^rxd port 0:/ { for (i = 1; i < NF; i++) if ($i == "steering") print $(i + 1) }')
	rx0=$(engine_rx "$log" 0) rx1=$(engine_rx "$log" 1)
	sent=$(field "$log" engine handoff_sent)
	steered=$(field "$log" port steered)
	coll=$(field "$log" port collisions)
	refused=$(field "$log" port refused)
	echo "RXD_STEERING=$mode: port steering ${steering:-?}, steered $steered," \
		"collisions $coll, refused $refused; RoCE frames taken by engine 0" \
		"$rx0, engine 1 $rx1; hand-offs $sent"
	lines "$log" | sed 's/^/    /'
	if [ "$rx0" -eq 0 ] || [ "$rx1" -eq 0 ]; then
		fail "$1: an engine took no RoCE frame (each owns $((qps / 2)) QPs)"
	fi
	if [ "$mode" = none ]; then
		[ "$steering" = none ] || fail "$1: the port says steering '$steering'"
		[ "$sent" -gt 0 ] || fail "$1: no hand-off (the control shows nothing)"
		return
	fi
	[ "$steering" = "$mode" ] || { fail "$1: the port says steering '$steering'"; return; }
	[ $((steered + coll + refused)) -eq "$qps" ] ||
		fail "$1: $steered steered + $coll collisions + $refused refused, not $qps connections"
	[ "$refused" -eq 0 ] || fail "$1: the device refused $refused rules or RETA writes"
	if [ "$coll" -eq 0 ]; then
		# what is left: ARP, ND, and frames of a QP before its RTR (none
		# expected: rdma_rxe sends once the exchange is over)
		[ "$sent" -le 16 ] || fail "$1: $sent hand-offs with every connection steered"
	else
		echo "KNOWN: $coll connection(s) shared a RETA entry with another" \
			"engine's: their frames take the hand-off"
		[ "$sent" -lt $(( (rx0 + rx1) * coll / qps + 16 )) ] ||
			fail "$1: $sent hand-offs, more than the $coll colliding connection(s) explain"
	fi
}

# each_mode FN PREFIX MODE...: FN MODE, then check_run of run PREFIX-MODE.
each_mode() {
	local fn=$1 prefix=$2 mode t
	shift 2
	for mode; do
		t=$(rxi_now)
		"$fn" "$mode"
		check_run "$prefix$mode" "$mode" $?
		echo "run $prefix$mode: $(rxi_since "$t") s"
	done
}

mkdir -p "$out"
T0=$(rxi_now)
rxi_guest_up
# shellcheck source=/dev/null
. "$RXD_INTEROP_RUN/lab.env"
gid4=$RXD_INTEROP_GUEST_GID_INDEX
stage
if ! guest_setup >"$out/steer-setup.log" 2>&1; then
	echo "FAIL: cannot give the NIC to uio_pci_generic"
	sed 's/^/    | /' "$out/steer-setup.log"
	exit 1
fi
echo "guest up, NIC bound in $(rxi_since "$T0") s"
each_mode run "" reta none
if ! "$H/guest-exec.sh" -t 120 "set -e; modprobe tun
	mkdir -p /dev/net; [ -e /dev/net/tun ] || mknod /dev/net/tun c 10 200
	for m in sch_multiq cls_flower act_skbedit act_gact sch_ingress; do modprobe \$m; done" \
	>"$out/steer-tap-setup.log" 2>&1; then
	fail "net_tap: the guest has no tun or tc modules"
	sed 's/^/    | /' "$out/steer-tap-setup.log"
else
	each_mode tap_run tap- flow none
fi
echo "steer-interop in $(rxi_since "$T0") s; logs: $out"
exit $failed
