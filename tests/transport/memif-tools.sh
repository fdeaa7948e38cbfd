#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Two rxd processes over net_memif, like two hosts, running Debian's
# unmodified tools through build/compat/libibverbs.so.1: ibv_rc_pingpong
# (plain, -e completion events, -N the ibv_wr_* API, -t extended CQ with
# timestamps), ibv_ud/uc/srq_pingpong with data checks, and perftest
# (write/read/send/atomic, and the queues of 4096 and 10000 WRs that
# perftest's -t/-r and -c UD -n ask for), each side with an engine lcore;
# then three pairs with one lcore a side (inline engines).  Each pair
# must complete on both sides.  Usage: memif-tools.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/rxd-memif-tools.XXXXXX)
fail=0
command -v ib_write_bw >/dev/null || { echo "SKIP: perftest not installed"; exit 77; }
# shellcheck source=../lib/compat-env.sh
. "$here/../lib/compat-env.sh" "$build"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
# A memif server's link comes up only when its client connects, and a
# loaded machine (the sanitizer build) can take more than the default 5 s
# to start the client: wait for the link as long as the tools may run.
export RXD_LINK_WAIT_MS=50000
# The tools meet on a TCP port first, 18515 unless told: a run of its own,
# so that two runs on one machine (two build directories) do not connect
# to each other's servers.
port=$((20000 + $$ % 20000))

# Each side has an engine lcore (-l 0-1) unless LCORES_S/LCORES_C say
# otherwise: with one lcore the engine runs inline, in the program's verbs
# calls and, while the program waits elsewhere, in rxd's watcher thread.
eal() { # role prefix
	local l=${LCORES_S:-0-1}
	[ "$1" = client ] && l=${LCORES_C:-0-1}
	echo "-l $l --no-pci --no-huge -m 512 --file-prefix rxdt$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# pair NAME TOOL ARGS: server on 10.0.0.1, client on 10.0.0.2
pair() {
	local name=$1 tool=$2 args=$3 gid="-g 1" s c
	case $tool in ib_*) gid="-x 1" ;; esac
	rm -f "$dir/m.sock"
	# shellcheck disable=SC2086
	RXD_EAL_ARGS=$(eal server s) RXD_ADDR=10.0.0.1/24 \
		timeout 60 "$tool" -d rxd0 $gid -p $port $args \
		>"$dir/$name.s" 2>&1 &
	s=$!
	for _ in $(seq 300); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
	# Both links come up together; the server listens on TCP only after
	# that, so a client can get there first: like a user, start it again.
	# shellcheck disable=SC2086
	RXD_EAL_ARGS=$(eal client c) RXD_ADDR=10.0.0.2/24 timeout 60 \
		"$here/../lib/retry-connect.sh" "$tool" -d rxd0 $gid -p $port \
		$args 127.0.0.1 >"$dir/$name.c" 2>&1
	c=$?
	wait $s
	s=$?
	if [ $s = 0 ] && [ $c = 0 ]; then
		echo "PASS: $tool $args${LCORES_S:+, lcores $LCORES_S/$LCORES_C}" \
			"$(grep -o "started [0-9] times" "$dir/$name.c")"
		grep -E "iters in|^ *[0-9]+ +[0-9]+ +[0-9.]+" "$dir/$name.c" | tail -1 | sed 's/^/    /'
	else
		echo "FAIL: $tool $args${LCORES_S:+, lcores $LCORES_S/$LCORES_C}" \
			"(server exit $s, client exit $c)"
		tail -n 5 "$dir/$name.s" "$dir/$name.c" | sed 's/^/    | /'
		fail=1
	fi
}

pair pp ibv_rc_pingpong "-n 200 -s 4096"
pair pp-events ibv_rc_pingpong "-n 100 -e"
pair pp-wr-api ibv_rc_pingpong "-n 100 -N"
pair pp-ts ibv_rc_pingpong "-n 100 -t"
pair pp-big ibv_rc_pingpong "-n 20 -s 1048576"
pair ud-pp ibv_ud_pingpong "-n 100 -s 512 -c"
pair uc-pp ibv_uc_pingpong "-n 100 -s 4096 -c"
pair srq-pp ibv_srq_pingpong "-n 100 -q 4 -c"
pair write-bw ib_write_bw "-s 65536 -n 200"
pair read-bw ib_read_bw "-s 65536 -n 200"
pair send-bw ib_send_bw "-s 4096 -n 200"
pair atomic-bw ib_atomic_bw "-n 200"
pair send-lat ib_send_lat "-s 8 -n 200"
pair write-lat ib_write_lat "-s 8 -n 200"
pair read-lat ib_read_lat "-s 8 -n 200"
# queues as deep as programs ask with their own flags: a 4096-WR send and
# receive queue, a UD latency run that posts 10000 receives
pair send-bw-deep ib_send_bw "-s 4096 -n 20000 -t 4096 -r 4096"
pair ud-send-lat ib_send_lat "-c UD -s 8 -n 10000"
# One lcore a side (inline engines): perftest's write_bw server never
# polls, it waits in a TCP read while the client writes.
LCORES_S=0 LCORES_C=1 pair write-bw-inline ib_write_bw "-s 65536 -n 2000"
LCORES_S=0 LCORES_C=1 pair send-lat-inline ib_send_lat "-s 8 -n 1000"
LCORES_S=0 LCORES_C=1 pair pp-inline ibv_rc_pingpong "-n 200 -s 4096"
exit $fail
