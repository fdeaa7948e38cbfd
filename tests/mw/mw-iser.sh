#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# iSER block storage with both sides in user space, unmodified Debian
# programs over rxd: tgtd (tgt 1.0.85) serves a 64 MiB file as an iSER
# LUN from rxd's server host; libiscsi's tools (libiscsi-bin) log in with
# iser:// URLs from the client host: iscsi-inq and iscsi-readcapacity16
# must describe the LUN, and iscsi-test-cu's Inquiry, Read10, Write10 and
# ReadCapacity16 families must pass (-f: any failure fails the run).
# tgt 1.0.85's iSER login, unlike its TCP one, wants an initiator-name ACL
# as well as the address ACL (fixed upstream after 1.0.85: "Fix IP and
# initiator ACL testing logic"), so the target is bound to the initiator
# names the tools use too.
# Usage: mw-iser.sh BUILD_DIR [memif|afpacket]
set -u
command -v tgtd >/dev/null || { echo "SKIP: tgt not installed"; exit 77; }
command -v iscsi-test-cu >/dev/null || { echo "SKIP: libiscsi-bin not installed"; exit 77; }
MW_LINK=${2:-memif}
# shellcheck source=mw-lib.sh
. "$(dirname "$0")/mw-lib.sh" "$1"
mw_netns || { echo "SKIP: cannot create a network namespace"; exit 77; }
fail=0
ctl=$((100 + $$ % 800))          # tgtd's control port: a run of its own
iqn=iqn.2026-11.org.rxd:mw-iser
ini=iqn.2026-11.org.rxd:mw-iser-initiator
ini2=iqn.2026-11.org.rxd:mw-iser-initiator-2
url=iser://10.0.0.1/$iqn/1
tgtadm_() { tgtadm -C "$ctl" --lld iser "$@"; }

truncate -s 64M "$mw_dir/lun.img"
mw_start_server timeout 240 tgtd -f -C "$ctl"
for _ in $(seq 300); do
	[ -S "/var/run/tgtd/socket.$ctl" ] && break
	sleep 0.1
done
# the portal listens once tgtd's rxd has its link (the client's rxd)
if tgtadm_ --op new --mode target --tid 1 -T "$iqn" &&
   tgtadm_ --op new --mode logicalunit --tid 1 --lun 1 -b "$mw_dir/lun.img" &&
   tgtadm_ --op bind --mode target --tid 1 -I ALL &&
   tgtadm_ --op bind --mode target --tid 1 -Q "$ini" &&
   tgtadm_ --op bind --mode target --tid 1 -Q "$ini2"; then
	echo "PASS: tgtd serves $iqn over iSER ($MW_LINK)"
else
	echo "FAIL: tgtadm could not set the target up"
	mw_show
	exit 1
fi

# check NAME PATTERN CMD...: CMD as the client must exit 0 and print PATTERN
check() {
	local name=$1 pattern=$2
	shift 2
	mw_client timeout 120 "$@"
	local rc=$?
	if [ $rc = 0 ] && grep -Eq "$pattern" "$mw_dir/c"; then
		echo "PASS: $name ($MW_LINK)"
	else
		echo "FAIL: $name ($MW_LINK): exit $rc"
		tail -n 12 "$mw_dir/c" | sed 's/^/    | /'
		fail=1
	fi
}
check "iscsi-inq over iser://" "^Product:VIRTUAL-DISK" \
	iscsi-inq -i "$ini" "$url"
check "iscsi-readcapacity16: 64 MiB of 512-byte blocks" "^RETURNED LOGICAL BLOCK ADDRESS:131071$" \
	iscsi-readcapacity16 -i "$ini" "$url"
for family in Inquiry ReadCapacity16 Read10 Write10; do
	check "iscsi-test-cu ALL.$family" "^ +tests +[0-9]+ +[0-9]+ +[0-9]+ +0 " \
		iscsi-test-cu -f -d -s -i "$ini" -I "$ini2" -t "ALL.$family" "$url"
	grep -E "^ +(suites|tests|asserts) " "$mw_dir/c" | sed 's/^/    /'
done
tgtadm -C "$ctl" --op delete --mode system --force >/dev/null 2>&1
wait "$mw_server" 2>/dev/null
exit $fail
