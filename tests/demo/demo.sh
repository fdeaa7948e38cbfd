#!/bin/bash
# Runs the main demo non-interactively and checks its key lines.
# Usage: demo.sh SOURCE_DIR BUILD_DIR
set -u
out=$("$1/apps/demo/run-demo.sh" "$2" 2>&1)
rc=$?
fail=0
need() {
	if grep -qE "$1" <<<"$out"; then
		echo "PASS: $2"
	else
		echo "FAIL: $2 (no line matching '$1')"
		fail=1
	fi
}
need "^demo: OK$" "demo reports OK"
need "ping 10.0.0.2 5/5" "host A pings B over IPv4"
need "ping fd00::1 5/5" "host B pings A over IPv6"
need "gid 1 10.0.0.1" "host A's GID table"
need "neigh 10.0.0.2 .* reachable" "host A resolved B"
need "Message received by SEND: 'SEND operation'" "the RC example's SEND"
need "Server's buffer read by RDMA READ: 'RDMA read operation'" \
	"the RC example's READ"
need "Buffer after the client's RDMA WRITE: 'RDMA write operation'" \
	"the RC example's WRITE"
need "^ +#bytes +#iterations +BW peak\[MB/sec\]" "rxd-perf's BW table"
need "^ +65536 +5000 +[0-9.]+ +[0-9.]+" "a write_bw row"
need "^ +8 +1000 +[0-9.]+ +[0-9.]+" "a send_lat row"
need "QPs : tx 2000 rx 2000 packets" "the QP counters of send_lat"
need "RRoCE 66 RC Send Only" "tshark decodes the RoCE frames"
need "opcode 4: 2000 frames" "every SEND is in the capture"
[ $rc = 0 ] || fail=1
[ $fail = 0 ] || echo "$out"
exit $fail
