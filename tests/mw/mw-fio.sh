#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's fio 3.33, unmodified, with its rdma ioengine between two rxd
# processes: a receiver (rw=read: it offers its buffers and waits) and an
# initiator (rw=write) that moves 64 MiB in 64 KiB blocks at queue depth
# 16 with verb=write (RDMA WRITE), verb=read (RDMA READ) and verb=send
# (SEND into the receiver's posted receives).  fio connects with rdma_cm
# and exchanges its buffers over the connection itself: no TCP side
# channel.  Each pair must end with err=0 on both sides and the whole
# 64 MiB issued; the initiator's bandwidth and 99th percentile completion
# latency are printed.
# Usage: mw-fio.sh BUILD_DIR [memif|afpacket]
set -u
command -v fio >/dev/null || { echo "SKIP: fio not installed"; exit 77; }
fio --enghelp 2>/dev/null | grep -qx "[[:space:]]*rdma" ||
	{ echo "SKIP: this fio has no rdma ioengine"; exit 77; }
MW_LINK=${2:-memif}
# fio 3.33 frees an ioengine allocation twice at exit: the ASan runtime a
# sanitized build preloads into it aborts there (seen once in six runs)
ldd "$1/compat/libibverbs.so.1" 2>/dev/null | grep -q libasan &&
	{ echo "SKIP: fio's own double free at exit aborts under the preloaded ASan runtime"; exit 77; }
# shellcheck source=mw-lib.sh
. "$(dirname "$0")/mw-lib.sh" "$1"
mw_netns || { echo "SKIP: cannot create a network namespace"; exit 77; }
fail=0
common=(--ioengine=rdma --port=5555 --bs=64k --size=64m --iodepth=16)

for verb in write read send; do
	rm -f "$mw_dir/m.sock"
	mw_start_server timeout 100 fio --name=receiver "${common[@]}" --rw=read
	for _ in $(seq 300); do
		grep -q "waiting for connection" "$mw_dir/s" 2>/dev/null && break
		kill -0 "$mw_server" 2>/dev/null || break
		sleep 0.1
	done
	mw_client timeout 100 fio --name=initiator "${common[@]}" \
		--hostname=10.0.0.1 --verb="$verb" --rw=write
	c=$?
	wait "$mw_server"
	s=$?
	if [ $c = 0 ] && [ $s = 0 ] && grep -q "err= 0:" "$mw_dir/s" &&
	   grep -q "err= 0:" "$mw_dir/c" &&
	   grep -Eq "issued rwts: total=0,1024,0,0 short=0,0,0,0" "$mw_dir/c"; then
		echo "PASS: fio rdma verb=$verb 64 KiB iodepth 16 ($MW_LINK):" \
			"$(grep -o -m 1 'BW=[^ ]*' "$mw_dir/c")," \
			"p99 $(grep -o -m 1 '99.00th=\[ *[0-9]*\]' "$mw_dir/c" |
			tr -d '[] ' | cut -d= -f2) $(grep -m 1 -o 'clat percentiles ([um]sec)' "$mw_dir/c" |
			grep -o '[um]sec')"
	else
		echo "FAIL: fio rdma verb=$verb ($MW_LINK) (receiver exit $s," \
			"initiator exit $c)"
		mw_show 12
		fail=1
	fi
done
exit $fail
