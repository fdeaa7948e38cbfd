#!/bin/bash
# Debian's unmodified ibv_devices and ibv_devinfo -v (ibverbs-utils) run
# against build/compat/libibverbs.so.1 over a memif port and must describe
# rxd0 truthfully.  Usage: devinfo.sh BUILD_DIR
set -u
build=$1
fail=0
command -v ibv_devinfo >/dev/null || { echo "SKIP: ibverbs-utils not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck source=../lib/compat-env.sh
. "$(dirname "$0")/../lib/compat-env.sh" "$build"
export RXD_EAL_ARGS="-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdinfo$$ --vdev=net_memif0,role=server,socket=$dir/m.sock,socket-abstract=no --log-level=lib.eal:error --log-level=pmd.net.memif:error"
export RXD_ADDR=10.0.0.1/24,fd00::1/64
export RXD_LINK_WAIT_MS=0     # the memif has no peer: do not wait

check() { # name pattern file
	if grep -qE "$2" "$3"; then
		echo "PASS: $1"
	else
		echo "FAIL: $1 (no '$2')"
		fail=1
	fi
}
ibv_devices >"$dir/devices" 2>&1 || fail=1
ibv_devinfo -v >"$dir/devinfo" 2>&1 || fail=1
check "ibv_devices lists rxd0" "^\s+rxd0\s+[0-9a-f]{16}\s*$" "$dir/devices"
check "ibv_devinfo names rxd0" "hca_id:.rxd0" "$dir/devinfo"
check "GID 0 is link-local" "GID\[  0\]:.*fe80::.*RoCE v2" "$dir/devinfo"
check "GID 1 is ::ffff:10.0.0.1" "GID\[  1\]:.*::ffff:10.0.0.1, RoCE v2" "$dir/devinfo"
check "GID 2 is fd00::1" "GID\[  2\]:.*fd00::1, RoCE v2" "$dir/devinfo"
check "active MTU 1024 (Ethernet 1500)" "active_mtu:.*1024 \(3\)" "$dir/devinfo"
check "max MTU 4096" "max_mtu:.*4096 \(5\)" "$dir/devinfo"
check "link layer Ethernet" "link_layer:.*Ethernet" "$dir/devinfo"
check "memif without peer is down" "state:.*PORT_DOWN" "$dir/devinfo"
check "timestamps offered" "completion timestamp_mask:.*0xffffffffffffffff" "$dir/devinfo"
RXD_EAL_ARGS= ibv_devices >"$dir/noeal" 2>&1
check "a clear error without RXD_EAL_ARGS" \
	"neither RXD_EAL_ARGS nor eal_args in \\[engine\\] of RXD_CONFIG is set" \
	"$dir/noeal"
# the EAL command line from the configuration file alone
printf '[engine]\neal_args = %s\n' "${RXD_EAL_ARGS/rxdinfo/rxdinfoc}" \
	>"$dir/eal.ini"
RXD_EAL_ARGS= RXD_CONFIG=$dir/eal.ini ibv_devinfo >"$dir/conf" 2>&1 || fail=1
check "EAL arguments from eal_args in RXD_CONFIG" "hca_id:.rxd0" "$dir/conf"
printf '[engine]\neal_args = -l 0 --bogus-eal-option\n' >"$dir/bad.ini"
RXD_EAL_ARGS= RXD_CONFIG=$dir/bad.ini ibv_devices >"$dir/bad" 2>&1
check "a clear error when eal_args is wrong" \
	"EAL initialisation from eal_args of RXD_CONFIG failed" "$dir/bad"
[ $fail = 0 ] || cat "$dir/devices" "$dir/devinfo"
exit $fail
