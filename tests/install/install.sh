#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rxd as a user installs it: configure a copy of the source tree in a
# scratch directory, build it, `meson install --destdir STAGE`, then delete
# the copy and its build, so nothing can reach back into them.  Checks:
# (c) no installed file points into the source, the copy or a build tree
# (RPATH/RUNPATH, ldd, text files such as librxd.pc and rxd-run), the
# compat libraries are only in the private $libdir/rxd; then, in a private
# mount namespace where STAGE/PREFIX is bind-mounted on PREFIX (so the
# installed paths are the real ones), installed-checks.sh: (a) the user
# guide's examples against `pkg-config --cflags --libs librxd`, (b)
# ibv_devinfo and ibv_rc_pingpong -c through rxd-run.
# Usage: install.sh SOURCE_DIR BUILD_DIR SANITIZE   (0 ok, 1 failed, 77 skip)
set -u
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
prefix=/usr/local
if [ "$3" != none ]; then
	echo "SKIP: this build is sanitized ($3); the install test builds its own plain copy and runs in the plain build's suite"
	exit 77
fi
for tool in unshare mount pkg-config cc c++ readelf ldd ibv_devinfo ibv_rc_pingpong; do
	command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
unshare --mount true 2>/dev/null || { echo "SKIP: cannot create a mount namespace (needs root)"; exit 77; }

scratch=$(mktemp -d /tmp/rxd-install.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
stage=$scratch/stage
fail=0

# A copy of the sources without build directories (those hold build.ninja).
mkdir "$scratch/src" "$scratch/examples"
tar -C "$src" --exclude=.git --exclude=./build-deb --exclude-tag-all=build.ninja -cf - . |
	tar -C "$scratch/src" -xf - || exit 1
"$here/user-guide-examples.sh" "$src/doc/user-guide.md" "$scratch/examples" ||
	exit 1

echo "building a copy in $scratch (about a minute)"
if ! { meson setup "$scratch/build" "$scratch/src" --prefix=$prefix \
		-Dtests=false -Dwerror=true &&
	ninja -C "$scratch/build" -j2 &&
	meson install -C "$scratch/build" --destdir "$stage" --quiet; } \
		>"$scratch/build.log" 2>&1; then
	tail -30 "$scratch/build.log"
	echo "FAIL: build and meson install"
	exit 1
fi
rm -rf "$scratch/src" "$scratch/build"
echo "PASS: meson install --destdir, copy and build deleted"

# (c) nothing installed points back.  ELF files: no RPATH/RUNPATH but the
# compat librdmacm's $ORIGIN, every library resolved (in the bind mount
# below); text files: no tree path.
pc=$(find "$stage" -name librxd.pc)
libdir=${pc%/pkgconfig/librxd.pc}
libdir=${libdir#"$stage"}
while IFS= read -r f; do
	rel=${f#"$stage"}
	if readelf -h "$f" >/dev/null 2>&1; then
		if readelf -d "$f" | grep -E '\((RPATH|RUNPATH)\)' |
			grep -vqF "Library runpath: [\$ORIGIN]"; then
			echo "FAIL: $rel has $(readelf -d "$f" | grep -E 'RPATH|RUNPATH')"
			fail=1
		fi
	elif grep -qE "$src|$build|$scratch" "$f"; then
		echo "FAIL: $rel names a tree: $(grep -hoE "($src|$build|$scratch)[^ ]*" "$f" | head -1)"
		fail=1
	fi
done < <(find "$stage" -type f)
[ $fail = 0 ] && echo "PASS: no RPATH/RUNPATH but \$ORIGIN, no text file names a source or build tree"
for f in libibverbs.so.1 librdmacm.so.1; do
	found=$(find "$stage" -name "$f" -printf '/%P\n')
	if [ "$found" = "$libdir/rxd/$f" ]; then
		echo "PASS: $f only in $libdir/rxd"
	else
		echo "FAIL: $f installed as: $found"
		fail=1
	fi
done
if grep -q "^compat_dir='$libdir/rxd'$" "$stage$prefix/bin/rxd-run"; then
	echo "PASS: rxd-run looks in $libdir/rxd"
else
	echo "FAIL: rxd-run's compat_dir is not $libdir/rxd"
	fail=1
fi

# In a private mount namespace the staged prefix is the real one; in a
# network namespace of its own (lo only) the programs' TCP side channels
# cannot leave the machine.
# shellcheck disable=SC2016 # the inner shell expands its own arguments
unshare --mount --net --propagation private sh -c \
	'ip link set lo up && mount --bind "$1$2" "$2" &&
	 exec "$3/installed-checks.sh" "$4" "$2" "$5"' \
	install "$stage" "$prefix" "$here" "$scratch/examples" "$libdir" || fail=1
exit $fail
