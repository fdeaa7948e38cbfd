#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# QP1 exists before the link is up (cm_qp1_early.c): a memif server port
# nobody connects to, started lazily by the first rdma_cm call, which
# waits RXD_LINK_WAIT_MS (30 s) for the link; the program ends as soon as
# it sees QP1 (about 1 s; a failure takes 30 s).
# Usage: cm-qp1-early.sh CM_QP1_EARLY_BINARY
set -u
dir=$(mktemp -d /tmp/rxd-cm-qp1.XXXXXX)
trap 'rm -rf "$dir" "/var/run/dpdk/rxdq1$$"' EXIT
RXD_LINK_WAIT_MS=30000 RXD_ADDR=10.0.0.1/24 \
	RXD_EAL_ARGS="-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdq1$$ \
--vdev=net_memif0,role=server,id=0,socket=$dir/m.sock,socket-abstract=no \
--log-level=lib.eal:error --log-level=pmd.net.memif:error" \
	"$1"
