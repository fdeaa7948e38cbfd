# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced by tests whose DPDK processes need hugepages (a secondary process
# such as dpdk-dumpcap or dpdk-proc-info attaches to the primary's
# hugepage memory; --no-huge memory cannot be shared).  The calling script
# runs in a mount namespace of its own (rxd_huge_reexec), so the hugetlbfs
# mount is seen by its processes only.
#   rxd_huge_reexec "$0" "$@"   root or SKIP; re-run the script under
#                                unshare -m (once)
#   rxd_huge_setup DIR PAGES     mount hugetlbfs on DIR/huge, make PAGES free
#                                2 MB pages (raises vm.nr_hugepages)
#   rxd_huge_teardown            unmount, put vm.nr_hugepages back
rxd_huge_sysctl=/proc/sys/vm/nr_hugepages
rxd_huge_saved=''
rxd_huge_mnt=''

rxd_huge_reexec() {
	[ -n "${RXD_HUGE_NS:-}" ] && return 0
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
		echo "SKIP: needs root and unshare (hugetlbfs mount for DPDK secondary processes)"
		exit 77
	fi
	RXD_HUGE_NS=1 exec unshare -m --propagation private "$@"
}

rxd_huge_setup() {
	local free
	rxd_huge_mnt=$1/huge
	mkdir -p "$rxd_huge_mnt"
	if ! mount -t hugetlbfs -o pagesize=2M nodev "$rxd_huge_mnt"; then
		echo "SKIP: cannot mount hugetlbfs"
		exit 77
	fi
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	if [ "$free" -lt "$2" ]; then
		rxd_huge_saved=$(cat $rxd_huge_sysctl)
		echo $((rxd_huge_saved + $2 - free)) >$rxd_huge_sysctl
		free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	fi
	if [ "$free" -lt "$2" ]; then
		rxd_huge_teardown
		echo "SKIP: only $free free 2 MB hugepages, $2 needed"
		exit 77
	fi
}

rxd_huge_teardown() {
	[ -n "$rxd_huge_mnt" ] && umount "$rxd_huge_mnt" 2>/dev/null
	[ -n "$rxd_huge_saved" ] && echo "$rxd_huge_saved" >$rxd_huge_sysctl
	rxd_huge_mnt='' rxd_huge_saved=''
}
