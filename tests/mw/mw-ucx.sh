#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's UCX 1.13 (ucx-utils, libucx0), unmodified, between two rxd
# processes: ucx_info -d must list the rxd0 memory domain with rc_verbs
# and ud_verbs (UCX keeps a device only when /dev/infiniband/<dev_name> is
# a character device: rxd-setup makes it, and is run here when it is
# missing), then ucx_perftest at the UCT level over rc_verbs (put, get and
# am, bandwidth and latency) and ud_verbs (am: UCT's UD has nothing else),
# and at the UCP level (tag_bw, tag_lat, stream_bw) with
# UCX_TLS=rc_verbs,ud_verbs:aux: UCP must say it put the operations on
# rc_verbs/rxd0:1 and, with tshark, the client's capture must hold the
# messages as RC SENDs and only a few UD frames (wireup).  Every run must
# end with a "Final:" line and both sides must exit 0; then a server
# killed mid-transfer must leave the client with an error completion, not
# a hang.  UCX's TCP side channel (port 13337) reaches the server through
# the namespace's lo.
# Usage: mw-ucx.sh BUILD_DIR [memif|afpacket]
set -u
command -v ucx_perftest >/dev/null || { echo "SKIP: ucx-utils not installed"; exit 77; }
MW_LINK=${2:-memif}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=mw-lib.sh
. "$here/mw-lib.sh" "$1"
if [ ! -c /dev/infiniband/uverbs-rxd0 ]; then
	"$here/../../apps/rxd-setup/rxd-setup.sh" 1 ||
		{ echo "SKIP: no /dev/infiniband/uverbs-rxd0 and rxd-setup failed"; exit 77; }
fi
mw_netns || { echo "SKIP: cannot create a network namespace"; exit 77; }
fail=0

# a peer for ucx_info's rxd: ibv_rc_pingpong opens rxd0 and waits
mw_start_server timeout 100 ibv_rc_pingpong -d rxd0 -g 1
mw_wait_tcp 18515
mw_client timeout 100 ucx_info -d
if grep -q "Memory domain: rxd0" "$mw_dir/c" &&
   awk '/Memory domain: rxd0/ { on = 1 } on && /Transport: rc_verbs/ { r = 1 }
	on && /Transport: ud_verbs/ { u = 1 } END { exit !(r && u) }' \
	"$mw_dir/c"; then
	echo "PASS: ucx_info -d lists rxd0 with rc_verbs and ud_verbs ($MW_LINK)"
else
	echo "FAIL: ucx_info -d does not list rxd0 with rc_verbs and ud_verbs"
	grep -E "Memory domain|Transport" "$mw_dir/c" | sed 's/^/    | /'
	fail=1
fi
kill "$mw_server" 2>/dev/null
wait "$mw_server" 2>/dev/null

# run NAME CMD...: one ucx_perftest pair, the client's command CMD... with
# the server's address added
run() {
	local name=$1 s c
	shift
	rm -f "$mw_dir/m.sock"
	mw_start_server timeout 120 ucx_perftest
	mw_wait_tcp 13337
	mw_client timeout 110 "$@" 10.0.0.1
	c=$?
	wait "$mw_server"
	s=$?
	if [ $c = 0 ] && [ $s = 0 ] && grep -q "^Final:" "$mw_dir/c"; then
		echo "PASS: $name ($MW_LINK): $(grep '^Final:' "$mw_dir/c" | tr -s ' ')"
	else
		echo "FAIL: $name ($MW_LINK) (server exit $s, client exit $c)"
		grep -v '^[|+]' "$mw_dir/s" "$mw_dir/c" | tail -n 8 | sed 's/^/    | /'
		grep -h -A 24 "ERROR: AddressSanitizer" "$mw_dir/s" "$mw_dir/c" |
			sed 's/^/    | /'
		fail=1
	fi
}
uct="-d rxd0:1 -x rc_verbs -n 2000 -w 100"
for t in put_bw put_lat "get -D bcopy" am_bw am_lat; do
	# shellcheck disable=SC2086
	run "uct $t rc_verbs" ucx_perftest $uct -t $t
done
# UD's largest zero-copy am is an MTU (1024 on af_packet) less its headers
uct="-d rxd0:1 -x ud_verbs -n 2000 -w 100"
for t in am_lat am_bw "am_bw -D bcopy -s 512" "am_bw -D zcopy -s 1000"; do
	# shellcheck disable=SC2086
	run "uct $t ud_verbs" ucx_perftest $uct -t $t
done

# UCP: rc_verbs connects endpoint to endpoint, so UCP needs a transport
# that reaches an interface for its wireup messages, on any device: ud_verbs
# as auxiliary only ("rc_v").  The client logs which transport each
# operation uses, and captures its frames.
export UCX_TLS=rc_verbs,ud_verbs:aux
printf '[port0]\ncapture = %s\n' "$mw_dir/c.pcapng" >"$mw_dir/c.ini"
for t in tag_bw tag_lat stream_bw; do
	rm -f "$mw_dir/c.pcapng"
	run "ucp $t rc_verbs" env UCX_LOG_LEVEL=info RXD_CONFIG="$mw_dir/c.ini" \
		ucx_perftest -t $t -n 2000
	op=${t%_*}
	if grep -q "ep_cfg\[[0-9]*\]: $op(rc_verbs/rxd0:1)" "$mw_dir/c"; then
		echo "PASS: ucp $t: UCP put $op on rc_verbs/rxd0:1"
	else
		echo "FAIL: ucp $t: UCP did not put $op on rc_verbs/rxd0:1"
		grep "ep_cfg" "$mw_dir/c" | sed 's/^/    | /'
		fail=1
	fi
	if ! command -v tshark >/dev/null; then
		echo "SKIP: tshark not installed: the frames of ucp $t not counted"
		continue
	fi
	# BTH opcodes: 4 RC SEND only, 100 UD SEND only
	tshark -r "$mw_dir/c.pcapng" -T fields -e infiniband.bth.opcode \
		>"$mw_dir/ops" 2>/dev/null
	rc=$(grep -cx 4 "$mw_dir/ops")
	ud=$(grep -cx 100 "$mw_dir/ops")
	if [ "$rc" -ge 2000 ] && [ "$ud" -lt 200 ]; then
		echo "PASS: ucp $t: $rc RC SENDs, $ud UD frames on the wire"
	else
		echo "FAIL: ucp $t: $rc RC SENDs, $ud UD frames on the wire"
		fail=1
	fi
done
unset UCX_TLS

# A peer killed mid-transfer: the server is killed (SIGKILL) during a long
# zero-copy put run, whose puts are always in flight, so the client's next
# ones must end in an error completion (retries exhausted) within the run's
# time limit.  ucx_perftest's UCT mode handles no errors: UCX then prints
# the completion and aborts (SIGABRT), its own choice; a hang (124) or any
# other end fails.
rm -f "$mw_dir/m.sock"
mw_start_server ucx_perftest
mw_wait_tcp 13337
( # kill once the client reports progress: the transfer runs
	for _ in $(seq 1500); do
		grep -q '^\[thread 0\]' "$mw_dir/c" 2>/dev/null && break
		sleep 0.1
	done
	kill -9 "$mw_server" ) &
mw_client timeout 200 ucx_perftest -d rxd0:1 -x rc_verbs -t put_bw -D zcopy \
	-s 4096 -n 100000000 10.0.0.1
c=$?
if [ $c != 124 ] && [ $c != 0 ] &&
   grep -q "send completion with error: transport retry counter exceeded" \
	"$mw_dir/c"; then
	echo "PASS: server killed mid-transfer: the client's puts completed" \
		"with transport retry counter exceeded (exit $c)"
else
	echo "FAIL: server killed mid-transfer: client exit $c"
	grep -v '^[|+]' "$mw_dir/c" | tail -n 6 | sed 's/^/    | /'
	fail=1
fi

# The other way round: the client killed (SIGKILL) during a long zero-copy
# am_bw run.  The server only receives: its RC QP has nothing in flight,
# and a killed rxd sends no DREQ (on a kernel device it would wait for
# ever).  rxd's keepalive (keepalive_ms, 5 s by default) probes the silent
# peer and moves the QP to ERR with IBV_EVENT_QP_FATAL.  Within 30 s the
# server must end with an error exit (PASS: UCX aborts on the error
# completion of its next send), or UCX must have logged that async event
# ("local work queue catastrophic error"): UCT's perftest, whose receives
# are on an SRQ (no completion flushes them), then waits on, its choice:
# KNOWN, gdb shows where, and the test kills it.  Still waiting without
# that event, a crash or a sanitizer report fails.  Then a new pair must
# pass.
rm -f "$mw_dir/m.sock"
mw_start_server ucx_perftest
mw_wait_tcp 13337
mw_client timeout 200 ucx_perftest -d rxd0:1 -x rc_verbs -t am_bw -D zcopy \
	-s 4096 -n 100000000 10.0.0.1 &
client=$!
for _ in $(seq 1500); do
	grep -q '^\[thread 0\]' "$mw_dir/c" 2>/dev/null && break
	sleep 0.1
done
# the client's subshell runs ip netns exec, which execs timeout
tmo=$(tr -d " " <"/proc/$client/task/$client/children" 2>/dev/null)
ucx=$(tr -d " " <"/proc/$tmo/task/$tmo/children" 2>/dev/null)
kill -KILL "${ucx:-$tmo}" 2>/dev/null
wait "$client"
for _ in $(seq 300); do
	kill -0 "$mw_server" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$mw_server" 2>/dev/null; then
	if command -v gdb >/dev/null; then
		env -u LD_PRELOAD gdb -p "$mw_server" -batch -ex "bt 6" \
			>"$mw_dir/bt" 2>&1
	fi
	kill -KILL "$mw_server"
	wait "$mw_server" 2>/dev/null
	if grep -q "IB Async event on rxd0: local work queue catastrophic" \
		"$mw_dir/s"; then
		echo "KNOWN: client killed mid-transfer ($MW_LINK): rxd's" \
			"keepalive gave the server's QP up (UCX logged its" \
			"QP_FATAL event); UCT's perftest waits on; not counted"
		grep '^#' "$mw_dir/bt" 2>/dev/null | sed 's/^/    | /'
	else
		echo "FAIL: client killed mid-transfer ($MW_LINK): the server" \
			"still waits after 30 s and no QP_FATAL event was logged"
		grep -v '^[|+]' "$mw_dir/s" | tail -n 6 | sed 's/^/    | /'
		grep '^#' "$mw_dir/bt" 2>/dev/null | sed 's/^/    | /'
		fail=1
	fi
else
	wait "$mw_server"
	s=$?
	if [ $s = 0 ] || { [ $s -ge 128 ] && [ $s != 134 ]; } ||
	   grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error:' "$mw_dir/s"; then
		echo "FAIL: client killed mid-transfer ($MW_LINK): server exit $s"
		grep -v '^[|+]' "$mw_dir/s" | tail -n 6 | sed 's/^/    | /'
		fail=1
	else
		echo "PASS: client killed mid-transfer ($MW_LINK): server exit $s:" \
			"$(grep -m1 'UCX  ERROR' "$mw_dir/s")"
	fi
fi
run "uct put_bw rc_verbs after the kills" ucx_perftest -d rxd0:1 -x rc_verbs \
	-n 2000 -w 100 -t put_bw
exit $fail
