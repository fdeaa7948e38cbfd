#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/layers/include-arrows.sh SOURCE_ROOT: the layers of
# doc/architecture.md include downwards only.  A .c or .h file of a layer
# may include the headers of its own folder and of layers ranked below it,
# never a header of a layer of the same or a higher rank: so lib/transport
# includes no lib/engine header, and lib/qp (below both) neither.  Some
# arrows downwards are forbidden too (SKIPS): lib/verbs reaches the
# transport through the engine and lib/qp, never its headers.  An
# include is matched by the header's file name, with or without a folder
# ("rxd_engine.h", "engine/rxd_engine.h", <rxd_engine.h>).  Every folder of
# lib/ must have a row.  The check first runs on a tree of its own with one
# include upwards, one skipping a layer and one downwards, and fails if it
# does not tell them apart.  Prints each forbidden include and fails if
# there is one.

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
lib/verbs 6
lib/cm 7'

# Arrows downwards that are forbidden all the same: from, to.
SKIPS='lib/verbs lib/transport'

# The headers of a folder as one extended regular expression (a|b|...).
header_pattern() {
	ls "$1" | sed -n 's/\./\\./g; /\\\.h$/p' | paste -sd '|' -
}

# Whether folder $1 may not include folder $2 by the pairs in $3.
skips() {
	echo "$3" | grep -qx "$1 $2"
}

# Print "file:line: includes folder/header" for every include upwards, or
# along a forbidden pair of $3, in the tree at $1 ranked by $2; the count
# of such includes is the exit status.
upward_includes() {
	tree=$1
	layers=$2
	pairs=$3
	found=0
	while read -r from rank; do
		[ -d "$tree/$from" ] || continue
		while read -r to to_rank; do
			[ "$to" != "$from" ] && [ -d "$tree/$to" ] || continue
			[ "$to_rank" -ge "$rank" ] || skips "$from" "$to" "$pairs" ||
				continue
			pat=$(header_pattern "$tree/$to")
			[ -n "$pat" ] || continue
			hits=$(cd "$tree" && grep -nE \
				"^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]([^\">]*/)?($pat)[\">]" \
				"$from"/*.c "$from"/*.h 2>/dev/null)
			[ -n "$hits" ] || continue
			echo "$hits" | sed "s|\$| (a header of $to, rank $to_rank; $from is $rank)|"
			found=$((found + $(echo "$hits" | wc -l)))
		done <<EOF
$layers
EOF
	done <<EOF
$layers
EOF
	return $((found > 125 ? 125 : found))
}

# The detector, on a tree of its own: one include up, one down, and from
# top one down to high (allowed) and one skipping it to low (forbidden).
self=$(mktemp -d)
trap 'rm -rf "$self"' EXIT
mkdir -p "$self/low" "$self/high" "$self/top"
echo '#include "high.h"' > "$self/low/up.c"
echo '#include "low.h"' > "$self/high/down.c"
echo '#include "high.h"' > "$self/top/down.c"
echo '#include "low.h"' > "$self/top/skip.c"
: > "$self/low/low.h"
: > "$self/high/high.h"
out=$(upward_includes "$self" 'low 1
high 2
top 3' 'top low')
if [ $? -ne 2 ] || ! echo "$out" | grep -q '^low/up.c:1:' ||
   ! echo "$out" | grep -q '^top/skip.c:1:'; then
	echo "FAIL: the check does not tell an include upwards or skipping a"
	echo "layer from one down:"
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
out=$(upward_includes "$root" "$LAYERS" "$SKIPS")
n=$?
if [ $n -ne 0 ]; then
	echo "$out"
	echo "FAIL: $n include(s) upwards or skipping a layer"
	exit 1
fi
[ $status -eq 0 ] || exit 1
files=$(cd "$root" && echo "$LAYERS" | while read -r f r; do
	ls "$f"/*.c "$f"/*.h 2>/dev/null; done | wc -l)
echo "ok: $(echo "$LAYERS" | wc -l) layers, $files files, no include upwards or skipping a layer"
