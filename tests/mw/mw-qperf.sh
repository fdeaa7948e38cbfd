#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's qperf 0.4.11, unmodified, between two rxd processes: one
# invocation with -cm1 (rdma_cm connections) and all of qperf's RC tests,
# as Soft-RoCE runs them.  qperf's server forks one child per test and
# every child starts rxd anew with the same EAL command line (file prefix
# and memif socket) while the client's rxd lives on: the client's memif
# port must dial the new server each time and each child must follow the
# one before it.  Every test must report a figure.
# Usage: mw-qperf.sh BUILD_DIR [memif|afpacket]
set -u
command -v qperf >/dev/null || { echo "SKIP: qperf not installed"; exit 77; }
MW_LINK=${2:-memif}
# shellcheck source=mw-lib.sh
. "$(dirname "$0")/mw-lib.sh" "$1"
mw_netns || { echo "SKIP: cannot create a network namespace"; exit 77; }
tests="rc_bw rc_lat rc_rdma_write_bw rc_rdma_write_lat rc_rdma_read_bw
rc_rdma_read_lat rc_compare_swap_mr rc_fetch_add_mr"
mw_start_server timeout 280 qperf
sleep 1
# shellcheck disable=SC2086
# -to 30: each of qperf's forked server children starts rxd anew (EAL,
# the port, the memif link to the client) before it sends its CM port;
# under ASan on a loaded 2-core machine that outlasts qperf's 5 s default
mw_client timeout 240 qperf -cm1 -t 1 -to 30 10.0.0.1 $tests
rc=$?
fail=0
for t in $tests; do
	if awk -v t="$t:" '$1 == t { getline; print; exit }' "$mw_dir/c" |
		grep -Eq '(bw|latency|msg_rate) += +[0-9.]+ '; then
		echo "PASS: $t ($MW_LINK)"
	else
		echo "FAIL: $t ($MW_LINK)"
		fail=1
	fi
done
[ $rc = 0 ] || { echo "FAIL: qperf exit $rc"; fail=1; }
[ $fail = 0 ] || mw_show 12
exit $fail
