# shellcheck shell=bash
# shellcheck disable=SC2034 # settings are used by the scripts sourcing this
# SPDX-License-Identifier: BSD-3-Clause
#
# lib.sh - settings and helpers shared by the rxd interop harness
# (tests/interop/*.sh). Sourced, never executed. Every setting below is a
# default that the environment overrides; doc/interop.md lists them all.
#
# Topology (everything inside one private network namespace, no uplink):
#
#   netns $RXD_INTEROP_NETNS
#     bridge $RXD_INTEROP_BRIDGE (no address)
#       +- $RXD_INTEROP_TAP      <-> QEMU guest eth0 $RXD_INTEROP_GUEST_IP, rxe0
#       +- $RXD_INTEROP_HOST_PEER <-> veth $RXD_INTEROP_HOST_IF (no kernel IP):
#                                    rxd attaches here with net_af_packet and
#                                    owns $RXD_INTEROP_RXD_IP in userspace

RXD_INTEROP_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# meson's interop tests pass their build's b_sanitize: the lab runs in the
# first CI phase only (the unsanitized build), as doc/testing.md says.
if [ "${RXD_INTEROP_SANITIZE:-none}" != none ]; then
	echo "SKIP: the lab runs in the unsanitized build only" \
		"(this build: b_sanitize=$RXD_INTEROP_SANITIZE)"
	exit 77
fi

# ---- guest kernel ----------------------------------------------------------------
# 1: the guest boots the newest kernel of $RXD_INTEROP_SUITE-backports
# (bookworm: 6.12, whose rdma_rxe has ATOMIC WRITE and FLUSH) instead of the
# stock one; it has a cache of its own (a second image, same packages).
: "${RXD_INTEROP_BACKPORTS_KERNEL:=0}"

# ---- where things live -------------------------------------------------------
if [ "$RXD_INTEROP_BACKPORTS_KERNEL" = 1 ]; then
	: "${RXD_INTEROP_DIR:=/var/tmp/rxd-interop-backports}"
fi
: "${RXD_INTEROP_DIR:=/var/tmp/rxd-interop}"        # cache: rootfs, image, kernel
: "${RXD_INTEROP_ROOTFS:=$RXD_INTEROP_DIR/rootfs}"
: "${RXD_INTEROP_IMAGE:=$RXD_INTEROP_DIR/guest.ext4}"
: "${RXD_INTEROP_IMAGE_SIZE:=2G}"
: "${RXD_INTEROP_KERNEL:=$RXD_INTEROP_DIR/vmlinuz}"
: "${RXD_INTEROP_INITRD:=$RXD_INTEROP_DIR/initrd.img}"

# ---- guest distribution --------------------------------------------------------
: "${RXD_INTEROP_SUITE:=bookworm}"
# Empty = take them from this machine's apt sources (see detect_mirrors).
# RXD_INTEROP_SECURITY_MIRROR=none leaves the security suite out.
: "${RXD_INTEROP_MIRROR:=}"
: "${RXD_INTEROP_SECURITY_MIRROR:=}"
: "${RXD_INTEROP_GUEST_PACKAGES:=linux-image-amd64 rdma-core ibverbs-utils
 ibverbs-providers perftest rdmacm-utils infiniband-diags iproute2 kmod
 iputils-ping procps ethtool tcpdump}"
: "${RXD_INTEROP_GUEST_EXTRA_PACKAGES:=}"

# ---- lab network ---------------------------------------------------------------
: "${RXD_INTEROP_NETNS:=rxdlab}"
: "${RXD_INTEROP_BRIDGE:=rxdbr0}"
: "${RXD_INTEROP_TAP:=rxdtap0}"
: "${RXD_INTEROP_HOST_IF:=rxdh0}"            # rxd's end: net_af_packet,iface=rxdh0
: "${RXD_INTEROP_HOST_PEER:=rxdh0br}"        # its peer, enslaved to the bridge
: "${RXD_INTEROP_HOST_MAC:=02:88:00:00:00:01}"
: "${RXD_INTEROP_PREFIXLEN:=24}"
: "${RXD_INTEROP_GUEST_IP:=10.88.0.11}"
: "${RXD_INTEROP_GUEST_MAC:=52:54:00:88:00:0b}"
: "${RXD_INTEROP_RXD_IP:=10.88.0.1}"         # owned by rxd, never by the kernel
: "${RXD_INTEROP_PROBE_IF:=rxdp0}"           # selftest's temporary kernel veth
: "${RXD_INTEROP_PROBE_IP:=10.88.0.254}"
: "${RXD_INTEROP_MTU:=1500}"

# ---- guest machine -------------------------------------------------------------
: "${RXD_INTEROP_MEM:=1024}"                 # MiB
: "${RXD_INTEROP_SMP:=1}"
: "${RXD_INTEROP_ACCEL:=auto}"               # auto | tcg | kvm
: "${RXD_INTEROP_CPU:=}"                     # default: qemu64 (tcg), host (kvm)
: "${RXD_INTEROP_BOOT_TIMEOUT:=300}"         # seconds until rxe0 must be ACTIVE
: "${RXD_INTEROP_EXEC_TIMEOUT:=300}"         # default guest-exec.sh timeout
# Extra emulated PCI NICs on the bridge for DPDK in the guest (nic-interop.sh):
# QEMU NIC models (virtio-net-pci, e1000e, e1000, vmxnet3), space-separated,
# empty = none. The k-th (k = 1, 2, ...) gets guest PCI address 0000:00:1<k-1>.0,
# tap $RXD_INTEROP_TAP"n<k>", MAC 52:54:00:88:0<k>:0b and the name "nic<k>" in
# the QEMU monitor (always on: $RXD_INTEROP_RUN/monitor.sock).
: "${RXD_INTEROP_NIC_MODELS:=}"
# Queue pairs of each extra NIC's tap (a multiqueue tap when above 1; give
# the model mq=on, and rss=on for virtio-net's RSS: steer-interop.sh).
: "${RXD_INTEROP_NIC_QUEUES:=1}"
# Per-lab runtime state: console log, overlay disk, 9p share with the spool.
: "${RXD_INTEROP_RUN:=$RXD_INTEROP_DIR/run-$RXD_INTEROP_NETNS}"
RXD_INTEROP_SHARE=$RXD_INTEROP_RUN/share
RXD_INTEROP_QEMU_NAME="rxd-interop-$RXD_INTEROP_NETNS"

# ---- helpers ---------------------------------------------------------------------
rxi_log()  { printf '[interop] %s\n' "$*" >&2; }
rxi_die()  { printf '[interop] error: %s\n' "$*" >&2; exit 1; }
rxi_need_root() { [ "$(id -u)" -eq 0 ] || rxi_die "must be run as root"; }

# Seconds since the epoch with fractions, and a difference formatted as "12.3".
rxi_now() { echo "$EPOCHREALTIME"; }
rxi_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
# Microseconds since the epoch, and that value SEC (may be fractional) from now.
rxi_us() { echo "${EPOCHREALTIME/./}"; }
rxi_us_after() { awk -v n="${EPOCHREALTIME/./}" -v t="$1" 'BEGIN { printf "%.0f", n + t * 1e6 }'; }

rxi_ns() { ip netns exec "$RXD_INTEROP_NETNS" "$@"; }
rxi_ns_exists() { [ -e "/run/netns/$RXD_INTEROP_NETNS" ]; }

# skip REASON: end the script as a meson SKIP (77).
skip() { echo "SKIP: $*"; exit 77; }

# rxi_script_init BUILD_DIR: what every interop script that runs tools on
# rxd sets: build (BUILD_DIR, absolute), out (log and capture directory),
# checker (roce-check, used when it exists) and failed; SKIP unless root.
rxi_script_init() {
	build=$(cd "$1" && pwd)
	out=${RXD_INTEROP_OUT:-$build/interop}
	checker=${RXD_ROCE_CHECK:-$RXD_INTEROP_HERE/../../../shared/tools/roce-check/roce-check}
	failed=0
	[ "$(id -u)" -eq 0 ] || skip "needs root (network namespace, QEMU)"
}

# For the scripts, after rxi_script_init:
# rxi_rxd_run NAME TOOL ARGS...: the unmodified tool on rxd (compat
# libraries, net_af_packet on the lab's host interface), capturing every
# frame to $out/NAME.pcapng.
rxi_rxd_run() {
	local name=$1
	# af_packet's ring frames hold the lab's MTU + 88: its default
	# (2048, in blocks of 4096) up to MTU 1960, whole pages above
	local fz=2048 bz=4096
	if [ $((RXD_INTEROP_MTU + 88)) -gt 2048 ]; then
		fz=$(( (RXD_INTEROP_MTU + 88 + 4095) / 4096 * 4096 ))
		bz=$fz
	fi
	shift
	cat >"$out/$name.ini" <<-INI
	[port0]
	addr = $RXD_INTEROP_RXD_IP/24
	mtu = $RXD_INTEROP_MTU
	capture = $out/$name.pcapng
	INI
	(
		# shellcheck source=../lib/compat-env.sh
		. "$RXD_INTEROP_HERE/../lib/compat-env.sh" "$build"
		rxi_ns env RXD_CONFIG="$out/$name.ini" \
			RXD_EAL_ARGS="-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdinterop-$RXD_INTEROP_NETNS --vdev=net_af_packet0,iface=$RXD_INTEROP_HOST_IF,framesz=$fz,blocksz=$bz --log-level=lib.eal:error" \
			timeout 120 "$@"
	)
}

# rxi_guest_up: build the Soft-RoCE guest (once) and boot it, stopping it
# when the script exits; SKIP (77) if it cannot be built, FAIL if it does
# not start.
rxi_guest_up() {
	trap '"$RXD_INTEROP_HERE/guest-stop.sh" >/dev/null 2>&1' EXIT
	mkdir -p "$out"
	"$RXD_INTEROP_HERE/guest-build.sh" >"$out/build.log" 2>&1 || {
		echo "SKIP: cannot build the Soft-RoCE guest (see $out/build.log)"
		exit 77
	}
	"$RXD_INTEROP_HERE/guest-start.sh" >"$out/start.log" 2>&1 || {
		echo "FAIL: the Soft-RoCE guest did not start"
		cat "$out/start.log"
		exit 1
	}
}

# rxi_tools_veth: the kernel's own port on the lab's bridge (kif, address
# kip), over which the tools' TCP exchange runs: rxd's address has no
# kernel route.  After rxi_guest_up.
rxi_tools_veth() {
	kif=rxdk0
	kip=$RXD_INTEROP_PROBE_IP
	"$RXD_INTEROP_HERE/lab-veth.sh" add "$kif" "$kip/24" >/dev/null
}

# rxi_guest_dpdk_init PMD...: what running rxd inside the guest on DPDK
# needs from this host: rxd's compat libraries (not an ASan build: the
# guest has no libasan) and each PMD's DPDK 22.11 library; SKIP without
# them.  Sets libdir and pmds.
rxi_guest_dpdk_init() {
	local p
	libdir=/lib/x86_64-linux-gnu
	pmds="$*"
	[ -e "$build/compat/libibverbs.so.1" ] || skip "no $build/compat/libibverbs.so.1"
	ldd "$build/compat/libibverbs.so.1" | grep -q libasan &&
		skip "an ASan build: the guest has no libasan"
	for p in $pmds; do
		[ -e "$libdir/librte_$p.so.23" ] || skip "no $libdir/librte_$p.so.23 (DPDK 22.11 PMD)"
	done
}

# rxi_guest_dpdk_stage DIR [BINARY...]: rxd's compat libraries, the PMDs
# (DIR/pmds) and every library they and the BINARYs load but the C
# library (DIR/lib), into DIR of the guest's share.
rxi_guest_dpdk_stage() {
	local d=$1 p f
	shift
	mkdir -p "$d/lib" "$d/pmds"
	cp -L "$build/compat/libibverbs.so.1" "$build/compat/librdmacm.so.1" "$d/lib/"
	for p in $pmds; do cp -L "$libdir/librte_$p.so.23" "$d/pmds/"; done
	for f in $(ldd "$d"/lib/* "$d"/pmds/* "$@" | awk '$3 ~ /^\// { print $3 }' |
		grep -v -E "^$d/|/(libc|libm|ld-linux-x86-64)\.so" | sort -u); do
		cp -L "$f" "$d/lib/"
	done
}

# rxi_check_capture PCAP: roce-check must accept it (when it exists).
rxi_check_capture() {
	local pcap=$1
	[ -x "$checker" ] || return 0
	if "$checker" --no-scapy --min-packets 1 "$pcap" >"$pcap.check" 2>&1; then
		echo "PASS: roce-check accepts $(basename "$pcap") ($(tail -1 "$pcap.check" | sed 's/.*: //'))"
	else
		echo "FAIL: roce-check refuses $(basename "$pcap")"
		sed 's/^/    | /' "$pcap.check" | tail -20
		failed=1
	fi
}

# rxi_pair NAME SERVER_SIDE "SERVER ARGS" "CLIENT ARGS" CHECK: a tool's
# server on SERVER_SIDE (guest or rxd) and its client on the other; the
# server binds its own address (@S@ in the args).  Both must exit 0 and
# the client's output hold CHECK (an extended regular expression); the
# capture then goes through rxi_check_capture.  The guest's side may take
# RXI_PAIR_GUEST_S seconds (60).
rxi_pair() {
	local name=$1 side=$2 sargs=$3 cargs=$4 check=$5 job rc grc ip clog
	local gt=${RXI_PAIR_GUEST_S:-60}
	if [ "$side" = guest ]; then
		ip=$RXD_INTEROP_GUEST_IP
		job=$("$RXD_INTEROP_HERE/guest-exec.sh" -b "${sargs//@S@/$ip}")
		sleep 3
		# shellcheck disable=SC2086
		rxi_rxd_run "$name" ${cargs//@S@/$ip} >"$out/$name.rxd.log" 2>&1
		rc=$?
		"$RXD_INTEROP_HERE/guest-exec.sh" -t "$gt" -w "$job" \
			>"$out/$name.guest.log" 2>&1
		grc=$?
		clog=$out/$name.rxd.log
	else
		ip=$RXD_INTEROP_RXD_IP
		# shellcheck disable=SC2086
		rxi_rxd_run "$name" ${sargs//@S@/$ip} >"$out/$name.rxd.log" 2>&1 &
		sleep 3
		"$RXD_INTEROP_HERE/guest-exec.sh" -t "$gt" "${cargs//@S@/$ip}" \
			>"$out/$name.guest.log" 2>&1
		grc=$?
		wait $!
		rc=$?
		clog=$out/$name.guest.log
	fi
	if [ $rc -eq 0 ] && [ $grc -eq 0 ] && grep -Eq "$check" "$clog"; then
		echo "PASS: $name ($side serves): both ends complete"
		rxi_check_capture "$out/$name.pcapng"
	else
		echo "FAIL: $name ($side serves): rxd exit $rc, guest exit $grc"
		sed 's/^/    rxd   | /' "$out/$name.rxd.log" | tail -15
		sed 's/^/    guest | /' "$out/$name.guest.log" | tail -15
		failed=1
	fi
}

# Accelerator actually used. A /dev/kvm that the CPU flags do not back with
# vmx/svm (e.g. a PVM host) cannot run the stock kernel, so "auto" means KVM
# only with real hardware virtualisation.
rxi_accel() {
	case "$RXD_INTEROP_ACCEL" in
	tcg | kvm) echo "$RXD_INTEROP_ACCEL" ;;
	auto)
		if [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
			grep -qwE 'vmx|svm' /proc/cpuinfo; then
			echo kvm
		else
			echo tcg
		fi
		;;
	*) rxi_die "RXD_INTEROP_ACCEL must be auto, tcg or kvm" ;;
	esac
}

# PID of our running QEMU, or failure. The pid file alone is not trusted: the
# process must still exist and carry this lab's -name.
rxi_qemu_pid() {
	local pid
	pid=$(cat "$RXD_INTEROP_RUN/qemu.pid" 2>/dev/null) || return 1
	case "$pid" in '' | *[!0-9]*) return 1 ;; esac
	tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null |
		grep -qx "guest=$RXD_INTEROP_QEMU_NAME" || return 1
	echo "$pid"
}

# Value of KEY from the guest's ready file (written by the guest agent).
rxi_ready_get() {
	sed -n "s/^$1=//p" "$RXD_INTEROP_SHARE/ready" 2>/dev/null
}

# Print "URI" lines for the main and security archive of $RXD_INTEROP_SUITE
# found in this machine's apt configuration (one-line .list and deb822
# .sources). Output: "main <uri>" and/or "security <uri>". Arguments, if
# given, replace the system's list of source files.
# shellcheck disable=SC2120 # arguments are optional
rxi_apt_sources() {
	local files=() f
	if [ $# -gt 0 ]; then
		files=("$@")
	else
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
			/etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] && files+=("$f")
		done
	fi
	[ ${#files[@]} -gt 0 ] || return 0
	awk -v suite="$RXD_INTEROP_SUITE" '
	function emit(types, uris, suites,   nu, ns, u, s, i, j, sl) {
		if (types !~ /(^|[ \t])deb([ \t]|$)/) return
		nu = split(uris, u, /[ \t]+/); ns = split(suites, s, /[ \t]+/)
		for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) {
			if (u[i] == "") continue
			sub(/\/+$/, "", u[i])
			if (s[j] == suite && !seen["main"]++) print "main", u[i]
			if (s[j] == suite "-security" && !seen["security"]++) print "security", u[i]
		}
	}
	function flush() {
		if (enabled != "no") emit(t, us, ss)
		t = us = ss = ""; enabled = ""
	}
	FNR == 1 { flush(); deb822 = (FILENAME ~ /\.sources$/) }
	/^[ \t]*#/ { next }
	{ sub(/[ \t]#.*/, "") }
	deb822 {
		if ($0 ~ /^[ \t]*$/) { flush(); next }
		if (match($0, /^[A-Za-z-]+:/)) {
			key = tolower(substr($0, 1, RLENGTH - 1)); val = substr($0, RLENGTH + 1)
			gsub(/^[ \t]+|[ \t]+$/, "", val)
			if (key == "types") t = val
			else if (key == "uris") us = val
			else if (key == "suites") ss = val
			else if (key == "enabled") enabled = tolower(val)
		}
		next
	}
	$1 == "deb" {
		i = 2
		if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
		emit("deb", $i, $(i + 1))
	}
	END { flush() }' "${files[@]}"
}

# Fill RXD_INTEROP_MIRROR / RXD_INTEROP_SECURITY_MIRROR when not set.
rxi_detect_mirrors() {
	local kind uri
	while read -r kind uri; do
		case "$kind" in
		main) [ -n "$RXD_INTEROP_MIRROR" ] || RXD_INTEROP_MIRROR=$uri ;;
		security) [ -n "$RXD_INTEROP_SECURITY_MIRROR" ] || RXD_INTEROP_SECURITY_MIRROR=$uri ;;
		esac
	done < <(rxi_apt_sources)
	: "${RXD_INTEROP_MIRROR:=http://deb.debian.org/debian}"
	: "${RXD_INTEROP_SECURITY_MIRROR:=none}"
}

# Create a veth pair IF <-> PEER inside the lab, PEER enslaved to the bridge.
# ADDR is IP/PREFIXLEN for a kernel-owned end or "none" for an end a userspace
# stack owns; MAC (optional) is set on IF. Offloads are switched off on both ends so that frames
# seen through AF_PACKET carry final checksums and are never merged or split.
rxi_veth_add() {
	local ifn=$1 peer=$2 addr=$3 mac=${4:-} e
	ip -n "$RXD_INTEROP_NETNS" link del "$ifn" 2>/dev/null || true
	ip -n "$RXD_INTEROP_NETNS" link add "$ifn" type veth peer name "$peer"
	[ -z "$mac" ] || ip -n "$RXD_INTEROP_NETNS" link set "$ifn" address "$mac"
	for e in "$ifn" "$peer"; do
		ip -n "$RXD_INTEROP_NETNS" link set "$e" mtu "$RXD_INTEROP_MTU"
		if command -v ethtool >/dev/null; then
			rxi_ns ethtool -K "$e" tx off rx off gro off gso off tso off \
				>/dev/null 2>&1 || rxi_log "ethtool -K $e: some offloads unchanged"
		fi
	done
	ip -n "$RXD_INTEROP_NETNS" link set "$peer" master "$RXD_INTEROP_BRIDGE" up
	if [ "$addr" != none ]; then
		ip -n "$RXD_INTEROP_NETNS" addr add "$addr" dev "$ifn"
	fi
	ip -n "$RXD_INTEROP_NETNS" link set "$ifn" up
}

rxi_veth_del() {
	rxi_ns_exists || return 0
	ip -n "$RXD_INTEROP_NETNS" link del "$1" 2>/dev/null || true
}
