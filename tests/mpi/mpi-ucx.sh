#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's Open MPI 4.1 over Debian's UCX 1.13 over rxd, unmodified: two
# ranks, each an rxd host of its own over memif (rank-env.sh), run
# mpi-pingpong (data-checked round trips of 8 B to 1 MiB, then an
# allreduce) with the settings a user of Debian's Open MPI needs: its
# openmpi-mca-params.conf turns UCX off (pml = ^ucx, osc = ^ucx), so
# --mca pml ucx --mca osc ucx, and UCX_TLS without tcp so that nothing
# can go over the kernel.  In a network namespace of the test's own with
# only lo up: Open MPI's runtime talks over 127.0.0.1, and rxd's
# addresses have no kernel route there.  Both ranks must exit 0 and rank
# 0 must report every size and the allreduce right.
# Usage: mpi-ucx.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
pp=$build/tests/mpi/mpi-pingpong
command -v mpirun >/dev/null || { echo "SKIP: openmpi-bin not installed"; exit 77; }
[ -x "$pp" ] || { echo "SKIP: mpi-pingpong not built (libopenmpi-dev missing)"; exit 77; }
command -v ucx_info >/dev/null || { echo "SKIP: ucx-utils not installed"; exit 77; }
if [ ! -c /dev/infiniband/uverbs-rxd0 ]; then
	"$here/../../apps/rxd-setup/rxd-setup.sh" 1 ||
		{ echo "SKIP: no /dev/infiniband/uverbs-rxd0 and rxd-setup failed"; exit 77; }
fi
dir=$(mktemp -d /tmp/rxd-mpi.XXXXXX)
ns=rxdmpi$$
trap 'ip netns del $ns 2>/dev/null; rm -rf "$dir"' EXIT
ip netns add "$ns" || { echo "SKIP: cannot create a network namespace"; exit 77; }
ip -n "$ns" link set lo up
# shellcheck source=../lib/compat-env.sh
. "$here/../lib/compat-env.sh" "$build"
export RXD_LINK_WAIT_MS=50000

ip netns exec "$ns" timeout 240 mpirun --allow-run-as-root --oversubscribe \
	-np 2 --bind-to none --mca pml ucx --mca osc ucx --mca btl self \
	-x LD_LIBRARY_PATH -x LD_PRELOAD -x ASAN_OPTIONS -x RXD_LINK_WAIT_MS \
	-x UCX_NET_DEVICES=rxd0:1 -x UCX_TLS=rc_verbs,ud_verbs,self \
	"$here/rank-env.sh" "$dir" "$pp" -s 8,4096,65536,1048576 -n 100 -N 5 \
	>"$dir/out" 2>&1
rc=$?
cat "$dir/out"
fail=0
[ $rc = 0 ] || { echo "FAIL: mpirun exit $rc"; fail=1; }
for s in 8 4096 65536 1048576; do
	if grep -Eq "^pair 0-1 size $s: [0-9]+ round trips, [0-9.]+ us each, [0-9.]+ MB/s$" "$dir/out"; then
		echo "PASS: size $s, every byte right"
	else
		echo "FAIL: size $s"
		fail=1
	fi
done
grep -Eq "^allreduce 4096 doubles over 2 ranks: ok, [0-9.]+ us each$" "$dir/out" &&
	echo "PASS: allreduce" || { echo "FAIL: allreduce"; fail=1; }
grep -q "runtime error\|AddressSanitizer" "$dir/out" &&
	{ echo "FAIL: a sanitizer report"; fail=1; }
exit $fail
