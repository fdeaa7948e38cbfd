#!/bin/sh
# Install the Debian 12 packages rxd needs, only those that are missing.
# Runs apt-get non-interactively; needs root when something is missing.
set -eu

PKGS="build-essential pkg-config meson ninja-build clang
dpdk dpdk-dev libdpdk-dev libnuma-dev libcriterion-dev libpcap-dev
libibverbs-dev librdmacm-dev ibverbs-utils rdmacm-utils perftest
tshark python3 python3-scapy python3-pyverbs iproute2 iputils-ping arping fio iperf3
qperf ucx-utils libucx0 libfabric-bin libfabric1 openmpi-bin libopenmpi-dev
debhelper lintian"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "rxd: installing missing packages:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "rxd: run as root (or install them yourself): apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
