#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Cut the user guide's two complete programs out of doc/user-guide.md: the
# ```c block with main() that lists verbs devices (hello.c) and the one that
# builds a ring pair (pair.c), so the tests compile what the guide shows.
# Usage: user-guide-examples.sh USER_GUIDE OUT_DIR   (exit 1 if one is missing)
set -u
awk -v out="$2" '
	/^```c$/ { inblock = 1; text = ""; next }
	/^```$/ && inblock {
		inblock = 0
		if (text ~ /\nmain\(/ && text ~ /ibv_get_device_list/)
			printf "%s", text > (out "/hello.c")
		if (text ~ /\nmain\(/ && text ~ /rxd_port_ring_pair\(/)
			printf "%s", text > (out "/pair.c")
		next
	}
	inblock { text = text $0 "\n" }
' "$1"
for ex in hello pair; do
	[ -s "$2/$ex.c" ] || { echo "FAIL: no $ex example in $1"; exit 1; }
done
