# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the middleware tests (mw-*.sh): two rxd processes run Debian's
# unmodified programs through BUILD/compat, in a network namespace of the
# test's own whose lo carries both rxd addresses (10.0.0.1 server,
# 10.0.0.2 client), so that the programs' TCP side channels reach the
# peer.  MW_LINK=memif (default) joins the two rxd processes with
# net_memif; MW_LINK=afpacket with net_af_packet on the two ends of a veth
# pair inside that namespace.  mw_netns bare leaves the rxd addresses off
# lo (and the veth ends carry none): the kernel has no route between them.
# Usage: . mw-lib.sh BUILD_DIR; then mw_start_server CMD..., mw_client CMD...
mw_build=$1
mw_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mw_dir=$(mktemp -d /tmp/rxd-mw.XXXXXX)
mw_ns=rxdmw$$
# shellcheck source=../lib/compat-env.sh
. "$mw_here/../lib/compat-env.sh" "$mw_build"
export RXD_LINK_WAIT_MS=50000

mw_cleanup() {
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	ip netns del "$mw_ns" 2>/dev/null
	rm -rf "$mw_dir" /var/run/dpdk/rxdmwserver$$ /var/run/dpdk/rxdmwclient$$
}
trap mw_cleanup EXIT

mw_netns() { # [bare]
	ip netns add "$mw_ns" || return 1
	ip -n "$mw_ns" link set lo up
	if [ "${1:-}" != bare ]; then
		ip -n "$mw_ns" addr add 10.0.0.1/32 dev lo
		ip -n "$mw_ns" addr add 10.0.0.2/32 dev lo
	fi
	[ "${MW_LINK:-memif}" = afpacket ] || return 0
	# DPDK 22.11's af_packet joins fanout group (pid ^ ifindex) & 0xffff:
	# far-apart indexes keep two rxd processes started back to back out of
	# each other's group (EINVAL otherwise).
	ip -n "$mw_ns" link add mwa index 40000 type veth peer name mwb \
		index 9 || return 1
	ip -n "$mw_ns" link set mwa up
	ip -n "$mw_ns" link set mwb up
}

# The EAL command line of a role (server|client).
mw_eal() {
	local vdev
	if [ "${MW_LINK:-memif}" = afpacket ]; then
		local ifc=mwa
		[ "$1" = client ] && ifc=mwb
		vdev="--vdev=net_af_packet0,iface=$ifc"
	else
		vdev="--vdev=net_memif0,role=$1,id=0,socket=$mw_dir/m.sock,socket-abstract=no"
	fi
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdmw$1$$ $vdev" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# Run CMD... as the server (10.0.0.1) in the background; output in $mw_dir/s.
mw_start_server() {
	RXD_EAL_ARGS=$(mw_eal server) RXD_ADDR=10.0.0.1/24 \
		ip netns exec "$mw_ns" "$@" >"$mw_dir/s" 2>&1 &
	mw_server=$!
}

# Wait until something in the namespace listens on TCP port $1 (or the
# server died); false if nothing did within 60 s.
mw_wait_tcp() {
	for _ in $(seq 600); do
		ip netns exec "$mw_ns" ss -Hltn "sport = :$1" | grep -q . && return 0
		kill -0 "$mw_server" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# Run CMD... as the client (10.0.0.2); output in $mw_dir/c; its exit status.
mw_client() {
	RXD_EAL_ARGS=$(mw_eal client) RXD_ADDR=10.0.0.2/24 \
		ip netns exec "$mw_ns" "$@" >"$mw_dir/c" 2>&1
}

# Print the tails of both sides' output, indented.
mw_show() {
	tail -n "${1:-8}" "$mw_dir/s" "$mw_dir/c" 2>/dev/null | sed 's/^/    | /'
}
