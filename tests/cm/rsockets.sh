#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rsockets through the compat librdmacm.so.1 between two rxd processes
# over net_memif, with Debian's unmodified programs: rstream's default
# test set and verified transfers of 64 B to 1 MiB, riostream (riomap and
# riowrite, verified), rcopy of a 64 MiB file compared byte for byte, an
# ordinary TCP client (Python) and server (tcp-sink, C, poll(2) over the
# socket and a pipe, then the same with select(2)) under Debian's
# librspreload.so with a CRC-32 compared,
# and a peer killed mid-stream (each side in turn): the survivor's rsend or
# rrecv must fail with ECONNRESET, not hang.
#
# Everything runs in a network namespace of the test's own holding only
# lo, with no route to 10.0.0.0/24: a program that fell back to kernel TCP
# fails at once instead of sending anything anywhere.
#
# "fork" as third argument runs instead librspreload's fork support
# (RDMAV_FORK_SAFE=1, rsocket(7)): a forking tcp-sink serves two Python
# clients in a row, each from a child of its own.  That protocol opens a
# kernel TCP connection first and moves it to an rsocket at first use, so
# this group alone puts 10.0.0.1 on lo; it proves the data went over rxd
# by the CRC, the children's CM counters and lo's byte counters staying
# far below the data moved.
#
# "abort PEER" as third and fourth arguments runs instead a reader whose
# peer (PEER, rs-abort-peer) disconnects without rsockets' orderly close:
# the read must fail with ECONNRESET.
# Usage: rsockets.sh BUILD_DIR TCP_SINK [fork | abort PEER]
set -u
build=$1
sink=$2
group=${3:-all}
here=$(cd "$(dirname "$0")" && pwd)
preload=/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so
command -v rstream >/dev/null || { echo "SKIP: rdmacm-utils not installed"; exit 77; }
[ -e "$preload" ] || { echo "SKIP: librdmacm1's librspreload.so missing"; exit 77; }
# Debian's python3 itself: a wrapper in PATH (pyenv's shim is a bash
# script that runs more programs) would run under the preload as well
py=/usr/bin/python3
[ -x "$py" ] || { echo "SKIP: $py missing"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: iproute2 missing"; exit 77; }
if [ -z "${RXD_RS_NETNS:-}" ]; then
	unshare --net true 2>/dev/null ||
		{ echo "SKIP: cannot create a network namespace"; exit 77; }
	exec env RXD_RS_NETNS=1 unshare --net --mount "$0" "$@"
fi
ip link set lo up
if ip route get 10.0.0.1 >/dev/null 2>&1; then
	echo "FAIL: the namespace has a route to 10.0.0.1"
	exit 1
fi

dir=$(mktemp -d /tmp/rxd-rsockets.XXXXXX)
fail=0
# shellcheck source=../lib/compat-env.sh
. "$here/../lib/compat-env.sh" "$build"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
export RXD_LINK_WAIT_MS=50000

eal() { # role [prefix]; LCORES_S/LCORES_C override -l 0-1; no prefix:
	# rxd's lazy start gives each process its own (rxd-PID)
	local l=${LCORES_S:-0-1}
	[ "$1" = client ] && l=${LCORES_C:-0-1}
	echo "-l $l --no-pci --no-huge -m 512 ${2:+--file-prefix rxdrs$2$$}" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

start_server() { # name cmd...: run in the background as server
	local name=$1
	shift
	rm -f "$dir/m.sock"
	RXD_EAL_ARGS=$(eal server s) RXD_ADDR=10.0.0.1/24 \
		timeout 120 "$@" >"$dir/$name.s" 2>&1 &
	server=$!
	for _ in $(seq 300); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
}

start_client() { # name cmd...
	local name=$1
	shift
	RXD_EAL_ARGS=$(eal client c) RXD_ADDR=10.0.0.2/24 \
		timeout 120 "$@" >"$dir/$name.c" 2>&1 &
	client=$!
}

# The server's rxd brings its memif link up only when the client's does,
# so a client's REQ can reach it before rlisten: it is refused (REJ,
# invalid service ID) as a TCP client's SYN would be, and Debian's tools
# do not try again.  retry-connect.sh starts such a client again.
retry=("env" "RXD_RETRY_ON=^(rconnect|rpoll|rsocket):" "$here/../lib/retry-connect.sh")

report() { # NAME DETAIL OK: the outputs are $dir/NAME.s and .c
	if [ "$3" = 1 ]; then
		echo "PASS: $1 ($2; ${SECONDS}s in)"
	else
		echo "FAIL: $1 ($2; ${SECONDS}s in)"
		tail -n 6 "$dir/$1.s" "$dir/$1.c" 2>/dev/null | sed 's/^/    | /'
		fail=1
	fi
}

# pair NAME "SERVER CMD" "CLIENT CMD" CHECK [SERVER_CHECK]: both exit 0,
# the client's (and server's) output match the grep -E patterns.
pair() {
	local name=$1 s c
	# shellcheck disable=SC2086
	start_server "$name" $2
	# shellcheck disable=SC2086
	start_client "$name" $3
	wait "$client"; c=$?
	wait "$server"; s=$?
	[ $s = 0 ] && [ $c = 0 ] && grep -Eq "$4" "$dir/$name.c" &&
		grep -Eq "${5:-}" "$dir/$name.s"
	report "$name" "server $s, client $c" $(( $? == 0 ))
}

pre="${LD_PRELOAD:+$LD_PRELOAD:}$preload"  # no spaces: the command splits

# Bytes lo sent in this namespace (/sys/class/net shows the namespace that
# mounted /sys, not ours; /proc/net/dev is ours).
lo_tx_bytes() {
	awk '$1 == "lo:" { print $10 }' /proc/net/dev
}

# The forking server's children stopped their rxd and removed its files.
children_cleaned() {
	local pid
	for pid in $(sed -n 's/^child \([0-9]*\) serves.*/\1/p' "$dir/fork.s"); do
		[ ! -e "/var/run/dpdk/rxd-$pid" ] || return 1
	done
}

# librspreload's fork support: the server's parent never starts rxd (its
# sockets stay kernel ones until a child reads); each child starts an rxd
# of its own (EAL prefix rxd-PID, the same memif socket, taken over from
# the child before) without waiting for the link, since the client starts
# its rxd only once the child listens.  The fork handshake's named
# semaphore gets a /dev/shm of the test's own: a child killed holding it
# blocks nobody else.  Checked: both clients' CRC-32 is the children's,
# exactly two rxd stacks ran in the server (the children's, each with an
# rdma_cm connection: the parent started none), lo carried less than
# 1 MiB of the 32 MiB, and the children removed their EAL files.
preload_fork() {
	local c s lo0 lo1 sent crcs ok
	mount -t tmpfs rxd-rs-shm /dev/shm || { fail=1; return; }
	ip addr add 10.0.0.1/32 dev lo
	lo0=$(lo_tx_bytes)
	rm -f "$dir/m.sock"
	# the preload goes on the programs, not on timeout: with ASan's
	# runtime beside it, timeout hangs
	RXD_LINK_WAIT_MS=0 RXD_CM_STATS=1 \
		RXD_EAL_ARGS=$(eal server) RXD_ADDR=10.0.0.1/24 \
		timeout 200 env RDMAV_FORK_SAFE=1 LD_PRELOAD="$pre" \
		"$sink" 10.0.0.1 7471 --fork 2 >"$dir/fork.s" 2>&1 &
	server=$!
	c=0
	for _ in 1 2; do
		RXD_CM_STATS=1 RXD_EAL_ARGS=$(eal client c) \
			RXD_ADDR=10.0.0.2/24 timeout 90 env RDMAV_FORK_SAFE=1 \
			LD_PRELOAD="$pre" "$py" "$here/tcp_copy.py" 10.0.0.1 \
			7471 16 --libc-socket >>"$dir/fork.c" 2>&1 || c=$?
	done
	wait "$server"; s=$?
	lo1=$(lo_tx_bytes)
	sent=$(grep -c '^sent 16777216 bytes crc32 ' "$dir/fork.c")
	sent=$sent/$(grep -c '^received 16777216 bytes crc32 ' "$dir/fork.s")
	crcs=$(grep -Eo 'bytes crc32 [0-9a-f]+' "$dir"/fork.[sc] |
		sed 's/.*://' | sort -u | wc -l)
	[ $s = 0 ] && [ $c = 0 ] && [ "$sent" = 2/2 ] && [ "$crcs" = 1 ] &&
		grep -q '^2 children served, 0 failed' "$dir/fork.s" &&
		[ "$(grep -Ec '^rxd cm: mads_rx [1-9]' "$dir/fork.s")" = 2 ] &&
		[ "$(grep -c '^rxd cm: mads_rx' "$dir/fork.s")" = 2 ] &&
		[ $((lo1 - lo0)) -lt $((1 << 20)) ] && children_cleaned
	ok=$(( $? == 0 ))
	report fork "server $s, clients $c, 2 x 16 MiB, lo $((lo1 - lo0)) B" $ok
}
wait_for() { # file pattern: up to 120 s
	for _ in $(seq 1200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# A peer that leaves without rsockets' orderly close (rs-abort-peer: a
# plain rdma_cm client with rsockets' connection data that disconnects
# without sending DISCONNECT, as a peer whose connection failed does):
# tcp-sink, reading under librspreload, must fail with ECONNRESET, not
# take it for an end of stream (rstream's default set, which retries a
# 0 from rrecv, spun there for ever).
peer_abort() {
	local peer=$1 c s
	rm -f "$dir/go"
	start_server abort env LD_PRELOAD="$pre" "$sink" 10.0.0.1 7471
	start_client abort env RXD_RETRY_ON=REJECTED \
		"$here/../lib/retry-connect.sh" "$peer" 10.0.0.1 7471 "$dir/go"
	wait_for "$dir/abort.s" '^accepted' &&
		wait_for "$dir/abort.c" '^connected'
	touch "$dir/go"
	wait "$client"; c=$?
	wait "$server"; s=$?
	[ $c = 0 ] && [ $s = 1 ] &&
		grep -q '^read: Connection reset by peer' "$dir/abort.s" &&
		! grep -q '^received' "$dir/abort.s"
	report abort "server $s, client $c" $(( $? == 0 ))
}
if [ "$group" = fork ]; then
	preload_fork
	exit $fail
fi
if [ "$group" = abort ]; then
	peer_abort "$4"
	exit $fail
fi

# rstream polls and spins: one lcore a side (inline engines) keeps four
# busy threads off two cores.
LCORES_S=0 LCORES_C=1 pair rstream-default "rstream -b 10.0.0.1" \
	"${retry[*]} rstream -s 10.0.0.1" "^1m_bw "
for size in 64 1000 4096 65536 1048576; do
	LCORES_S=0 LCORES_C=1 pair "rstream-S$size" \
		"rstream -b 10.0.0.1 -S $size -C 50 -T v" \
		"${retry[*]} rstream -s 10.0.0.1 -S $size -C 50 -T v" "^custom "
done
LCORES_S=0 LCORES_C=1 pair rstream-blocking \
	"rstream -b 10.0.0.1 -S 65536 -C 100 -T b -T v" \
	"${retry[*]} rstream -s 10.0.0.1 -S 65536 -C 100 -T b -T v" "^custom "
LCORES_S=0 LCORES_C=1 pair rstream-async \
	"rstream -b 10.0.0.1 -S 4096 -C 100 -T a -T v" \
	"${retry[*]} rstream -s 10.0.0.1 -S 4096 -C 100 -T a -T v" "^custom "
# riostream's receiver watches its buffer without calling rsockets: the
# engines need lcores of their own.
for size in 64 65536; do
	pair "riostream-S$size" \
		"riostream -b 10.0.0.1 -S $size -C 200 -T v" \
		"${retry[*]} riostream -s 10.0.0.1 -S $size -C 200 -T v" "^custom "
done

# rcopy of 64 MiB: the server runs until killed; compare what it wrote.
head -c $((64 << 20)) /dev/urandom >"$dir/src"
start_server rcopy rcopy
start_client rcopy "${retry[@]}" rcopy "$dir/src" "10.0.0.1:$dir/dst"
wait "$client"; c=$?
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null
same=no
cmp -s "$dir/src" "$dir/dst" && same=yes
report rcopy "64 MiB, client $c, bytes equal: $same" \
	$(( c == 0 && ${#same} == 3 ))
rm -f "$dir/src" "$dir/dst"

# An unmodified TCP client and server under librspreload.so.
pair preload-tcp "env LD_PRELOAD=$pre $sink 10.0.0.1 7471" \
	"env LD_PRELOAD=$pre $py $here/tcp_copy.py 10.0.0.1 7471 16" \
	"^sent 16777216 bytes crc32" "^received 16777216 bytes crc32"
# The same server waiting with select(2): librspreload up to v62 maps its
# results back by walking descriptors (iperf3's server loop).
pair preload-select "env LD_PRELOAD=$pre $sink 10.0.0.1 7471 --select" \
	"env LD_PRELOAD=$pre $py $here/tcp_copy.py 10.0.0.1 7471 16" \
	"^sent 16777216 bytes crc32" "^received 16777216 bytes crc32"

# kill VICTIM: the TCP pair under librspreload streaming without end;
# once both ends report the connection, SIGKILL one side; the other must
# fail with ECONNRESET from rrecv/rsend (not hang until its timeout).
kill_peer() {
	local victim=$1 name="kill-$1" survivor rc pid
	start_server "$name" env LD_PRELOAD="$pre" "$sink" 10.0.0.1 7471
	start_client "$name" env LD_PRELOAD="$pre" "$py" "$here/tcp_copy.py" \
		10.0.0.1 7471 0
	wait_for "$dir/$name.s" '^accepted' && wait_for "$dir/$name.c" '^connected'
	sleep 1
	if [ "$victim" = server ]; then pid=$server survivor=$client
	else pid=$client survivor=$server; fi
	# pgrep hangs with ASan's runtime preloaded: run it without
	kill -9 "$(env -u LD_PRELOAD pgrep -P "$pid")"
	wait "$survivor"; rc=$?
	wait "$pid" 2>/dev/null
	[ $rc != 0 ] && [ $rc != 124 ] &&
		grep -Eq "Connection reset by peer|ConnectionResetError" \
			"$dir/$name".[sc]
	report "$name" "survivor exit $rc" $(( $? == 0 ))
}
kill_peer server
kill_peer client
exit $fail
