#!/bin/sh
# Run the test suite of a build directory through meson and print one
# closing line with the real counts: Criterion's per-test counts summed over
# every Criterion program, plus one count per script test. The DPDK runtime
# directories the run's processes left behind are removed afterwards.
set -u
build=${1:-build}
shift 2>/dev/null || true
here=$(dirname "$0")
before=$(mktemp)
python3 "$here/dpdk-runtime-clean.py" list > "$before"

meson test -C "$build" --print-errorlogs --num-processes 2 "$@"
rc=$?
python3 "$here/dpdk-runtime-clean.py" clean "$before"
rm -f "$before"
python3 "$here/test-summary.py" "$build/meson-logs/testlog.json" || rc=1
exit $rc
