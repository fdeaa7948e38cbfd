#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/verbs/symbols.sh BUILD_DIR: checks that the compat
# BUILD_DIR/compat/libibverbs.so.1 lets Debian's verbs consumers start.
# They are linked BIND_NOW, so every versioned symbol they import from
# libibverbs.so.1, and every IBVERBS_* version they require, must be
# defined.  The needed set is symbols.txt (next to this script) plus what
# the consumers installed on this machine import now (objdump -T); the
# version nodes they require come from objdump -p.  Prints what is missing
# and fails if anything is; prints a count line; exits 77 (SKIP) without
# objdump.  Also reports, without failing, libibverbs.map symbols that the
# library does not define yet.

set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
fi
if ! command -v objdump >/dev/null 2>&1; then
	echo "SKIP: objdump not found"
	exit 77
fi

build=$1
here=$(cd "$(dirname "$0")" && pwd)
list=$here/symbols.txt
map=$here/../../lib/verbs/libibverbs.map
lib=$build/compat/libibverbs.so.1

if [ ! -f "$lib" ]; then
	echo "FAIL: $lib not found"
	exit 1
fi
if [ ! -f "$list" ]; then
	echo "FAIL: $list not found"
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

libdir=/usr/lib/$(uname -m)-linux-gnu

# The consumers: ibverbs-utils, perftest, rdmacm-utils, librdmacm and
# librspreload.  Those not installed are skipped.
consumers() {
	for f in /usr/bin/ibv_devices /usr/bin/ibv_devinfo \
		/usr/bin/ibv_rc_pingpong /usr/bin/ibv_uc_pingpong \
		/usr/bin/ibv_ud_pingpong /usr/bin/ibv_srq_pingpong \
		/usr/bin/ibv_xsrq_pingpong /usr/bin/ibv_asyncwatch \
		/usr/bin/ib_* /usr/bin/raw_ethernet_* \
		/usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy \
		/usr/bin/rdma_server /usr/bin/rdma_client \
		/usr/bin/rdma_xserver /usr/bin/rdma_xclient /usr/bin/mckey \
		/usr/bin/riostream /usr/bin/rstream /usr/bin/rcopy \
		/usr/bin/udpong /usr/bin/cmtime \
		"$libdir/librdmacm.so.1" "$libdir/rsocket/librspreload.so.1"; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done
}

# "symbol version consumer" for each IBVERBS_* import of file $1.
imports() {
	objdump -T "$1" 2>/dev/null | awk -v c="${1##*/}" '
		/\*UND\*/ && /IBVERBS_/ {
			v = $(NF - 1); gsub(/[()]/, "", v); print $NF, v, c
		}'
}

# The IBVERBS_* version nodes file $1 requires from libibverbs.so.1.
verneeds() {
	objdump -p "$1" 2>/dev/null | awk '
		/required from / { on = ($3 == "libibverbs.so.1:"); next }
		/^[^ \t]/ { on = 0 }
		on && NF == 4 { print $4 }'
}

: >"$tmp/imports"
: >"$tmp/verneeds"
n_consumers=0
for f in $(consumers); do
	imports "$f" >>"$tmp/imports"
	verneeds "$f" >>"$tmp/verneeds"
	n_consumers=$((n_consumers + 1))
done

# Needed: symbols.txt plus what the installed consumers import.
{
	grep -v '^#' "$list" | awk 'NF == 2 { print $1, $2 }'
	awk '{ print $1, $2 }' "$tmp/imports"
} | LC_ALL=C sort -u >"$tmp/needed"

# Exported at a default version (hidden "(VER)" ones do not count).
objdump -T "$lib" | awk '
	NF >= 2 && !/\*UND\*/ && $(NF - 1) ~ /^IBVERBS_/ && $NF !~ /^IBVERBS_/ {
		print $NF, $(NF - 1)
	}' | LC_ALL=C sort -u >"$tmp/exported"

objdump -p "$lib" | awk '
	/^Version definitions:/ { on = 1; next }
	/^[A-Z]/ { on = 0 }
	on && NF == 4 { print $4 }' | LC_ALL=C sort -u >"$tmp/verdefs"
{
	awk '{ print $2 }' "$tmp/needed"
	cat "$tmp/verneeds"
} | LC_ALL=C sort -u >"$tmp/versions"

LC_ALL=C comm -23 "$tmp/needed" "$tmp/exported" >"$tmp/missing"
LC_ALL=C comm -23 "$tmp/versions" "$tmp/verdefs" >"$tmp/missing_ver"

while read -r sym ver; do
	who=$(awk -v s="$sym" -v v="$ver" '$1 == s && $2 == v { print $3 }' \
		"$tmp/imports" | LC_ALL=C sort -u | paste -sd ' ' -)
	echo "MISSING: $sym@$ver${who:+ (needed by $who)}"
done <"$tmp/missing"
while read -r ver; do
	echo "MISSING version node: $ver"
done <"$tmp/missing_ver"

if [ -f "$map" ]; then
	awk '
		/^[ \t]*IBVERBS_[A-Z0-9_.]+[ \t]*\{/ { v = $1; next }
		/^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ && v != "" {
			s = $1; sub(/;$/, "", s); print s, v
		}' "$map" | LC_ALL=C sort -u >"$tmp/map"
	n_todo=$(LC_ALL=C comm -23 "$tmp/map" "$tmp/exported" | wc -l)
	n_map=$(wc -l <"$tmp/map")
	echo "note: $n_todo of $n_map libibverbs.map symbols not defined yet"
fi

n_needed=$(wc -l <"$tmp/needed")
n_missing=$(wc -l <"$tmp/missing")
n_mver=$(wc -l <"$tmp/missing_ver")
if [ "$n_consumers" -gt 0 ]; then
	src="symbols.txt + $n_consumers consumers"
else
	src="symbols.txt only: no consumer installed"
fi
echo "verbs-symbols: $n_needed needed ($src)," \
	"$(wc -l <"$tmp/exported") exported, $n_missing missing," \
	"$n_mver version nodes missing"
[ "$n_missing" -eq 0 ] && [ "$n_mver" -eq 0 ]
