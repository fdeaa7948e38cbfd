#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/wire/roce_check.sh: conformance of frames built by lib/wire.
# Runs gen-frames (one frame per opcode, IPv4/IPv6, VLAN, UDP checksum,
# every ACK syndrome kind) and hands the capture to the independent
# checker ../shared/tools/roce-check (or $RXD_ROCE_CHECK).  Exit 77 (meson
# SKIP) when the checker is not there, as on a user's machine.
#
# usage: roce_check.sh GEN_FRAMES OUTDIR
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 GEN_FRAMES OUTDIR" >&2
	exit 2
fi
gen=$1
out=$2
root=${RXD_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}

mkdir -p "$out" || exit 1
pcap=$out/rxd-frames.pcap
n=$("$gen" "$pcap") || { echo "FAIL: gen-frames failed"; exit 1; }
echo "gen-frames: $n frames in $pcap"

if [ -n "${RXD_ROCE_CHECK:-}" ]; then
	checker=$RXD_ROCE_CHECK
	if [ ! -x "$checker" ]; then
		echo "FAIL: RXD_ROCE_CHECK=$checker is not executable"
		exit 1
	fi
else
	checker=$root/../shared/tools/roce-check/roce-check
	if [ ! -x "$checker" ]; then
		echo "SKIP: roce-check not found (../shared/tools/roce-check);" \
			"conformance not checked"
		exit 77
	fi
fi

set -- --strict --summary --min-packets "$n"
if command -v tshark >/dev/null 2>&1; then
	set -- "$@" --tshark
fi
echo "$checker $* $pcap"
"$checker" "$@" "$pcap"
rc=$?
[ $rc -eq 0 ] || echo "FAIL: roce-check exit status $rc"
exit $rc
