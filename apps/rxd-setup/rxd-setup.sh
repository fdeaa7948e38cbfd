#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rxd-setup: the one-time host setup UCX needs to use rxd devices.
#
# UCX (uct_ib) keeps a verbs device only when /dev/infiniband/<dev_name>
# is a character device it may read and write; rxd's devices have
# dev_name "uverbs-rxdN" and no kernel driver behind them, so nothing is
# there.  rxd-setup creates /dev/infiniband/uverbs-rxd0 .. uverbs-rxd(N-1)
# as character devices with the numbers of /dev/null (1:3, harmless:
# rxd never opens them, UCX only stat()s them), mode 0666.  No kernel
# module and nothing under /sys; programs that do not look (rdma-core's
# tools, perftest, libfabric, qperf) never need it.  --remove deletes what
# it made (and /dev/infiniband when that is left empty).  Needs root; the
# nodes last until the next reboot (devtmpfs).
#
# Usage: rxd-setup [--remove] [N]      (N devices, default 4)
set -eu
remove=0
if [ "${1:-}" = --remove ]; then
	remove=1
	shift
fi
n=${1:-4}
case $n in
''|*[!0-9]*) echo "usage: rxd-setup [--remove] [N]" >&2; exit 2 ;;
esac
dir=/dev/infiniband
if [ $remove = 1 ]; then
	for f in "$dir"/uverbs-rxd*; do
		[ -c "$f" ] && rm -f "$f"
	done
	rmdir "$dir" 2>/dev/null || true
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "rxd-setup: run as root (it creates device nodes in $dir)" >&2
	exit 1
fi
mkdir -p "$dir"
i=0
while [ "$i" -lt "$n" ]; do
	node=$dir/uverbs-rxd$i
	if [ ! -c "$node" ]; then
		rm -f "$node"
		mknod -m 0666 "$node" c 1 3
	fi
	i=$((i + 1))
done
echo "rxd-setup: $dir/uverbs-rxd0..$((n - 1)) ready (character devices 1:3)"
