#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# make deb, then the packages as a Debian user gets them: scripts/make-deb.sh
# builds rxd, librxd0 and librxd-dev from a copy of the tree (lintian must
# report no error), dpkg -i installs them, installed-checks.sh runs the
# checks of the install test against /usr (the user guide's examples with
# pkg-config, ibv_devinfo and ibv_rc_pingpong -c through rxd-run), and the
# packages are purged again, leaving the machine as it was.
# Usage: deb.sh SOURCE_DIR SANITIZE     (exit 0 ok, 1 failed, 77 skipped)
set -u
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
pkgs=(rxd librxd-dev librxd0)
if [ "$2" != none ]; then
	echo "SKIP: this build is sanitized ($2); the packages are built and checked in the plain build's suite"
	exit 77
fi
[ "$(id -u)" = 0 ] || { echo "SKIP: dpkg -i needs root"; exit 77; }
for tool in dpkg-buildpackage dh lintian c++ ibv_devinfo ibv_rc_pingpong; do
	command -v "$tool" >/dev/null ||
		{ echo "SKIP: $tool not installed (scripts/install-deps.sh installs it)"; exit 77; }
done
for p in "${pkgs[@]}"; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
		echo "SKIP: $p is already installed on this machine; the test leaves it alone"
		exit 77
	fi
done

scratch=$(mktemp -d /tmp/rxd-deb.XXXXXX)
installed=no
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	if [ "$installed" = yes ]; then
		dpkg --purge "${pkgs[@]}" >"$scratch/purge.log" 2>&1 ||
			{ echo "FAIL: dpkg --purge"; cat "$scratch/purge.log"; }
	fi
	rm -rf "$scratch"
}
trap cleanup EXIT
fail=0

echo "make deb into $scratch (about a minute)"
if "$src/scripts/make-deb.sh" "$scratch/out" >"$scratch/make-deb.log" 2>&1; then
	echo "PASS: make deb; lintian reports no error"
else
	cat "$scratch/make-deb.log"
	echo "FAIL: make deb"
	exit 1
fi
debs=()
for p in "${pkgs[@]}"; do
	debs+=("$(ls "$scratch/out/${p}_"*.deb)")
done
installed=yes
if ! dpkg -i "${debs[@]}" >"$scratch/dpkg.log" 2>&1; then
	cat "$scratch/dpkg.log"
	echo "FAIL: dpkg -i"
	exit 1
fi
echo "PASS: dpkg -i ${debs[*]##*/}"

# The user guide's examples, cut as install.sh does.
mkdir "$scratch/examples"
"$here/user-guide-examples.sh" "$src/doc/user-guide.md" "$scratch/examples" || exit 1
libdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# a network namespace of its own (lo only): the programs' TCP side
# channels cannot leave the machine
unshare --net sh -c 'ip link set lo up && exec "$@"' deb \
	"$here/installed-checks.sh" "$scratch/examples" /usr "$libdir" || fail=1

dpkg --purge "${pkgs[@]}" >"$scratch/purge.log" 2>&1 || { cat "$scratch/purge.log"; fail=1; }
installed=no
left=$(dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>/dev/null | grep -c ' installed$')
if [ "$left" = 0 ] && [ ! -e /usr/bin/rxd-run ] && [ ! -e "$libdir/rxd" ]; then
	echo "PASS: dpkg --purge leaves no rxd package or file"
else
	echo "FAIL: rxd left behind after dpkg --purge"
	fail=1
fi
exit $fail
