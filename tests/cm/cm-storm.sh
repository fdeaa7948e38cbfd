#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Connection storms: Debian's unmodified cmtime opens N connections at
# once between two rxd processes over net_memif (each -l 0-1), through
# build/compat/librdmacm.so.1, with rxd's default configuration.
#
#   cm-storm.sh BUILD_DIR N...         loss-free storms of N connections
#   cm-storm.sh BUILD_DIR --loss P N   each side's port drops P % of the
#                                      frames it receives (fault injector)
#
# The client must exit 0 with its connect and disconnect rows: every
# connection was established and torn down (cmtime exits non-zero
# otherwise).  It prints its CM counters at exit (RXD_CM_STATS), and the
# server reports each QP1 drop on stderr.  Loss-free, neither side may
# drop a MAD (QP1 holds 2N MADs for N <= 4096 however late its CM thread
# runs) nor give a request up; resends are shown, not judged (a peer that
# takes over 4.6 s to accept on a loaded machine causes them).  With
# loss, MADs are lost and resent, and every connection must still be
# made.  Times are printed, never judged.
set -u
build=$1
shift
loss=0
if [ "${1:-}" = --loss ]; then
	loss=$2
	shift 2
fi
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/rxd-cm-storm.XXXXXX)
fail=0
command -v cmtime >/dev/null || { echo "SKIP: rdmacm-utils not installed"; exit 77; }
# shellcheck source=../lib/compat-env.sh
. "$here/../lib/compat-env.sh" "$build"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
export RXD_LINK_WAIT_MS=50000

eal() { # role prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdst$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# conf SEED: the configuration of one side (the fault injector's loss).
conf() {
	printf '[port0]\nfault_seed = %s\nfault.rx.drop = %s%%\n' "$1" "$loss" \
		>"$dir/side$1.ini"
	echo "$dir/side$1.ini"
}

# step_ms LOG STEP: the total ms of a cmtime step row, or empty.
step_ms() {
	awk -v s="$2" '$1 == s && $2 == ":" { print $3 }' "$1"
}

# counter LOG NAME: a CM counter the client printed at exit, or empty.
counter() {
	awk -v n="$2" '$1 == "rxd" && $2 == "cm:" && $3 == n { print $4 }' "$1"
}

# storm N: the server (cmtime -c N) waits for the next round once done,
# so it is stopped when the client has finished.
storm() {
	local n=$1 s c con dis drops resends ctx crx cto cdrop t0 t1
	rm -f "$dir/m.sock"
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	RXD_CONFIG=$(conf 1) RXD_EAL_ARGS=$(eal server s) RXD_ADDR=10.0.0.1/24 \
		timeout 300 cmtime -c "$n" >"$dir/s$n" 2>&1 &
	s=$!
	for _ in $(seq 300); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
	# shellcheck disable=SC2086
	RXD_CM_STATS=1 RXD_CONFIG=$(conf 2) RXD_EAL_ARGS=$(eal client c) \
		RXD_ADDR=10.0.0.2/24 \
		timeout 300 cmtime -s 10.0.0.1 -c "$n" >"$dir/c$n" 2>&1
	c=$?
	t1=$(date +%s%N)
	kill $s 2>/dev/null
	wait $s 2>/dev/null
	con=$(step_ms "$dir/c$n" connect)
	dis=$(step_ms "$dir/c$n" disconnect)
	drops=$(grep -c "^rxd cm: QP1 .* dropped" "$dir/s$n")
	resends=$(cat "$dir/s$n" "$dir/c$n" | grep -c "^rxd cm: no answer")
	ctx=$(counter "$dir/c$n" mads_tx)
	crx=$(counter "$dir/c$n" mads_rx)
	cto=$(counter "$dir/c$n" timeouts)
	cdrop=$(counter "$dir/c$n" drop_qp1)
	echo "N=$n loss ${loss}%: connect ${con:-?} ms disconnect ${dis:-?} ms" \
		"(whole run $(( (t1 - t0) / 1000000 )) ms);" \
		"client MADs sent ${ctx:-?} received ${crx:-?}, QP1 drops" \
		"client ${cdrop:-?} server $drops reports, gave up ${cto:-?}," \
		"resends $resends"
	if [ $c != 0 ] || [ -z "$con" ] || [ -z "$dis" ] || [ -z "$ctx" ]; then
		echo "FAIL: cmtime -c $n (client exit $c)"
	elif [ "$loss" = 0 ] && { [ "$drops" != 0 ] || [ "$cdrop" != 0 ]; }; then
		echo "FAIL: cmtime -c $n: QP1 dropped MADs in a loss-free run"
	elif [ "$loss" = 0 ] && [ "$cto" != 0 ]; then
		echo "FAIL: cmtime -c $n: the CM gave requests up"
	else
		echo "PASS: cmtime -c $n"
		return
	fi
	fail=1
	tail -n 20 "$dir/s$n" "$dir/c$n" | sed 's/^/    | /'
}

for n in "$@"; do
	storm "$n"
done
exit $fail
