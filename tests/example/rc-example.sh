#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The RC example between two rxd processes over net_memif: the server
# SENDs, the client receives it, RDMA READs the server's buffer and RDMA
# WRITEs into it; each side must print the three messages exactly and
# exit 0.  Run twice: server with EAL arguments and a lazily started client
# (RXD_EAL_ARGS, RXD_ADDR), then the other way round.
# Usage: rc-example.sh RXD_RC_EXAMPLE
set -u
prog=$1
dir=$(mktemp -d /tmp/rxd-rc-example.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
fail=0
# A memif server's link comes up only when its client connects.
export RXD_LINK_WAIT_MS=30000

eal() { # role prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdrc$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# side ROLE MODE LOG IP [SERVER]: run one side, EAL from argv or from env
side() {
	local role=$1 mode=$2 log=$3 ip=$4 port=$5
	shift 5
	if [ "$mode" = argv ]; then
		# shellcheck disable=SC2046
		timeout 60 "$prog" $(eal "$role" "$role") -- --ip "$ip/24" \
			-p "$port" "$@" >"$log" 2>&1
	else
		RXD_EAL_ARGS=$(eal "$role" "$role") RXD_ADDR=$ip/24 \
			timeout 60 "$prog" -p "$port" "$@" >"$log" 2>&1
	fi
}

expect() { # LOG LINE
	if grep -qxF "$2" "$1"; then
		echo "PASS: $(basename "$1" .log) printed \"$2\""
	else
		echo "FAIL: $(basename "$1" .log) did not print \"$2\""
		fail=1
	fi
}

run() { # SERVER_MODE CLIENT_MODE
	local s=$dir/server-$1.log c=$dir/client-$2.log port=$((20000 + $$ % 20000)) spid src crc
	rm -f "$dir/m.sock"
	side server "$1" "$s" 10.0.0.1 "$port" &
	spid=$!
	for _ in $(seq 100); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
	side client "$2" "$c" 10.0.0.2 "$port" 127.0.0.1
	crc=$?
	wait "$spid"
	src=$?
	echo "server ($1) exit $src, client ($2) exit $crc"
	[ "$src" = 0 ] && [ "$crc" = 0 ] || fail=1
	expect "$s" "Message sent by SEND: 'SEND operation'"
	expect "$s" "Buffer offered to RDMA READ: 'RDMA read operation'"
	expect "$s" "Buffer after the client's RDMA WRITE: 'RDMA write operation'"
	expect "$c" "Message received by SEND: 'SEND operation'"
	expect "$c" "Server's buffer read by RDMA READ: 'RDMA read operation'"
	expect "$c" "Written to the server's buffer by RDMA WRITE: 'RDMA write operation'"
	if [ $fail != 0 ]; then
		tail -n 8 "$s" "$c" | sed 's/^/    | /'
	fi
}

run argv env
run env argv
[ $fail = 0 ] && echo "PASS: RC example, both start modes" && exit 0
exit 1
