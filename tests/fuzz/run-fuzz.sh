#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/fuzz/run-fuzz.sh [SECONDS]: build the lib/wire parser fuzzer with
# clang (-fsanitize=fuzzer,address,undefined; lib/wire's sources compiled
# directly, outside the gcc meson build) and run it for SECONDS (default 60)
# from a seed corpus cut out of tests/vectors and of gen-frames' output.
#
#   RXD_FUZZ_DIR   work directory (default: <source>/build-fuzz)
#   CLANG          compiler (default: clang)
#   FUZZ_ARGS      extra libFuzzer arguments (e.g. -jobs=2 -workers=2)
#
# Exit 0: no crash; 77 (meson SKIP): no clang/libFuzzer; else the failure.
set -u
secs=${1:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${RXD_FUZZ_DIR:-$root/build-fuzz}
cc=${CLANG:-clang}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "SKIP: $cc not found; the parser was not fuzzed"
	exit 77
fi
mkdir -p "$out/corpus" || exit 1
probe=$out/probe.c
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);
int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)
{ (void)d; (void)n; return 0; }' > "$probe"
if ! "$cc" -fsanitize=fuzzer "$probe" -o "$out/probe" 2>/dev/null; then
	echo "SKIP: $cc cannot link libFuzzer (libclang-rt-dev missing?)"
	exit 77
fi

set -e
cflags="-std=gnu11 -g -O1 -D_GNU_SOURCE -Wall -Wextra -Werror
	-I$root/lib/wire -I$root/lib -I$root/include -I$root/tests/lib"
wire_src=$(ls "$root"/lib/wire/*.c)
# shellcheck disable=SC2086 # word splitting of the flag lists is wanted
"$cc" $cflags -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all \
	"$root/tests/fuzz/fuzz_parse.c" "$root/tests/lib/rxd_test_pkt.c" \
	$wire_src -o "$out/fuzz_parse"
echo "run-fuzz: built $out/fuzz_parse"

# Seeds: every frame of the golden captures and one per opcode/shape.
rm -rf "$out/seeds"
mkdir -p "$out/seeds"
# shellcheck disable=SC2086
if "$cc" $cflags "$root/tests/fuzz/pcap_split.c" \
	"$root/tests/lib/rxd_test_pcap.c" -lpcap -o "$out/pcap-split" &&
   "$cc" $cflags "$root/tests/wire/gen_frames.c" \
	"$root/tests/lib/rxd_test_pcap.c" "$root/tests/lib/rxd_test_pkt.c" \
	$wire_src -lpcap -o "$out/gen-frames"; then
	"$out/gen-frames" "$out/gen-frames.pcap" >/dev/null
	"$out/pcap-split" "$out/seeds" "$root"/tests/vectors/rxe/*.pcap \
		"$root"/tests/vectors/synthetic/*.pcap* "$out/gen-frames.pcap"
else
	echo "run-fuzz: no libpcap, starting without seeds"
fi

set +e
log=$out/fuzz.log
echo "run-fuzz: $out/fuzz_parse -max_total_time=$secs -max_len=9100" \
	"$out/corpus $out/seeds"
# shellcheck disable=SC2086
"$out/fuzz_parse" -max_total_time="$secs" -max_len=9100 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$out/" ${FUZZ_ARGS:-} \
	"$out/corpus" "$out/seeds" >"$log" 2>&1
rc=$?
grep -E '^(fuzz_parse: |stat::|Done )' "$log"
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
if [ $rc -ne 0 ]; then
	tail -n 40 "$log"
	echo "FAIL: fuzz_parse exit status $rc (crash inputs: $out/crash-*)"
	exit 1
fi
echo "run-fuzz: ${execs:-?} executions in ${secs} s, no crash"
