#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rxd-perf: server and client as two rxd processes over net_memif
# (write_bw, send_lat, read_bw with 2 QPs, atomic_bw with --json), one
# --loopback run in a single process, Debian's ib_write_bw client against
# an rxd-perf server (when perftest is installed), and bad command lines.
# Every run must exit 0 on both sides and print perftest's table (or JSON
# rows) with the asked sizes and iteration counts; bad flags must fail
# with a message.  Usage: perf.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
perf=$build/apps/rxd-perf/rxd-perf
check="python3 $here/check_rows.py"
dir=$(mktemp -d /tmp/rxd-perf-test.XXXXXX)
fail=0
command -v python3 >/dev/null ||
	{ echo "SKIP: python3 not installed"; exit 77; }
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
# A memif server's link comes up only when its client connects; a loaded
# machine (the sanitizer build) can be slow to start the client.
export RXD_LINK_WAIT_MS=50000
port=$((20000 + $$ % 20000))   # the TCP exchange, away from other tests

eal() { # role prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdp$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

bad() { # what
	echo "FAIL: $*"
	fail=1
}

# pair NAME SERVER CLIENT ARGS: SERVER/CLIENT are "rxd-perf" or a perftest
# tool; the server is 10.0.0.1 (memif server), the client 10.0.0.2.
pair() {
	local name=$1 server=$2 client=$3 args=$4 s c
	rm -f "$dir/m.sock"
	side "$server" server s 10.0.0.1 "$args" >"$dir/$name.s" \
		2>"$dir/$name.s.err" &
	s=$!
	for _ in $(seq 300); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
	side "$client" client c 10.0.0.2 "$args 127.0.0.1" >"$dir/$name.c" \
		2>"$dir/$name.c.err"
	c=$?
	wait $s   # the server outlives the client (memif teardown)
	s=$?
	if [ $s = 0 ] && [ $c = 0 ]; then
		echo "PASS: $server server / $client client: $args"
		return 0
	fi
	bad "$server server / $client client: $args" \
		"(server exit $s, client exit $c)"
	tail -n 5 "$dir/$name".* | sed 's/^/    | /'
	return 1
}

side() { # program role prefix ip args
	local prog=$1 role=$2 pre=$3 ip=$4 args=$5
	if [ "$prog" = rxd-perf ]; then
		# shellcheck disable=SC2046,SC2086
		timeout 60 "$perf" $(eal "$role" "$pre") -- --ip "$ip/24" \
			$args -p $port
	else
		# shellcheck disable=SC2086
		RXD_EAL_ARGS=$(eal "$role" "$pre") RXD_ADDR=$ip/24 \
			timeout 60 "$here/../lib/retry-connect.sh" \
			"$prog" -d rxd0 -x 1 ${args#* } -p $port
	fi
}

rows() { # form kind file bytes iters
	$check "$@" && return
	bad "rows of $3"
	sed 's/^/    | /' "$3" | tail -n 12
}

# Two processes.  The write_bw server prints the client's report: the
# same row on both sides shows the report exchange works.
if pair wbw rxd-perf rxd-perf "write_bw -s 65536 -n 200"; then
	rows table bw "$dir/wbw.c" 65536 200
	rows table bw "$dir/wbw.s" 65536 200
	cmp -s <(grep -A1 '#bytes' "$dir/wbw.c") \
		<(grep -A1 '#bytes' "$dir/wbw.s") ||
		bad "write_bw: the server's row is not the client's"
fi
if pair slat rxd-perf rxd-perf "send_lat -s 8 -n 200"; then
	rows table lat "$dir/slat.c" 8 200
	rows table lat "$dir/slat.s" 8 200
fi
pair rbw rxd-perf rxd-perf "read_bw -s 4096 -n 200 -q 2" &&
	rows table bw "$dir/rbw.c" 4096 400
pair abw rxd-perf rxd-perf "atomic_bw -n 200 --json" &&
	rows json bw "$dir/abw.c" 8 200

# One process, two ports (a net_ring pair), every size.
# shellcheck disable=SC2086
if timeout 60 "$perf" -l 0-1 --no-pci --no-huge -m 512 --no-shconf \
	--log-level=lib.eal:error -- --loopback write_lat -a -n 20 \
	>"$dir/loop.c" 2>"$dir/loop.err"; then
	echo "PASS: --loopback write_lat -a -n 20"
	rows table lat "$dir/loop.c" all 20
else
	bad "--loopback write_lat -a -n 20 (exit $?)"
	tail -n 5 "$dir/loop.c" "$dir/loop.err" | sed 's/^/    | /'
fi

# Debian's unmodified ib_write_bw as the client of an rxd-perf server.
# (A subshell keeps the compat library away from the other runs.)
if command -v ib_write_bw >/dev/null; then
	# shellcheck source=../lib/compat-env.sh
	if (. "$here/../lib/compat-env.sh" "$build" &&
	    pair interop rxd-perf ib_write_bw "write_bw -s 65536 -n 200"); then
		rows table bw "$dir/interop.s" 65536 200
	else
		fail=1
	fi
else
	echo "note: perftest not installed, interop with ib_write_bw not run"
fi

# Bad command lines: a message and a non-zero exit, before any traffic.
expect_error() { # message-part args...
	local want=$1 out rc
	shift
	# shellcheck disable=SC2068
	out=$(timeout 60 "$perf" -l 0 --no-pci --no-huge -m 512 --no-shconf \
		--log-level=lib.eal:error --vdev=net_ring0 -- $@ 2>&1)
	rc=$?
	if [ $rc != 0 ] && grep -q -- "$want" <<<"$out"; then
		echo "PASS: rxd-perf $* -> exit $rc:" \
			"$(grep -- "$want" <<<"$out")"
	else
		bad "rxd-perf $* gave exit $rc and: $out"
	fi
}
expect_error "unknown test 'bogus_bw'" bogus_bw
expect_error "unknown option '-Z'" write_bw -Z
expect_error "'abc': give a whole number from 1 to" write_bw -s abc
expect_error "'3': give a whole number from 5 to" write_bw -n 3
expect_error "needs a value" write_bw -n
expect_error "no test given"
expect_error "is for the BW tests" send_lat -b
expect_error "not one of 256" write_bw -m 1000
expect_error "no device rxd7" write_bw -d rxd7 127.0.0.1

exit $fail
