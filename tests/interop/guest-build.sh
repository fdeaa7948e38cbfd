#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# guest-build.sh - build (once) the Soft-RoCE guest used by the rxd interop
# harness: Debian $RXD_INTEROP_SUITE (minbase) with the stock linux-image-amd64
# kernel, rdma-core, ibverbs-utils/providers, perftest, rdmacm-utils, ...
#
# Usage: guest-build.sh [--force] [--no-host-deps]
#   --force         throw the cached root tree and image away and rebuild
#   --no-host-deps  do not apt-get install missing host tools
#
# Output, under $RXD_INTEROP_DIR (default /var/tmp/rxd-interop):
#   rootfs/       the debootstrapped tree (kept as a cache for image rebuilds)
#   guest.ext4    raw ext4 root image (guests never write to it: each start
#                 puts a qcow2 overlay on top)
#   vmlinuz, initrd.img, kernel-version
#   logs/         debootstrap and apt logs
# Each stage records a key of its inputs; a stage whose key is unchanged is
# skipped, so a second run takes well under a second.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FORCE=0 HOST_DEPS=1
for a in "$@"; do
	case "$a" in
	--force) FORCE=1 ;;
	--no-host-deps) HOST_DEPS=0 ;;
	-h | --help)
		sed -n '4,21p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) rxi_die "unknown option: $a (see --help)" ;;
	esac
done
rxi_need_root

T_ALL=$(rxi_now)
mkdir -p "$RXD_INTEROP_DIR/logs"
LOGS=$RXD_INTEROP_DIR/logs
# One build at a time per cache directory.
exec 8>"$RXD_INTEROP_DIR/.build.lock"
flock 8

# ---- host tools -----------------------------------------------------------------
if [ "$HOST_DEPS" = 1 ]; then
	T=$(rxi_now)
	missing=()
	for pair in qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils \
		debootstrap:debootstrap mkfs.ext4:e2fsprogs ip:iproute2 \
		ethtool:ethtool tcpdump:tcpdump ping:iputils-ping flock:util-linux \
		sha256sum:coreutils; do
		command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		rxi_log "installing host packages: ${missing[*]}"
		{
			apt-get update &&
				DEBIAN_FRONTEND=noninteractive apt-get install -y \
					--no-install-recommends "${missing[@]}"
		} >"$LOGS/host-packages.log" 2>&1 ||
			{
				tail -n 20 "$LOGS/host-packages.log" >&2
				rxi_die "apt-get install ${missing[*]} failed"
			}
		rxi_log "host packages: $(rxi_since "$T") s"
	fi
fi

rxi_detect_mirrors
R=$RXD_INTEROP_ROOTFS
key_of() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }
stamp_ok() { [ "$FORCE" = 0 ] && [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }

# ---- stage 1: root tree ----------------------------------------------------------
# Bump the trailing "v1" when the way the tree is made changes.
ROOTFS_KEY=$(key_of "$RXD_INTEROP_SUITE" "$RXD_INTEROP_MIRROR" \
	"$RXD_INTEROP_SECURITY_MIRROR" "$RXD_INTEROP_GUEST_PACKAGES" \
	"$RXD_INTEROP_GUEST_EXTRA_PACKAGES" rootfs-v1)
# the backports kernel changes the key only when asked for, so that the
# default cache (and every branch's key of it) stays valid
if [ "$RXD_INTEROP_BACKPORTS_KERNEL" = 1 ]; then
	ROOTFS_KEY=$(key_of "$ROOTFS_KEY" backports-kernel)
fi

chroot_mounted=()
chroot_umount() {
	local i
	for ((i = ${#chroot_mounted[@]} - 1; i >= 0; i--)); do
		umount "${chroot_mounted[i]}" 2>/dev/null ||
			umount -l "${chroot_mounted[i]}" 2>/dev/null || true
	done
	chroot_mounted=()
}
chroot_mount() { # SRC DIR TYPE|--bind
	if [ "$3" = --bind ]; then mount --bind "$1" "$2"; else mount -t "$3" "$1" "$2"; fi
	chroot_mounted+=("$2")
}
trap chroot_umount EXIT

if stamp_ok "$RXD_INTEROP_DIR/.rootfs.key" "$ROOTFS_KEY" && [ -d "$R/boot" ]; then
	rxi_log "root tree: cached ($R)"
else
	T=$(rxi_now)
	rm -f "$RXD_INTEROP_DIR/.rootfs.key" "$RXD_INTEROP_DIR/.image.key"
	if [ -d "$R" ]; then
		# never rm -rf through a live bind mount of /dev
		for m in "$R/dev/pts" "$R/dev" "$R/proc" "$R/sys"; do
			! mountpoint -q "$m" || umount -l "$m"
		done
		rm -rf "$R"
	fi
	rxi_log "debootstrap $RXD_INTEROP_SUITE (minbase) from $RXD_INTEROP_MIRROR"
	debootstrap --variant=minbase "$RXD_INTEROP_SUITE" "$R" "$RXD_INTEROP_MIRROR" \
		>"$LOGS/debootstrap.log" 2>&1 ||
		{
			tail -n 20 "$LOGS/debootstrap.log" >&2
			rxi_die "debootstrap failed (log: $LOGS/debootstrap.log)"
		}
	rxi_log "debootstrap: $(rxi_since "$T") s"

	T=$(rxi_now)
	{
		echo "deb $RXD_INTEROP_MIRROR $RXD_INTEROP_SUITE main"
		echo "deb $RXD_INTEROP_MIRROR $RXD_INTEROP_SUITE-updates main"
		if [ "$RXD_INTEROP_SECURITY_MIRROR" != none ]; then
			echo "deb $RXD_INTEROP_SECURITY_MIRROR $RXD_INTEROP_SUITE-security main"
		fi
		if [ "$RXD_INTEROP_BACKPORTS_KERNEL" = 1 ]; then
			echo "deb $RXD_INTEROP_MIRROR $RXD_INTEROP_SUITE-backports main"
		fi
	} >"$R/etc/apt/sources.list"
	cat >"$R/etc/apt/apt.conf.d/80rxd-interop" <<-'CONF'
		APT::Install-Recommends "false";
		APT::Install-Suggests "false";
	CONF
	cat >"$R/etc/dpkg/dpkg.cfg.d/80rxd-interop" <<-'CONF'
		path-exclude=/usr/share/doc/*
		path-exclude=/usr/share/man/*
		path-exclude=/usr/share/info/*
		path-exclude=/usr/share/locale/*
		path-include=/usr/share/locale/locale.alias
	CONF
	# The guest boots from a virtio disk with no udev: an initramfs that only
	# knows how to reach an ext4 root on virtio-blk is all it needs.
	mkdir -p "$R/etc/initramfs-tools/conf.d"
	echo MODULES=list >"$R/etc/initramfs-tools/conf.d/80rxd-interop.conf"
	printf '%s\n' virtio_pci virtio_blk ext4 >"$R/etc/initramfs-tools/modules"
	# Keep package scripts from starting daemons in the chroot.
	printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d"
	chmod 0755 "$R/usr/sbin/policy-rc.d"

	chroot_mount proc "$R/proc" proc
	chroot_mount sysfs "$R/sys" sysfs
	chroot_mount /dev "$R/dev" --bind
	chroot_mount /dev/pts "$R/dev/pts" --bind
	# shellcheck disable=SC2086 # split the lists into words on purpose
	pkgs=$(printf '%s ' $RXD_INTEROP_GUEST_PACKAGES $RXD_INTEROP_GUEST_EXTRA_PACKAGES)
	bpo=true
	if [ "$RXD_INTEROP_BACKPORTS_KERNEL" = 1 ]; then
		bpo="apt-get -y install -t $RXD_INTEROP_SUITE-backports linux-image-amd64"
	fi
	chroot "$R" /usr/bin/env -i HOME=/root DEBIAN_FRONTEND=noninteractive \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		sh -ec "apt-get update; apt-get -y dist-upgrade;
			apt-get -y install $pkgs; $bpo; apt-get clean" \
		>"$LOGS/guest-packages.log" 2>&1 ||
		{
			tail -n 30 "$LOGS/guest-packages.log" >&2
			rxi_die "guest package install failed (log: $LOGS/guest-packages.log)"
		}
	chroot_umount
	rm -f "$R/usr/sbin/policy-rc.d"
	rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/*.bin
	echo "$ROOTFS_KEY" >"$RXD_INTEROP_DIR/.rootfs.key"
	rxi_log "guest packages: $(rxi_since "$T") s"
fi

# ---- stage 2: boot files and ext4 image -------------------------------------------
kver=
for k in "$R"/boot/vmlinuz-*; do
	[ -e "$k" ] || continue
	v=${k##*/vmlinuz-}
	if [ -z "$kver" ] || [ "$(printf '%s\n%s\n' "$kver" "$v" | sort -V | tail -n 1)" = "$v" ]; then
		kver=$v
	fi
done
if [ -z "$kver" ] || [ ! -e "$R/boot/initrd.img-$kver" ]; then
	rxi_die "no kernel/initrd in $R/boot (try --force)"
fi

INIT_SRC=$RXD_INTEROP_HERE/guest/init
IMAGE_KEY=$(key_of "$ROOTFS_KEY" "$kver" "$RXD_INTEROP_IMAGE_SIZE" \
	"$(sha256sum <"$INIT_SRC")" image-v1)
if stamp_ok "$RXD_INTEROP_DIR/.image.key" "$IMAGE_KEY" && [ -s "$RXD_INTEROP_IMAGE" ] &&
	[ -s "$RXD_INTEROP_KERNEL" ] && [ -s "$RXD_INTEROP_INITRD" ]; then
	rxi_log "image: cached ($RXD_INTEROP_IMAGE)"
else
	T=$(rxi_now)
	rm -f "$RXD_INTEROP_DIR/.image.key"
	install -D -m 0755 "$INIT_SRC" "$R/usr/local/sbin/rxd-guest-init"
	echo rxd-peer >"$R/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\trxd-peer\n' >"$R/etc/hosts"
	: >"$R/etc/fstab"
	mkdir -p "$R/mnt/rxd"
	install -m 0644 "$R/boot/vmlinuz-$kver" "$RXD_INTEROP_KERNEL.tmp"
	install -m 0644 "$R/boot/initrd.img-$kver" "$RXD_INTEROP_INITRD.tmp"
	mv "$RXD_INTEROP_KERNEL.tmp" "$RXD_INTEROP_KERNEL"
	mv "$RXD_INTEROP_INITRD.tmp" "$RXD_INTEROP_INITRD"
	echo "$kver" >"$RXD_INTEROP_DIR/kernel-version"
	rm -f "$RXD_INTEROP_IMAGE.tmp"
	truncate -s "$RXD_INTEROP_IMAGE_SIZE" "$RXD_INTEROP_IMAGE.tmp"
	mkfs.ext4 -q -F -L rxdpeer -d "$R" "$RXD_INTEROP_IMAGE.tmp" >"$LOGS/mkfs.log" 2>&1 ||
		{
			cat "$LOGS/mkfs.log" >&2
			rxi_die "mkfs.ext4 -d failed"
		}
	mv "$RXD_INTEROP_IMAGE.tmp" "$RXD_INTEROP_IMAGE"
	echo "$IMAGE_KEY" >"$RXD_INTEROP_DIR/.image.key"
	rxi_log "image: $(rxi_since "$T") s"
fi

rxi_log "guest ready: kernel $kver, image $RXD_INTEROP_IMAGE ($(du -h "$RXD_INTEROP_IMAGE" | cut -f1) used)"
echo "BUILD_SECONDS=$(rxi_since "$T_ALL")"
