#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Debian's unmodified rdmacm-utils between two rxd processes over
# net_memif, through build/compat/librdmacm.so.1 and libibverbs.so.1:
# rping with data verification (-V), ucmatose, rdma_server/rdma_client,
# udaddy, and perftest's rdma_cm mode (ib_send_bw -R), each side with an
# engine lcore; then rping with one lcore a side (inline engines, which
# rxd's CM thread and the program share).  Both sides of each pair must
# exit 0.
# Usage: cm-tools.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/rxd-cm-tools.XXXXXX)
fail=0
command -v rping >/dev/null || { echo "SKIP: rdmacm-utils not installed"; exit 77; }
# shellcheck source=../lib/compat-env.sh
. "$here/../lib/compat-env.sh" "$build"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
export RXD_LINK_WAIT_MS=50000

eal() { # role prefix; LCORES_S/LCORES_C override -l 0-1
	local l=${LCORES_S:-0-1}
	[ "$1" = client ] && l=${LCORES_C:-0-1}
	echo "-l $l --no-pci --no-huge -m 512 --file-prefix rxdcm$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# pair NAME "SERVER CMD" "CLIENT CMD" [CHECK]: server on 10.0.0.1, client
# on 10.0.0.2; CHECK is a grep -E pattern the client output must contain.
pair() {
	local name=$1 scmd=$2 ccmd=$3 check=${4:-} s c
	rm -f "$dir/m.sock"
	# shellcheck disable=SC2086
	RXD_EAL_ARGS=$(eal server s) RXD_ADDR=10.0.0.1/24 \
		timeout 60 $scmd >"$dir/$name.s" 2>&1 &
	s=$!
	for _ in $(seq 300); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
	# A client whose REQ beats the server's rdma_listen() is rejected
	# (invalid service ID), as Linux rejects it; a UD client's SIDR REQ
	# gets a SIDR REP with status 1 (no such service: udaddy prints
	# UNREACHABLE, error: 1), as from Linux.  A user tries again.
	for try in 1 2 3; do
		# shellcheck disable=SC2086
		RXD_EAL_ARGS=$(eal client c) RXD_ADDR=10.0.0.2/24 \
			timeout 60 $ccmd >"$dir/$name.c" 2>&1
		c=$?
		if [ $c = 0 ] || ! grep -Eq "REJECTED|refused|UNREACHABLE, error: 1$" "$dir/$name.c"; then
			break
		fi
		echo "    $name: rejected before the server listened (try $try)"
		sleep 1
	done
	wait $s
	s=$?
	if [ $s = 0 ] && [ $c = 0 ] &&
	   { [ -z "$check" ] || grep -Eq "$check" "$dir/$name.c"; }; then
		echo "PASS: $name ($ccmd)"
	else
		echo "FAIL: $name (server exit $s, client exit $c)"
		tail -n 6 "$dir/$name.s" "$dir/$name.c" | sed 's/^/    | /'
		fail=1
	fi
}

pair rping "rping -s -a 10.0.0.1 -V -C 20 -S 100" \
	"rping -c -a 10.0.0.1 -V -C 20 -S 100 -v" "ping data: rdma-ping-19"
pair ucmatose "ucmatose -b 10.0.0.1 -c 2 -C 10" \
	"ucmatose -s 10.0.0.1 -c 2 -C 10" "test complete"
pair rdma-server-client "rdma_server -s 10.0.0.1" \
	"rdma_client -s 10.0.0.1" "rdma_client: end 0"
pair udaddy "udaddy -b 10.0.0.1 -c 2 -C 10" \
	"udaddy -s 10.0.0.1 -c 2 -C 10" "test complete"
pair perftest-rdmacm "ib_send_bw -d rxd0 -R -n 100" \
	"ib_send_bw -d rxd0 -R -n 100 10.0.0.1" "^ 65536 +100 "
LCORES_S=0 LCORES_C=1 pair rping-inline \
	"rping -s -a 10.0.0.1 -V -C 20 -S 100" \
	"rping -c -a 10.0.0.1 -V -C 20 -S 100 -v" "ping data: rdma-ping-19"
exit $fail
