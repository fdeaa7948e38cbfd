#!/bin/sh
# Run the test suite of a build directory through meson and print one
# closing line with the real counts: Criterion's per-test counts summed over
# every Criterion program, plus one count per script test.
set -u
build=${1:-build}
shift 2>/dev/null || true

meson test -C "$build" --print-errorlogs --num-processes 2 "$@"
rc=$?
python3 "$(dirname "$0")/test-summary.py" "$build/meson-logs/testlog.json" || rc=1
exit $rc
