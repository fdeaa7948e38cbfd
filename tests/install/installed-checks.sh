#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Checks of an installed rxd, run where the installation is the only rxd
# reachable (no source or build tree): (a) the user guide's hello and pair
# examples compile with `pkg-config --cflags --libs librxd` alone, in C11
# and C++, -Wall -Wextra -Werror, and run; (b) Debian's ibv_devinfo and an
# ibv_rc_pingpong -c pair over memif run through the installed rxd-run
# (also with an installed sample --config); plus the installed rxd-demo,
# the ABI of librxd.so.0 against the headers and rxd-run's errors.  Used
# by install.sh (meson install) and deb.sh (the Debian packages).
# Usage: installed-checks.sh EXAMPLES_DIR PREFIX LIBDIR (hello.c and
# pair.c in EXAMPLES_DIR; the results are written there too).  Prints
# PASS/FAIL lines; exit 0 or 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$1
prefix=$2
libdir=$3
fail=0
eal=(-l 0-1 --no-pci --no-huge -m 512 --log-level=lib.eal:error
	--log-level=pmd.net.memif:error)

check() { # name command...
	local name=$1
	shift
	if "$@" >"$dir/out" 2>&1; then
		echo "PASS: $name"
	else
		echo "FAIL: $name"
		sed 's/^/    /' "$dir/out" | tail -20
		fail=1
	fi
}

expect() { # name pattern file
	if grep -qE -- "$2" "$3"; then
		echo "PASS: $1"
	else
		echo "FAIL: $1 (no '$2' in:)"
		sed 's/^/    /' "$3" | tail -20
		fail=1
	fi
}

# Every installed program and library finds its libraries (a prefix such
# as /usr/local is not in the loader's cache until ldconfig runs).
if ! ldconfig -p | grep -q "librxd\.so\.0 .*=> $libdir/"; then
	export LD_LIBRARY_PATH=$libdir
fi
unresolved=0
for f in "$prefix"/bin/rxd-* "$libdir"/librxd.so.0 "$libdir"/rxd/lib*.so.1; do
	readelf -h "$f" >/dev/null 2>&1 || continue
	# the compat librdmacm.so.1 needs its own libibverbs.so.1 (rxd-run)
	if LD_LIBRARY_PATH=$libdir/rxd:$libdir ldd "$f" 2>&1 |
		grep -qE "not found|version .* not found"; then
		echo "FAIL: ldd $f:"
		LD_LIBRARY_PATH=$libdir/rxd:$libdir ldd "$f" 2>&1
		unresolved=1
	fi
done
[ $unresolved = 0 ] && echo "PASS: ldd resolves the installed programs and libraries"
fail=$unresolved

# The ABI: librxd.so.0 exports as rxd_* exactly the functions the installed
# headers declare (comments and static inline ones left out), all in
# version node RXD_0.1.
inline=$(grep -h -A1 '^static inline' "$prefix"/include/rxd/*.h |
	grep -oE '^rxd_[a-z0-9_]+' | sort -u)
wanted=$(sed -e 's|/\*.*\*/||' -e '/^[[:space:]]*\*/d' -e '/^\/\*/d' \
	"$prefix"/include/rxd/*.h | grep -oE '\brxd_[a-z0-9_]+ *\(' |
	tr -d ' (' | sort -u | grep -vxF "${inline:-none}" |
	sed 's/$/@@RXD_0.1/')
exported=$(readelf --dyn-syms -W "$libdir/librxd.so.0" |
	awk '$7 != "UND" && $8 ~ /^rxd_/ { print $8 }' | sort -u)
if [ "$exported" = "$wanted" ]; then
	echo "PASS: librxd.so.0 exports exactly the $(echo "$wanted" | wc -l) rxd_* functions of the installed headers (RXD_0.1)"
else
	echo "FAIL: librxd.so.0's rxd_* symbols differ from the installed headers' functions:"
	diff <(echo "$wanted") <(echo "$exported") | sed 's/^/    /' | head -20
	fail=1
fi

# (a) the examples, built from the installed headers, library and .pc
pc=$(pkg-config --cflags --libs librxd) || { echo "FAIL: pkg-config librxd"; exit 1; }
read -ra flags <<<"$pc"
for ex in hello pair; do
	cp "$dir/$ex.c" "$dir/$ex.cc"
	check "$ex compiles as C11" cc -std=c11 -Wall -Wextra -Werror \
		-o "$dir/$ex-c" "$dir/$ex.c" "${flags[@]}"
	check "$ex compiles as C++" c++ -Wall -Wextra -Werror \
		-o "$dir/$ex-cxx" "$dir/$ex.cc" "${flags[@]}"
done
for lang in c cxx; do
	"$dir/hello-$lang" "${eal[@]}" --file-prefix rxdinst-h$$ --vdev=net_ring0 \
		-- --ip 10.0.0.1/24 >"$dir/hello.$lang.out" 2>&1
	expect "hello ($lang) runs" "^1 verbs device\(s\), first rxd0$" "$dir/hello.$lang.out"
	"$dir/pair-$lang" "${eal[@]}" --file-prefix rxdinst-p$$ >"$dir/pair.$lang.out" 2>&1
	expect "pair ($lang) pings" "^ports 2, ping 10.0.0.2 from rxd0: 3/3$" "$dir/pair.$lang.out"
done

# (b) unmodified programs through rxd-run
sock=$dir/memif.sock
memif() { # role
	echo "${eal[*]} --file-prefix rxdinst-$1$$ --vdev=net_memif0,role=$1,socket=$sock,socket-abstract=no"
}
rxd-run --eal "$(memif server)" --ip 10.0.0.1/24 --ip fd00::1/64 \
	--link-wait 0 -- ibv_devinfo -v >"$dir/devinfo" 2>&1
expect "rxd-run ibv_devinfo shows rxd0" "hca_id:.rxd0" "$dir/devinfo"
expect "rxd-run passes --ip" "GID\[  1\]:.*::ffff:10.0.0.1, RoCE v2" "$dir/devinfo"
rxd-run --config "$prefix/share/rxd/config/memif-server.ini" \
	--eal "$(memif server)" --link-wait 0 -- ibv_devinfo -v >"$dir/devinfo-conf" 2>&1
expect "rxd-run --config with the installed memif-server.ini" \
	"GID\[  1\]:.*::ffff:10.0.0.1, RoCE v2" "$dir/devinfo-conf"
printf '[engine]\neal_args = %s\n[port0]\naddr = 10.0.0.1/24\n' \
	"$(memif server)" >"$dir/host-a.ini"
env -u RXD_EAL_ARGS rxd-run --config "$dir/host-a.ini" --link-wait 0 \
	-- ibv_devinfo -v >"$dir/devinfo-eal" 2>&1
expect "rxd-run --config alone: EAL arguments from eal_args" \
	"GID\[  1\]:.*::ffff:10.0.0.1, RoCE v2" "$dir/devinfo-eal"
rm -f "$sock"
tcp=$((20000 + $$ % 20000))
timeout 60 rxd-run --eal "$(memif server)" --ip 10.0.0.1/24 \
	--link-wait 30000 -- ibv_rc_pingpong -d rxd0 -g 1 -n 100 -c -p $tcp >"$dir/pp.a" 2>&1 &
server=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
# The server listens only once its link is up, which is when the client's
# comes up too: the client is started again while it finds no server.
timeout 60 "$here/../lib/retry-connect.sh" rxd-run --eal "$(memif client)" \
	--ip 10.0.0.2/24 --link-wait 30000 -- ibv_rc_pingpong -d rxd0 -g 1 -n 100 -c -p $tcp 127.0.0.1 \
	>"$dir/pp.b" 2>&1
wait $server
expect "ibv_rc_pingpong -c server through rxd-run" "^100 iters in" "$dir/pp.a"
expect "ibv_rc_pingpong -c client through rxd-run" "^100 iters in" "$dir/pp.b"

# the installed demo finds the installed programs beside it
(cd "$dir" && timeout 180 rxd-demo) >"$dir/demo" 2>&1
expect "rxd-demo runs the installed programs" "^demo: OK$" "$dir/demo"

# rxd-run's errors
rxd-run --config "$dir/none.ini" -- ibv_devinfo >"$dir/e1" 2>&1
expect "rxd-run: missing config is an error" "--config .*none.ini: no such readable file" "$dir/e1"
rxd-run -- ls >"$dir/e2" 2>&1
expect "rxd-run: a program without libibverbs is refused" "is not dynamically linked against libibverbs" "$dir/e2"
rxd-run --help >"$dir/e3" 2>&1
expect "rxd-run --help" "^Usage: rxd-run" "$dir/e3"
exit $fail
