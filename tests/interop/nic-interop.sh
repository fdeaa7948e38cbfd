#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# nic-interop.sh - rxd on DPDK's PCI drivers: rxd runs INSIDE the lab guest
# on extra emulated PCI NICs (guest-start.sh's RXD_INTEROP_NIC_MODELS, all in
# one guest at 0000:00:10.0, 00:11.0, ..., each bound to uio_pci_generic in
# turn, hugepages), Soft-RoCE (rxe0) on the guest's eth0; all sit on the
# lab's bridge at MTU 9000, so every RoCE frame crosses the emulated NIC,
# its tap, the bridge and rxe's virtio NIC. The
# guest runs rxd's host-built compat libraries and the host's DPDK 22.11
# shared libraries (same Debian 12), copied to the 9p share; the guest CPU
# is Nehalem (Debian's DPDK needs SSE4.2). The tools' TCP exchange and
# rping's connection run inside the guest. rxd captures every frame; each
# capture must pass roce-check when it exists.
#
# Usage: nic-interop.sh BUILD_DIR    (root; exit 0 ok, 1 failed, 77 skipped)
# RXD_NIC_MODELS   QEMU NIC models (default: virtio-net-pci e1000e e1000 vmxnet3)
# RXD_NIC_MATRIX   ci (default): each model one share of the tools, which
#                  together touch every tool, both roles and both path MTUs;
#                  full: every tool, both roles, path MTU 1024 and 4096 on
#                  every model, and the link flaps on every model;
#                  perf: offloads on and off (RXD_OFFLOADS_OFF=all), rxd-perf
#                  read_bw (rxd receives the data, so its receive checksum
#                  offloads count) against perftest on rxe0, rounds
#                  alternating (doc/performance.md); figures, no verdict
# RXD_NIC_PERF_ROUNDS  rounds of each perf setting (default 3)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rxi_script_init "${1:?usage: nic-interop.sh BUILD_DIR}"
H=$RXD_INTEROP_HERE
rxi_guest_dpdk_init mempool_ring net_virtio net_e1000 net_vmxnet3
command -v python3 >/dev/null || skip "python3 missing (QEMU monitor)"

export RXD_INTEROP_MTU=9000 RXD_INTEROP_CPU=Nehalem RXD_INTEROP_MEM=1536
models=${RXD_NIC_MODELS:-virtio-net-pci e1000e e1000 vmxnet3}
matrix=${RXD_NIC_MATRIX:-ci}
rxd_ip=$RXD_INTEROP_RXD_IP
g=/mnt/rxd/nic                       # the share, as the guest sees it

# stage: rxd and DPDK into the share (rxi_guest_dpdk_stage), with rxd-perf
# and rxd-testpmd for the perf matrix.
stage() {
	local d=$RXD_INTEROP_SHARE/nic apps=()
	mkdir -p "$d/out"
	if [ "$matrix" = perf ]; then
		cp "$build/apps/rxd-perf/rxd-perf" \
			"$build/apps/rxd-testpmd/rxd-testpmd" "$d/"
		apps=("$d/rxd-perf" "$d/rxd-testpmd")
	fi
	rxi_guest_dpdk_stage "$d" "${apps[@]}"
}

# guest_nic_setup: hugepages, the NICs off their kernel drivers onto
# uio_pci_generic (a virtio one is virtio_net's at boot).
guest_nic_setup() {
	local pci
	for pci in $pcis; do
		"$H/guest-exec.sh" -t 120 "set -e
		dev=/sys/bus/pci/devices/$pci
		if [ -e \$dev/driver ]; then echo $pci > \$dev/driver/unbind; fi
		echo uio_pci_generic > \$dev/driver_override
		echo $pci > /sys/bus/pci/drivers_probe
		echo $pci: \$(readlink \$dev/driver)" || return 1
	done
}

# rxd_cmd NAME: the environment that puts a guest tool on rxd (port 0 = the
# NIC, capture to out/NAME.pcapng).
rxd_cmd() {
	local name=$1
	cat >"$RXD_INTEROP_SHARE/nic/$name.ini" <<-INI
	[port0]
	addr = $rxd_ip/24, fd88::1/64
	mtu = $RXD_INTEROP_MTU
	capture = $g/out/$name.pcapng
	INI
	echo "env LD_LIBRARY_PATH=$g/lib RXD_CONFIG=$g/$name.ini" \
		"RXD_EAL_ARGS='$(eal_args)'" "timeout 600"
}

# eal_args: EAL's arguments for rxd on the current NIC ($pci).
eal_args() {
	local d=" -d $g/pmds/librte_"
	echo "--lcores 0@0,1@0 -a $pci${d}mempool_ring.so.23${d}net_virtio.so.23${d}net_e1000.so.23${d}net_vmxnet3.so.23 --file-prefix rxdnic --log-level=lib.eal:error"
}

# monitor OFF_SEC: take the NIC's link down (QEMU monitor set_link), and
# after OFF_SEC bring it up again (never, if OFF_SEC is "never").
monitor() {
	python3 - "$RXD_INTEROP_RUN/monitor.sock" "$1" "$nic" <<-'PY'
	import socket, sys, time
	s = socket.socket(socket.AF_UNIX)
	s.connect(sys.argv[1])
	s.sendall(b"set_link %s off\n" % sys.argv[3].encode())
	if sys.argv[2] != "never":
	    time.sleep(float(sys.argv[2]))
	    s.sendall(b"set_link %s on\n" % sys.argv[3].encode())
	time.sleep(0.3)
	s.close()
	PY
}

# finish JOB SEC LOG: the output of a background job once it ended; killed
# if it has not within SEC (status 124).
finish() {
	"$H/guest-exec.sh" -t "$2" -w "$1" >"$3" 2>&1
	local rc=$?
	[ $rc -eq 124 ] && "$H/guest-exec.sh" -k "$1" >/dev/null 2>&1
	return $rc
}

# Readiness of a tool started in the background: its output is buffered
# until it exits, so the script watches the guest instead.
# wait_until SEC CMD: until the guest command CMD succeeds.
wait_until() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do
		"$H/guest-exec.sh" -t 60 "$2" >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}
# A TCP tool's server listens on 18515; rxd answers ping once it runs.
listening='ss -ltn | grep -q ":18515 "'
rxd_up="ping -c 1 -W 1 $rxd_ip"
# wait_rxe_rx N SEC: until rxe0 has received N more RoCE packets.
rxe_rx=/sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts
wait_rxe_rx() {
	local base
	base=$("$H/guest-exec.sh" -t 60 "cat $rxe_rx")
	wait_until "$2" "[ \$(cat $rxe_rx) -ge $((base + $1)) ]"
}

# pair NAME SERVER_SIDE TOOL ARGS [GIDX]: one run, SERVER_SIDE rxe or rxd;
# the rxd side uses its GID index GIDX (1: its IPv4 GID, default; 2: fd88::1).
pair() {
	local name=$model-$1 side=$2 tool=$3 args=$4 ri=${5:-1} gi=$gid4 job rc
	local flag="-g" t0
	# perftest: a local ACK timeout of 18 (1.07 s a try) for the QP, not
	# its 14 (67 ms), whose 0.5 s budget a loaded TCG guest's stalls can
	# use up (ibv_rc_pingpong and ibv_ud_pingpong have no such option)
	case $tool in ib_*) flag="-x" args="$args -u 18" ;; esac
	[ "$ri" = 1 ] || gi=$gid6
	local rxe="$tool -d rxe0 $flag $gi $args" rxd
	rxd="$(rxd_cmd "$name") $tool -d rxd0 $flag $ri $args"
	t0=$(rxi_now)
	if [ "$side" = rxe ]; then
		job=$("$H/guest-exec.sh" -b "$rxe")
		wait_until 120 "$listening" || echo "    (rxe server not listening after 120 s)"
		"$H/guest-exec.sh" -t 300 "$rxd 127.0.0.1" >"$out/$name.rxd.log" 2>&1
		rc=$?
		finish "$job" 120 "$out/$name.rxe.log" || rc=$((rc | 2))
	else
		job=$("$H/guest-exec.sh" -b "$rxd")
		wait_until 300 "$listening" || echo "    (rxd server not listening after 300 s)"
		"$H/guest-exec.sh" -t 300 "$rxe 127.0.0.1" >"$out/$name.rxe.log" 2>&1
		rc=$?
		finish "$job" 300 "$out/$name.rxd.log" || rc=$((rc | 1))
	fi
	report "$name" "$rc" "$tool $args ($side serves, rxd GID $ri)" "$t0"
}

# rping_teardown_race LOG: rping's server finished its run (the client's
# disconnect ends its loop with status 0), then its CM thread, still
# polling, took an event of the id the main thread was destroying and
# exited on rdma_get_cm_event's EBADF: rping's own race, in the guest,
# after every buffer was compared.
rping_teardown_race() {
	grep -q 'server DISCONNECT EVENT' "$1" &&
		tail -n 1 "$1" | grep -qx 'rdma_get_cm_event: Bad file descriptor'
}

# rping_pair NAME SERVER_SIDE: rping -V over rdma_cm (addresses, not GIDs).
rping_pair() {
	local name=$model-$1 side=$2 job rc t0 r
	local ra="rping -V -C 10 -S 4096"
	r="$(rxd_cmd "$name")"
	t0=$(rxi_now)
	if [ "$side" = rxe ]; then
		job=$("$H/guest-exec.sh" -b "$ra -s -a $RXD_INTEROP_GUEST_IP")
		sleep 3
		"$H/guest-exec.sh" -t 300 "$r $ra -c -a $RXD_INTEROP_GUEST_IP" >"$out/$name.rxd.log" 2>&1
		rc=$?
		finish "$job" 120 "$out/$name.rxe.log" || rc=$((rc | 2))
		if [ "$rc" = 2 ] && rping_teardown_race "$out/$name.rxe.log"; then
			echo "KNOWN: $model: rping's server (rdma_rxe) exited on" \
				"rdma_get_cm_event: EBADF after its run: its CM" \
				"thread's teardown race, not counted"
			rc=0
		fi
	else
		job=$("$H/guest-exec.sh" -b "$r $ra -s -a $rxd_ip")
		wait_until 300 "$rxd_up" || echo "    (rxd not up after 300 s)"
		sleep 3
		"$H/guest-exec.sh" -t 300 "$ra -c -a $rxd_ip" >"$out/$name.rxe.log" 2>&1
		rc=$?
		finish "$job" 300 "$out/$name.rxd.log" || rc=$((rc | 1))
	fi
	report "$name" "$rc" "rping -V ($side serves)" "$t0"
}

# report NAME RC WHAT T0: PASS/FAIL line, capture check.
report() {
	local name=$1 rc=$2 what=$3
	if [ "$rc" -eq 0 ]; then
		echo "PASS: $model: $what ($(rxi_since "$4") s)"
		cp "$RXD_INTEROP_SHARE/nic/out/$name.pcapng" "$out/" 2>/dev/null &&
			rxi_check_capture "$out/$name.pcapng"
	else
		echo "FAIL: $model: $what (status $rc)"
		sed 's/^/    rxd | /' "$out/$name.rxd.log" | tail -15
		sed 's/^/    rxe | /' "$out/$name.rxe.log" | tail -15
		failed=1
	fi
}

# flap NAME: link off and on again during a data-checked transfer: with the
# link back within the retry budget the transfer completes byte-exact; with
# it gone for longer, the rxd side ends in error completions, not a hang.
# The short flap rides on rping -V (every buffer compared) with rxe0 as the
# active side: the kernel's rdma_cm puts its RoCE local ACK timeout in the
# REQ (packet lifetime 16 plus one: about 0.5 s a try, seconds in all),
# which rxd takes; ibv_rc_pingpong's fixed 14 (67 ms, 0.5 s in all) is
# within reach of a loaded TCG guest's own stalls.
flap() {
	local name=$model-$1 job rc t0 r rjob
	r="$(rxd_cmd "$name-short")"
	rjob=$("$H/guest-exec.sh" -b "$r rping -s -a $rxd_ip -V -C 300 -S 4096")
	wait_until 300 "$rxd_up" || echo "    (rxd not up after 300 s)"
	sleep 3
	t0=$(rxi_now)
	job=$("$H/guest-exec.sh" -b "rping -c -a $rxd_ip -V -C 300 -S 4096")
	wait_rxe_rx 100 300 || echo "    (no RoCE traffic to rxe0 after 300 s)"
	monitor 1
	finish "$job" 300 "$out/$name-short.rxe.log"
	rc=$?
	finish "$rjob" 120 "$out/$name-short.rxd.log" || rc=$((rc | 1))
	report "$name-short" "$rc" "rping -V -C 300 through a 1 s link flap" "$t0"
	if ! grep -q "link down" "$out/$name-short.rxd.log"; then
		echo "FAIL: $model: rxd did not see the link go down during the transfer"
		failed=1
	fi

	r="$(rxd_cmd "$name-long")"
	job=$("$H/guest-exec.sh" -b "ib_write_bw -d rxe0 -x $gid4 -s 65536 -n 100000")
	wait_until 120 "$listening"
	t0=$(rxi_now)
	rjob=$("$H/guest-exec.sh" -b "$r ib_write_bw -d rxd0 -x 1 -s 65536 -n 100000 127.0.0.1")
	wait_rxe_rx 300 300 || echo "    (no RoCE traffic to rxe0 after 300 s)"
	monitor never
	finish "$rjob" 300 "$out/$name-long.rxd.log"
	rc=$?
	monitor 0
	"$H/guest-exec.sh" -k "$job" >/dev/null 2>&1
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
		grep -qi "completion with error\|status" "$out/$name-long.rxd.log"; then
		echo "PASS: $model: ib_write_bw with the link gone ends in error completions ($(rxi_since "$t0") s, exit $rc)"
	else
		echo "FAIL: $model: ib_write_bw with the link gone: exit $rc, no error completion"
		tail -15 "$out/$name-long.rxd.log" | sed 's/^/    rxd | /'
		failed=1
	fi
}

# gid6: the guest's IPv6 GID (RoCEv2) on rxe0 for fd88::11, added to eth0.
add_ipv6() {
	"$H/guest-exec.sh" -t 60 "sysctl -qw net.ipv6.conf.eth0.disable_ipv6=0
		ip -6 addr add fd88::11/64 dev eth0 nodad; sleep 2
		cd /sys/class/infiniband/rxe0/ports/1
		for i in \$(seq 0 15); do
			[ \"\$(cat gids/\$i 2>/dev/null)\" = fd88:0000:0000:0000:0000:0000:0000:0011 ] &&
			[ \"\$(cat gid_attrs/types/\$i 2>/dev/null)\" = 'RoCE v2' ] && echo GID6=\$i
		done" | sed -n 's/^GID6=//p' | head -1
}

# perf_run TEST OFF ROUND: rxe0 serves perftest's ib_TEST for 5 s, rxd-perf
# TEST is the client on the NIC with RXD_OFFLOADS_OFF=OFF (empty: unset),
# capturing nothing; prints the average MB/s.
perf_run() {
	local name=$model-perf-$1-${2:-on}-$3 job
	rxd_cmd "$name" >/dev/null
	sed -i '/^capture/d' "$RXD_INTEROP_SHARE/nic/$name.ini"   # no capture cost
	job=$("$H/guest-exec.sh" -b "ib_$1 -d rxe0 -x $gid4 -s 65536 -D 5 -F")
	wait_until 120 "$listening" || echo "    (rxe server not listening after 120 s)"
	"$H/guest-exec.sh" -t 300 "env LD_LIBRARY_PATH=$g/lib RXD_CONFIG=$g/$name.ini ${2:+RXD_OFFLOADS_OFF=$2} $g/rxd-perf $(eal_args) -- $1 -s 65536 -D 5 -u 18 127.0.0.1" \
		>"$out/$name.rxd.log" 2>&1
	finish "$job" 120 "$out/$name.rxe.log"
	local what="on"
	[ -n "$2" ] && what="off (RXD_OFFLOADS_OFF=$2)"
	echo "PERF: $model: rxd-perf $1 offloads $what, round $3:" \
		"$(awk '$1 == 65536 && NF >= 4 { print $4 " MB/s" }' "$out/$name.rxd.log" | tail -1)"
}

# perf MODEL: what the port offers and uses, then the rounds.
perf() {
	local r
	rxd_cmd "$model-show" >/dev/null
	for r in "" all; do
		"$H/guest-exec.sh" -t 300 "env LD_LIBRARY_PATH=$g/lib RXD_CONFIG=$g/$model-show.ini ${r:+RXD_OFFLOADS_OFF=$r} $g/rxd-testpmd $(eal_args) -- --cmd 'show ports'" \
			2>&1 | grep -E "offloads|driver|port 0" | sed "s/^/SHOW: $model (RXD_OFFLOADS_OFF=$r): /"
	done
	for r in $(seq 1 "${RXD_NIC_PERF_ROUNDS:-3}"); do
		perf_run read_bw "" "$r"
		perf_run read_bw all "$r"
	done
}

# cases MODEL: the tool runs for one model (ci: a share; full: all).
cases() {
	local m=$1 all=0
	[ "$matrix" = perf ] && { perf; return; }
	[ "$matrix" = full ] && all=1
	if [ $all = 1 ] || [ "$m" = virtio-net-pci ]; then
		pair pp4096-rxe rxe ibv_rc_pingpong "-m 4096 -s 16384 -n 20 -c"
		pair pp4096-rxd rxd ibv_rc_pingpong "-m 4096 -s 16384 -n 20 -c"
	fi
	if [ $all = 1 ] || [ "$m" = vmxnet3 ]; then
		pair pp1024-rxe rxe ibv_rc_pingpong "-m 1024 -s 4096 -n 20 -c"
		pair pp1024-rxd rxd ibv_rc_pingpong "-m 1024 -s 4096 -n 20 -c"
		rping_pair rping-rxd rxd
	fi
	if [ $all = 1 ] || [ "$m" = e1000e ]; then
		pair write-rxe rxe ib_write_bw "-s 65536 -n 50 -F"
		pair read-rxd rxd ib_read_bw "-s 65536 -n 50 -F"
		[ -n "$gid6" ] && pair pp6-rxe rxe ibv_rc_pingpong "-m 4096 -s 4096 -n 20 -c" 2
	fi
	if [ $all = 1 ] || [ "$m" = e1000 ]; then
		pair atomic-rxe rxe ib_atomic_bw "-n 100 -F"
		pair ud-rxd rxd ibv_ud_pingpong "-s 1024 -n 20 -c"
		rping_pair rping-rxe rxe
	fi
	if [ $all = 1 ]; then
		pair write-rxd rxd ib_write_bw "-s 65536 -n 50 -F"
		pair read-rxe rxe ib_read_bw "-s 65536 -n 50 -F"
		pair atomic-rxd rxd ib_atomic_bw "-n 100 -F"
		pair ud-rxe rxe ibv_ud_pingpong "-s 1024 -n 20 -c"
		[ -n "$gid6" ] && pair pp6-rxd rxd ibv_rc_pingpong "-m 4096 -s 4096 -n 20 -c" 2
	fi
	if [ $all = 1 ] || [ "$m" = virtio-net-pci ]; then
		flap "flap"
	fi
}

mkdir -p "$out"
T0=$(rxi_now)
export RXD_INTEROP_NIC_MODELS=$models
pcis=
k=0
for model in $models; do pcis+=" 0000:00:1$k.0"; k=$((k + 1)); done
rxi_guest_up
# shellcheck source=/dev/null
. "$RXD_INTEROP_RUN/lab.env"
gid4=$RXD_INTEROP_GUEST_GID_INDEX
stage
if ! { "$H/guest-exec.sh" -t 120 "set -e
	echo 256 > /proc/sys/vm/nr_hugepages
	mkdir -p /dev/hugepages
	mountpoint -q /dev/hugepages || mount -t hugetlbfs nodev /dev/hugepages
	modprobe uio_pci_generic" && guest_nic_setup; } >"$out/setup.log" 2>&1; then
	echo "FAIL: cannot give the NICs to uio_pci_generic"
	sed 's/^/    | /' "$out/setup.log"
	exit 1
fi
gid6=$(add_ipv6)
echo "guest up with $models, NICs bound in $(rxi_since "$T0") s (rxe0 IPv4 GID $gid4, IPv6 GID ${gid6:-none})"
k=0
for model in $models; do
	k=$((k + 1))
	pci=0000:00:1$((k - 1)).0 nic=nic$k
	T1=$(rxi_now)
	# The guest still holds 10.88.0.1 (and fd88::1) at the previous NIC's
	# MAC: rxd announces its IPv4 address only after RFC 5227's probes
	# (3-6 s), and rxe0 would fail a QP's RTR on the stale entry meanwhile.
	"$H/guest-exec.sh" -t 60 "ip neigh flush dev eth0" >/dev/null 2>&1
	# what rxd makes of the port: link speed and width, path MTU
	"$H/guest-exec.sh" -t 600 "$(rxd_cmd "devinfo-$k") ibv_devinfo -v -d rxd0" \
		>"$out/$model.devinfo.log" 2>&1
	echo "$model ($pci): $(grep -E "active_mtu|active_width|active_speed" \
		"$out/$model.devinfo.log" | tr -s ' \t' ' ' | tr '\n' ';')"
	cases "$model"
	echo "$model: done in $(rxi_since "$T1") s"
done
echo "all models in $(rxi_since "$T0") s"
[ -x "$checker" ] || echo "SKIP: roce-check not found ($checker); captures not checked"
echo "logs and captures: $out"
exit $failed
