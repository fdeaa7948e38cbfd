#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 35's end-to-end matrix: congestion.sh (WRITE) with the cc mode's
# defaults and nothing else in the configuration (RXD_CC_DEFAULTS=1),
# its targets asserted (RXD_CC_STRICT=1: switch drops 10x fewer than
# with cc off, goodput at least 90 % of the bottleneck's nominal rate,
# Jain's index of the flows at least 0.9), for every bottleneck rate in
# RATES (Mbit/s), path MTU in MTUS, flow count in FLOWS (8: an 8:1 incast,
# each sender its own process) and mode in MODES: ecn with CE marking at
# the switch, delay with marking off (KMIN = KMAX = DEPTH + 1).  One line
# per case ("CASE ... PASS|FAIL" with drops off and on, goodput %, Jain and
# the switch's p99 queue delay) and a FAIL line for each failed case; the
# exit status is that of the worst case.  Defaults: the full matrix (24
# cases, about 20 min on 2 cores); RXD_CC_MATRIX="RATES;MTUS;FLOWS;MODES"
# chooses a part, e.g. "200;4096;2;ecn delay" (the cc-matrix-small test).
# Usage: cc-matrix.sh CC_SWITCH CC_FLOW
set -u
here=$(dirname "$0")
IFS=';' read -r rates mtus flowss modes <<<"${RXD_CC_MATRIX:-50 200 800;1024 4096;2 8;ecn delay}"
fail=0
log=$(mktemp /tmp/rxd-ccm.XXXXXX)
trap 'rm -f "$log"' EXIT

# the number after key on the line of the log starting with prefix
num() {
	sed -n "s/^$1.* $2 \([0-9.]*\).*/\1/p" "$log" | head -1
}

for rate in $rates; do for mtu in $mtus; do for n in $flowss; do for mode in $modes; do
	marking=()
	[ "$mode" = delay ] && marking=(RXD_CC_KMIN=4097 RXD_CC_KMAX=4097)
	env "${marking[@]}" RXD_CC_RATE_MBPS="$rate" RXD_CC_MTU="$mtu" \
		RXD_CC_FLOWS="$n" RXD_CC_ON="$mode" RXD_CC_DEFAULTS=1 \
		RXD_CC_STRICT=1 "$here/congestion.sh" "$1" "$2" >"$log" 2>&1
	rc=$?
	grep "^RESULT\|^TARGET\|^FAIL\|^NOTE\|^SWITCH" "$log" | sed "s/^/  /"
	verdict=PASS
	[ $rc = 0 ] || { verdict=FAIL; fail=1; }
	echo "CASE $mode ${rate} Mbit/s mtu $mtu flows $n: drops off $(num "RESULT dcqcn off" drops) on $(num "RESULT dcqcn on" drops)," \
		"goodput $(sed -n 's/^RESULT dcqcn on: goodput [0-9.]* Mbit\/s (\([0-9.]*\) %.*/\1/p' "$log") %," \
		"jain $(sed -n "s/^TARGET .*Jain's index \([0-9.]*\).*/\1/p" "$log")," \
		"p99 queue delay off $(num "RESULT dcqcn off" p99) us on $(num "RESULT dcqcn on" p99) us: $verdict"
	[ $verdict = PASS ] || echo "FAIL: $mode ${rate} Mbit/s mtu $mtu flows $n: $(grep '^FAIL' "$log" | tr '\n' ' ')"
done; done; done; done
exit $fail
