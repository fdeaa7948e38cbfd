#!/bin/bash
# Runs the main demo non-interactively and checks its key lines.
# Usage: demo.sh SOURCE_DIR BUILD_DIR
set -u
out=$("$1/apps/demo/run-demo.sh" "$2" 2>&1)
rc=$?
fail=0
need() {
	if grep -qE "$1" <<<"$out"; then
		echo "PASS: $2"
	else
		echo "FAIL: $2 (no line matching '$1')"
		fail=1
	fi
}
need "^demo: OK$" "demo reports OK"
need "ping 10.0.0.2 5/5" "host A pings B over IPv4"
need "ping fd00::1 5/5" "host B pings A over IPv6"
need "gid 1 10.0.0.1" "host A's GID table"
need "neigh 10.0.0.2 .* reachable" "host A resolved B"
need "Echo \(ping\) request" "tshark decodes the capture"
[ $rc = 0 ] || fail=1
[ $fail = 0 ] || echo "$out"
exit $fail
