#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/layers/include-arrows.sh SOURCE_ROOT: the layers of
# doc/architecture.md include downwards only.  A .c or .h file of a layer
# (or of its subfolders) may include the headers of its own folder and of
# layers ranked below it, never a header of a layer of the same or a higher
# rank: so lib/transport includes no lib/engine header, and lib/qp (below
# both) neither.  An
# include is matched by the header's file name, with or without a folder
# ("rxd_engine.h", "engine/rxd_engine.h", <rxd_engine.h>).  Every folder of
# lib/ must have a row.  Beyond ranks, some pairs are forbidden outright
# (FORBIDDEN: the programs and rdma_cm reach rxd through include/rxd and
# lib/stack, never the engine), searched in the whole folder with its
# subfolders.  The check first runs on a tree of its own with one include
# upwards, one downwards and one forbidden, and fails if it does not tell
# them apart.  Prints each include upwards or forbidden and fails if there
# is one.

set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 SOURCE_ROOT" >&2
	exit 2
fi

# The layers, bottom up: folder and rank.  Equal ranks do not include each
# other either.
LAYERS='lib/wire 1
lib/config 1
lib/net 2
pmd_glue 2
lib/qp 3
lib/transport 4
lib/engine 5
lib/stack 6
lib/verbs 7
lib/cm 8
lib/rsockets 9'

# Folders that may not include the headers of another, whatever the ranks:
# from, to.
FORBIDDEN='apps lib/engine
lib/cm lib/engine
lib/rsockets lib/engine'
# TODO issue 31: add "lib/verbs lib/transport" to FORBIDDEN once lib/verbs
# includes no lib/transport header (rxd_transport.h, rxd_mr.h) any more.

# The headers of a folder as one extended regular expression (a|b|...).
header_pattern() {
	ls "$1" | sed -n 's/\./\\./g; /\\\.h$/p' | paste -sd '|' -
}

# Print "file:line: #include ... (note $4)" for every include, in the files
# of folder $2 of the tree at $1 (subfolders too), of a header of folder
# $3.
include_hits() {
	pat=$(header_pattern "$1/$3")
	[ -n "$pat" ] || return 0
	(cd "$1" && grep -rnE --include='*.c' --include='*.h' \
		"^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]([^\">]*/)?($pat)[\">]" \
		"$2") | sed "s|\$| ($4)|"
}

# Print "file:line: includes folder/header" for every include upwards in the
# tree at $1 ranked by $2; the count of such includes is the exit status.
upward_includes() {
	tree=$1
	layers=$2
	found=0
	while read -r from rank; do
		[ -d "$tree/$from" ] || continue
		while read -r to to_rank; do
			[ "$to" != "$from" ] && [ "$to_rank" -ge "$rank" ] &&
				[ -d "$tree/$to" ] || continue
			hits=$(include_hits "$tree" "$from" "$to" \
				"a header of $to, rank $to_rank over $rank")
			[ -n "$hits" ] || continue
			echo "$hits"
			found=$((found + $(echo "$hits" | wc -l)))
		done <<EOF
$layers
EOF
	done <<EOF
$layers
EOF
	return $((found > 125 ? 125 : found))
}

# Print "file:line: includes folder/header" for every include in the tree
# at $1 of a pair forbidden by $2 (from, to: from's files at any depth); the
# count of such includes is the exit status.
forbidden_includes() {
	tree=$1
	found=0
	while read -r from to; do
		[ -d "$tree/$from" ] && [ -d "$tree/$to" ] || continue
		hits=$(include_hits "$tree" "$from" "$to" \
			"a header of $to, forbidden to $from")
		[ -n "$hits" ] || continue
		echo "$hits"
		found=$((found + $(echo "$hits" | wc -l)))
	done <<EOF
$2
EOF
	return $((found > 125 ? 125 : found))
}

# The detector, on a tree of its own: one include up, one down.
self=$(mktemp -d)
trap 'rm -rf "$self"' EXIT
mkdir -p "$self/low" "$self/high"
echo '#include "high.h"' > "$self/low/up.c"
echo '#include "low.h"' > "$self/high/down.c"
: > "$self/low/low.h"
: > "$self/high/high.h"
out=$(upward_includes "$self" 'low 1
high 2')
if [ $? -ne 1 ] || ! echo "$out" | grep -q '^low/up.c:1:'; then
	echo "FAIL: the check does not tell an include upwards from one down:"
	echo "$out"
	exit 1
fi
mkdir -p "$self/top/sub"
echo '#include "low.h"' > "$self/top/sub/bad.c"
echo '#include "high.h"' > "$self/top/good.c"
out=$(forbidden_includes "$self" 'top low')
if [ $? -ne 1 ] || ! echo "$out" | grep -q '^top/sub/bad.c:1:'; then
	echo "FAIL: the check does not tell a forbidden include from an allowed one:"
	echo "$out"
	exit 1
fi

root=$1
status=0
for d in "$root"/lib/*/; do
	d=${d%/}
	name=lib/${d##*/}
	if ! echo "$LAYERS" | grep -q "^$name "; then
		echo "FAIL: $name has no rank in $0"
		status=1
	fi
done
out=$(upward_includes "$root" "$LAYERS")
n=$?
if [ $n -ne 0 ]; then
	echo "$out"
	echo "FAIL: $n include(s) upwards"
	exit 1
fi
out=$(forbidden_includes "$root" "$FORBIDDEN")
n=$?
if [ $n -ne 0 ]; then
	echo "$out"
	echo "FAIL: $n forbidden include(s)"
	exit 1
fi
[ $status -eq 0 ] || exit 1
files=$(cd "$root" && echo "$LAYERS" | while read -r f r; do
	ls "$f"/*.c "$f"/*.h 2>/dev/null; done | wc -l)
echo "ok: $(echo "$LAYERS" | wc -l) layers, $files files, no include upwards," \
	"$(echo "$FORBIDDEN" | wc -l) forbidden pairs kept"
