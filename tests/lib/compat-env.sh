# SPDX-License-Identifier: BSD-3-Clause
# Sourced by tests that start unmodified verbs programs: point them at the
# build's compat libibverbs.so.1 and, when that library is built with ASan
# (make test SANITIZE=...), preload the ASan runtime the program lacks.
# Usage: . tests/lib/compat-env.sh BUILD_DIR ; then run the program.
rxd_compat=$1/compat
export LD_LIBRARY_PATH=$rxd_compat${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rxd_asan=$(ldd "$rxd_compat/libibverbs.so.1" 2>/dev/null |
	awk '/libasan/ { print $3 }')
if [ -n "$rxd_asan" ]; then
	export LD_PRELOAD=$rxd_asan
	export ASAN_OPTIONS=detect_leaks=0
fi
unset rxd_asan
