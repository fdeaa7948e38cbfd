#!/bin/bash
# rdma-core's own verbs test suite (v44.0, unmodified, from
# ../shared/conformance/rdma-core-tests) run through Debian's pyverbs
# against build/compat/libibverbs.so.1: rxd0 on a net_ring vdev, a port
# that receives what it sends, since the suite's two sides share it.
# Prints the suite's summary and its skip reasons; fails on any failure
# or error, and when fewer tests pass than RXD_CONFORMANCE_MIN_OK (87:
# every test that passes on Soft-RoCE 6.1, and ATOMIC WRITE) -- a stack
# that made every test skip would otherwise pass.
# Usage: conformance.sh BUILD_DIR SUITE_DIR
set -u
build=$(realpath "$1")   # the suite runs from its own directory
suite=$2
[ -f "$suite/run_tests.py" ] || {
	echo "SKIP: rdma-core's test suite not found at $suite"; exit 77; }
/usr/bin/python3 -c 'import pyverbs.device' 2>/dev/null || {
	echo "SKIP: pyverbs missing (python3-pyverbs; scripts/install-deps.sh installs it)"
	exit 77; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck source=../lib/compat-env.sh
. "$(dirname "$0")/../lib/compat-env.sh" "$build"
export RXD_EAL_ARGS="-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdconf$$ --vdev=net_ring0 --log-level=lib.eal:error"
export RXD_ADDR=10.0.0.1/24,fd00::1/64
export PYTHONDONTWRITEBYTECODE=1   # the suite's directory is not ours
(cd "$suite" && /usr/bin/python3 run_tests.py --dev rxd0 --gid 1 -v) \
	>"$log" 2>&1
status=$?

# unittest ends with "Ran N tests in Ts" and "OK (skipped=S)" or
# "FAILED (failures=F, errors=E, skipped=S)"
ran=$(sed -n 's/^Ran \([0-9]*\) tests\? in .*/\1/p' "$log")
last=$(grep -E '^(OK|FAILED)( \(|$)' "$log" | tail -n 1)
count() { # key: the number after "key=" in the last line, or 0
	local n
	n=$(printf '%s\n' "$last" | grep -oE "(^|[ (])$1=[0-9]+" | grep -oE '[0-9]+$')
	echo "${n:-0}"
}
failed=$(count failures)
errors=$(count errors)
skipped=$(count skipped)
xfail=$(count "expected failures")
xpass=$(count "unexpected successes")
if [ -z "$ran" ] || [ -z "$last" ]; then
	echo "FAIL: no unittest summary in the suite's output (exit $status):"
	cat "$log"
	exit 1
fi
ok=$((ran - failed - errors - skipped - xfail - xpass))
echo "skipped, by reason:"
grep -oE "skipped ('.*'|\".*\")$" "$log" | sed "s/^skipped //" | sort |
	uniq -c | sort -rn
grep -E '^(FAIL|ERROR): ' "$log"
# the sanitizer build's reports (the suite itself would not fail on UBSan's)
sanitizer=$(grep -cE 'runtime error:|ERROR: AddressSanitizer' "$log")
grep -E 'runtime error:|ERROR: AddressSanitizer' "$log" | sort | uniq -c
echo "Ran $ran tests: $ok ok, $failed failed, $errors errors, $skipped skipped"
min_ok=${RXD_CONFORMANCE_MIN_OK:-87}
[ "$ok" -ge "$min_ok" ] || echo "FAIL: $ok tests passed, fewer than $min_ok"
if [ "$status" != 0 ] || [ "$failed" != 0 ] || [ "$errors" != 0 ] ||
	[ "$ran" = 0 ] || [ "$sanitizer" != 0 ] || [ "$ok" -lt "$min_ok" ]; then
	sed -n '/^======/,$p' "$log"
	echo "FAIL: rdma-core's test suite on rxd0 (exit $status)"
	exit 1
fi
echo "PASS: rdma-core's test suite on rxd0"
