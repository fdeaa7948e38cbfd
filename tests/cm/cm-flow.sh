#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The seeds' rdma_cm flow (cm-flow, an rxd program with librxd linked
# statically) between two processes over net_memif:
#  - three connections one after the other, messages checked;
#  - five connections with 30% of the CM MADs (RoCE frames to QP 1) each side
#    receives dropped by the fault injector: MADs are resent
#    (RXD_CM_TIMEOUT_MS shortens the wait from Linux's 4.6 s) and the
#    connections still come up.  Only MADs: with ARP and the RC data
#    dropped too, address resolution or a transfer failed about one run
#    in 15 (four ARP tries in the 2 s resolve timeout; retry_cnt);
#  - ten connections where both sides disconnect and destroy their QP at
#    once, as rping does: the DREQs cross and each finds its QP gone.
#    A timing race: under ASan it failed 3 runs in 7 before the fix (a
#    use-after-free in ibv_modify_qp); a normal build may not notice;
#    both processes also exit together here, and memif's handling of its
#    peer's disconnect raced rxd's port close at exit (an ASan SEGV in
#    DPDK's allocator on memif's thread, 1 run in 25; a SIGSEGV in the
#    normal build) until ports were closed on EAL's interrupt thread;
#  - a connect to a port nobody listens on: RDMA_CM_EVENT_REJECTED with
#    status 8 (invalid service ID), as Linux answers;
#  - a connect to an address nobody has: RDMA_CM_EVENT_ADDR_ERROR.
# Every process ends with a thread calling rdma_get_cm_event on its
# destroyed event channel, which must sleep there (cm_flow.c).
# Usage: cm-flow.sh CM_FLOW_BINARY
set -u
flow=$1
dir=$(mktemp -d /tmp/rxd-cm-flow.XXXXXX)
fail=0
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
export RXD_LINK_WAIT_MS=50000

eal() { # role prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdcf$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# run NAME "RXD OPTS" "SERVER ARGS" "CLIENT ARGS" CHECK
# SEED in RXD OPTS becomes a number of each side's own: with one seed
# both sides drew the same faults, and a run with no drop at all came
# about once in 25.
run() {
	local name=$1 opts=$2 sargs=$3 cargs=$4 check=$5 s c
	rm -f "$dir/m.sock"
	# shellcheck disable=SC2046,SC2086
	timeout 60 "$flow" $(eal server s) -- --ip 10.0.0.1/24 ${opts//SEED/$$} \
		server 10.0.0.1 $sargs >"$dir/$name.s" 2>&1 &
	s=$!
	for _ in $(seq 300); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
	# shellcheck disable=SC2046,SC2086
	timeout 60 "$flow" $(eal client c) -- --ip 10.0.0.2/24 ${opts//SEED/$(($$ + 1))} \
		client $cargs >"$dir/$name.c" 2>&1
	c=$?
	if [ "$check" = both ]; then
		wait $s
		s=$?
	else
		kill $s 2>/dev/null
		wait $s 2>/dev/null
		s=0
	fi
	if [ $s = 0 ] && [ $c = 0 ]; then
		echo "PASS: $name"
		tail -n 2 "$dir/$name.c" | sed 's/^/    /'
	else
		echo "FAIL: $name (server exit $s, client exit $c)"
		tail -n 6 "$dir/$name.s" "$dir/$name.c" | sed 's/^/    | /'
		fail=1
	fi
}

run three "" "7471 3" "10.0.0.1 7471 3" both
RXD_CM_TIMEOUT_MS=200 run mad-loss \
	"--set port0.fault.rx.drop=30% --set port0.fault.rx.only_qpn=1 \
	 --set port0.fault_seed=SEED" \
	"7471 5" "10.0.0.1 7471 5" both
# the loss did happen, and hit MADs only (ARP and data are spared)
dropped=$(cat "$dir/mad-loss.s" "$dir/mad-loss.c" 2>/dev/null |
	sed -n 's/^fault injector: \([0-9]*\) received.*/\1/p' |
	awk '{ n += $1 } END { print n + 0 }')
if [ "$dropped" -gt 0 ]; then
	echo "PASS: mad-loss dropped $dropped MADs"
else
	echo "FAIL: mad-loss dropped no MAD"
	fail=1
fi
run both-disconnect "" "7471 10 both-disconnect" \
	"10.0.0.1 7471 10 both-disconnect" both
run no-listener "" "7471 1" "10.0.0.1 7472 1 expect-reject" client
run no-address "" "7471 1" "10.0.0.9 7471 1 expect-addr-error" client
exit $fail
