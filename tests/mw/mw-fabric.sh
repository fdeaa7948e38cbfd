#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's libfabric 1.17 (libfabric-bin), unmodified, between two rxd
# processes: fi_info -p verbs offers an FI_EP_MSG endpoint on rxd0, then
# fi_pingpong -p verbs -e msg and -p "verbs;ofi_rxm" -e rdm, both with
# data checks (-c), must complete every size on both sides.  The server
# names no address: the verbs provider binds "localhost", which rxd takes
# as its own host address.  ofi_rxm sizes its completion queue for
# FI_UNIVERSE_SIZE peers (256 by default: 65536 entries); the rdm run
# keeps libfabric's defaults.  fi_pingpong's TCP
# side channel (port 47592) reaches the server through the namespace's lo.
# fi_pingpong's server opens the verbs provider (which drops a port that is
# not active) before its client has opened anything, and a memif link is up
# only once both rxd run: over memif the client runs with RXD_START=load
# (rxd starts as the library loads), so its link is there for the server.
# Then a server killed (SIGKILL) mid-transfer must leave the client with an
# error line and an error exit, never a hang or a crash; a client killed,
# the server; and a new pair must then pass.
# Usage: mw-fabric.sh BUILD_DIR [memif|afpacket]
set -u
command -v fi_pingpong >/dev/null || { echo "SKIP: libfabric-bin not installed"; exit 77; }
MW_LINK=${2:-memif}
early=
[ "$MW_LINK" = memif ] && early=load
# shellcheck source=mw-lib.sh
. "$(dirname "$0")/mw-lib.sh" "$1"
mw_netns || { echo "SKIP: cannot create a network namespace"; exit 77; }
fail=0

# a peer for fi_info's rxd: ibv_rc_pingpong opens rxd0 and waits
# (over memif its link comes up only with fi_info's rxd: no TCP wait)
mw_start_server timeout 100 ibv_rc_pingpong -d rxd0 -g 1
mw_client timeout 100 fi_info -p verbs -t FI_EP_MSG
if grep -q "domain: rxd0$" "$mw_dir/c"; then
	echo "PASS: fi_info -p verbs offers FI_EP_MSG on rxd0 ($MW_LINK)"
else
	echo "FAIL: fi_info -p verbs -t FI_EP_MSG lists no rxd0"
	mw_show
	fail=1
fi
kill "$mw_server" 2>/dev/null
wait "$mw_server" 2>/dev/null

# run NAME PROVIDER ARGS...: one fi_pingpong pair
run() {
	local name=$1 prov=$2 s c
	shift 2
	rm -f "$mw_dir/m.sock"
	mw_start_server timeout 120 fi_pingpong -p "$prov" "$@"
	mw_wait_tcp 47592
	RXD_START=$early mw_client timeout 110 fi_pingpong -p "$prov" "$@" \
		10.0.0.1
	c=$?
	wait "$mw_server"
	s=$?
	if [ $c = 0 ] && [ $s = 0 ] && grep -Eq "^1m +10 +=10 " "$mw_dir/c" &&
	   grep -Eq "^1m +10 +=10 " "$mw_dir/s"; then
		echo "PASS: $name ($MW_LINK): $(grep -E '^1m ' "$mw_dir/c" | tr -s ' ')"
	else
		echo "FAIL: $name ($MW_LINK) (server exit $s, client exit $c)"
		mw_show
		fail=1
	fi
}
run "fi_pingpong -e msg -c" verbs -e msg -c -I 10
run "fi_pingpong -e rdm -c (verbs;ofi_rxm)" \
	"verbs;ofi_rxm" -e rdm -c -I 10

# The client's TCP segments in from the server over their side channel:
# 6 or more once the address exchange and the first sync are done.
ctrl_segs() {
	ip netns exec "$mw_ns" ss -Htin state established "( dport = :47592 )" |
		grep -o 'segs_in:[0-9]*' | cut -d: -f2 | head -n 1
}

# kill_case VICTIM: a long fi_pingpong -e msg -c pair; once the address
# exchange and the first sync are done, VICTIM (server or client) is
# killed with SIGKILL.  The survivor must end with an [error] line and an
# error exit within its 60 s, never hang or crash.  A survivor waiting only
# for the peer's message (no send of its own in flight, and a killed rxd
# sends no DREQ) learns of the death from rxd's keepalive (keepalive_ms,
# 5 s), which gives its QP up and flushes the receive it waits on.
kill_case() {
	local victim=$1 stime=200 ctime=200 log=$mw_dir/c client segs tmo rc
	if [ "$victim" = server ]; then
		ctime=60
	else
		stime=60
		log=$mw_dir/s
	fi
	rm -f "$mw_dir/m.sock"
	mw_start_server timeout $stime fi_pingpong -p verbs -e msg -c -I 3000
	mw_wait_tcp 47592
	RXD_START=$early mw_client timeout $ctime fi_pingpong -p verbs \
		-e msg -c -I 3000 10.0.0.1 &
	client=$!
	for _ in $(seq 1200); do
		[ "$(ctrl_segs)" -ge 6 ] 2>/dev/null && break
		kill -0 "$client" 2>/dev/null || break
		sleep 0.1
	done
	segs=$(ctrl_segs)
	sleep 1
	# (no pkill: under ASan, compat-env.sh's LD_PRELOAD hangs procps)
	if [ "$victim" = server ]; then
		kill -KILL $(cat "/proc/$mw_server/task/$mw_server/children")
		wait "$client"
		rc=$?
		wait "$mw_server" 2>/dev/null
	else
		# the client's subshell runs ip netns exec, which execs timeout
		tmo=$(tr -d " " <"/proc/$client/task/$client/children")
		kill -KILL $(cat "/proc/$tmo/task/$tmo/children")
		wait "$client" 2>/dev/null
		wait "$mw_server"
		rc=$?
	fi
	if [ "${segs:-0}" -lt 6 ] || [ $rc = 124 ] || [ $rc -ge 128 ] ||
	   [ $rc = 0 ] || grep -q -e 'ERROR: AddressSanitizer' \
		-e 'runtime error:' "$log"; then
		echo "FAIL: $victim killed mid-transfer ($MW_LINK): survivor" \
			"exit $rc, ${segs:-no} side-channel segments before the kill"
		mw_show
		fail=1
	else
		echo "PASS: $victim killed mid-transfer: survivor exit $rc" \
			"($MW_LINK): $(grep -h -m 1 '^\[error\]' "$log")"
	fi
}
kill_case server
kill_case client
run "fi_pingpong -e msg -c after the kills" verbs -e msg -c -I 10

exit $fail
