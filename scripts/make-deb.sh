#!/bin/sh
# make deb: build rxd's Debian packages (rxd, librxd0, librxd-dev) from
# debian/ in a copy of the tree under OUT (default build-deb), with the
# project's version (meson.build) as a native version, then run lintian,
# which must report no error.  The .deb files are left in OUT.
# Usage: make-deb.sh [OUT]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$top/build-deb}" && cd "${1:-$top/build-deb}" && pwd)
for tool in dpkg-buildpackage dh lintian; do
	command -v "$tool" >/dev/null || {
		echo "make-deb: $tool is missing (apt-get install debhelper lintian)" >&2
		exit 1
	}
done
version=$(sed -n "s/^[[:space:]]*version: '\([^']*\)',\$/\1/p" "$top/meson.build" | head -1)
[ -n "$version" ] || { echo "make-deb: no version in meson.build" >&2; exit 1; }

rm -rf "$out/rxd-$version" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir "$out/rxd-$version"
tar -C "$top" --exclude=.git --exclude-tag-all=build.ninja \
	--exclude=./build-deb -cf - . | tar -C "$out/rxd-$version" -xf -
cat >"$out/rxd-$version/debian/changelog" <<CHANGELOG
rxd ($version) unstable; urgency=medium

  * rxd $version, packaged from the source tree (make deb).

 -- rxd developers <rxd@example.org>  $(date -R)
CHANGELOG
(cd "$out/rxd-$version" && dpkg-buildpackage -b -us -uc -j2) \
	>"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log"
	echo "make-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
rm -rf "$out/rxd-$version"
changes=$(ls "$out"/rxd_"$version"_*.changes)
rc=0
lintian --fail-on error "$changes" >"$out/lintian.log" 2>&1 || rc=$?
cat "$out/lintian.log"
[ $rc = 0 ] || { echo "make-deb: lintian reports errors" >&2; exit 1; }
ls "$out"/*.deb
