#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rs-interop.sh - rsockets between rxd and Linux Soft-RoCE with rdma-core's
# rsockets: Debian's unmodified rstream (verified 4 KiB and 64 KiB
# transfers) and riostream (riomap/riowrite, verified), rxd on the host
# side of the lab's bridge (compat librdmacm.so.1, 10.88.0.1) and the
# guest's librdmacm over rdma_rxe (10.88.0.11), in both roles: the same
# connection data, immediate data and credit SGEs must work each way.
# rxd captures every frame; when ../shared/tools/roce-check exists each
# capture must pass it.
#
# Usage: rs-interop.sh BUILD_DIR     (root; exit 0 ok, 1 failed, 77 skipped)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rxi_script_init "${1:?usage: rs-interop.sh BUILD_DIR}"
[ -e "$build/compat/librdmacm.so.1" ] || skip "no $build/compat/librdmacm.so.1"
command -v rstream >/dev/null || skip "rdmacm-utils not installed"

rxi_guest_up
RXI_PAIR_GUEST_S=90

for side in guest rxd; do
	rxi_pair "rstream-4k-$side" $side "rstream -b @S@ -S 4096 -C 100 -T v" \
		"rstream -s @S@ -S 4096 -C 100 -T v" "^custom "
	rxi_pair "rstream-64k-$side" $side "rstream -b @S@ -S 65536 -C 50 -T v" \
		"rstream -s @S@ -S 65536 -C 50 -T v" "^custom "
	rxi_pair "riostream-$side" $side "riostream -b @S@ -S 65536 -C 50 -T v" \
		"riostream -s @S@ -S 65536 -C 50 -T v" "^custom "
done
[ -x "$checker" ] || echo "SKIP: roce-check not found ($checker); captures not checked"
echo "logs and captures: $out"
exit $failed
