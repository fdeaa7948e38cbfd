#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's libfabric 1.17 (libfabric-bin), unmodified, between two rxd
# processes: fi_info -p verbs offers an FI_EP_MSG endpoint on rxd0, then
# fi_pingpong -p verbs -e msg and -p "verbs;ofi_rxm" -e rdm, both with
# data checks (-c), must complete every size on both sides.  The server
# names no address: the verbs provider binds "localhost", which rxd takes
# as its own host address.  ofi_rxm sizes its completion queue for
# FI_UNIVERSE_SIZE peers (256: 65536 entries, above rxd's default max_cqe
# of 4096), so the rdm run sets FI_UNIVERSE_SIZE=8.  fi_pingpong's TCP
# side channel (port 47592) reaches the server through the namespace's lo.
# Over af_packet only: fi_pingpong's server opens the verbs provider (which
# drops a port that is not active) before its client starts rxd at all, and
# a memif link is up only once the peer rxd runs.
# Usage: mw-fabric.sh BUILD_DIR [afpacket]
set -u
command -v fi_pingpong >/dev/null || { echo "SKIP: libfabric-bin not installed"; exit 77; }
MW_LINK=${2:-afpacket}
# shellcheck source=mw-lib.sh
. "$(dirname "$0")/mw-lib.sh" "$1"
mw_netns || { echo "SKIP: cannot create a network namespace"; exit 77; }
fail=0

# a peer for fi_info's rxd: ibv_rc_pingpong opens rxd0 and waits
mw_start_server timeout 100 ibv_rc_pingpong -d rxd0 -g 1
mw_wait_tcp 18515
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
	mw_client timeout 110 fi_pingpong -p "$prov" "$@" 10.0.0.1
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
FI_UNIVERSE_SIZE=8 run "fi_pingpong -e rdm -c (verbs;ofi_rxm)" \
	"verbs;ofi_rxm" -e rdm -c -I 10

exit $fail
