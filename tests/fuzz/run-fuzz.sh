#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/fuzz/run-fuzz.sh [SECONDS [TARGET ...]]: build libFuzzer targets
# with clang (-fsanitize=fuzzer,address,undefined; the sources they test
# compiled directly, outside the gcc meson build) and run each for SECONDS
# (default 60; 0 = no time limit, e.g. with FUZZ_ARGS=-runs=N), one after
# the other, from a seed corpus.  Targets (default: all three):
#   parse    lib/wire's frame parser (fuzz_parse.c); seeds: every frame of
#            tests/vectors and of gen-frames' output
#   cm-mad   lib/cm's CM MAD codec (fuzz_cm_mad.c); seeds: the MADs of the
#            Soft-RoCE captures and gen-mad-seeds' output
#   conf     lib/config: INI files, rxd_conf_set, RXD_* variables, options
#            (fuzz_conf.c, linked to DPDK's rte_cfgfile); seeds: config/*.ini,
#            the strings of tests/config and one input per entry point
#
#   RXD_FUZZ_DIR   work directory (default: <source>/build-fuzz); target T
#                  works in RXD_FUZZ_DIR/T (corpus/, seeds/, fuzz.log,
#                  crash-* on failure)
#   CLANG          compiler (default: clang)
#   FUZZ_ARGS      extra libFuzzer arguments (e.g. -runs=10000000)
#
# Prints "run-fuzz: TARGET: N executions in S s, no crash" per target.
# Exit 0: no crash; 77 (meson SKIP): nothing could be fuzzed (no clang or
# libFuzzer); else a failure.
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-parse cm-mad conf}
root=$(cd "$(dirname "$0")/../.." && pwd)
top=${RXD_FUZZ_DIR:-$root/build-fuzz}
cc=${CLANG:-clang}
fuzz_flags="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
cflags="-std=gnu11 -g -O1 -D_GNU_SOURCE -Wall -Wextra -Werror
	-I$root/lib/wire -I$root/lib/cm -I$root/lib -I$root/include
	-I$root/tests/lib"
wire_src=$(ls "$root"/lib/wire/*.c)

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "SKIP: $cc not found; nothing was fuzzed"
	exit 77
fi
mkdir -p "$top" || exit 1
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);
int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)
{ (void)d; (void)n; return 0; }' > "$top/probe.c"
if ! "$cc" -fsanitize=fuzzer "$top/probe.c" -o "$top/probe" 2>/dev/null; then
	echo "SKIP: $cc cannot link libFuzzer (libclang-rt-dev missing?)"
	exit 77
fi

# pcap-split, for the seeds of parse and cm-mad; 1 without libpcap.
build_pcap_split() {
	# shellcheck disable=SC2086 # word splitting of the flag lists is wanted
	"$cc" $cflags "$root/tests/fuzz/pcap_split.c" \
		"$root/tests/lib/rxd_test_pcap.c" $wire_src -lpcap \
		-o "$out/pcap-split" 2>/dev/null
}

build_parse() {
	# shellcheck disable=SC2086
	"$cc" $cflags $fuzz_flags "$root/tests/fuzz/fuzz_parse.c" \
		"$root/tests/lib/rxd_test_pkt.c" $wire_src -o "$out/fuzz"
}

seed_parse() {
	# shellcheck disable=SC2086
	if build_pcap_split &&
	   "$cc" $cflags "$root/tests/wire/gen_frames.c" \
		"$root/tests/lib/rxd_test_pcap.c" \
		"$root/tests/lib/rxd_test_pkt.c" $wire_src -lpcap \
		-o "$out/gen-frames"; then
		"$out/gen-frames" "$out/gen-frames.pcap" >/dev/null
		"$out/pcap-split" "$out/seeds" "$root"/tests/vectors/rxe/*.pcap \
			"$root"/tests/vectors/synthetic/*.pcap* \
			"$out/gen-frames.pcap"
	else
		echo "run-fuzz: parse: no libpcap, starting without seeds"
	fi
}

build_cm_mad() {
	# shellcheck disable=SC2086
	"$cc" $cflags $fuzz_flags "$root/tests/fuzz/fuzz_cm_mad.c" \
		"$root/lib/cm/rxd_cm_mad.c" -o "$out/fuzz"
}

seed_cm_mad() {
	# shellcheck disable=SC2086
	"$cc" $cflags "$root/tests/fuzz/gen_mad_seeds.c" \
		"$root/lib/cm/rxd_cm_mad.c" -o "$out/gen-mad-seeds" &&
		"$out/gen-mad-seeds" "$out/seeds" || return 1
	if build_pcap_split; then
		"$out/pcap-split" --mad "$out/seeds" \
			"$root"/tests/vectors/rxe/cm_*.pcap
	else
		echo "run-fuzz: cm-mad: no libpcap, no seeds from the captures"
	fi
}

build_conf() {
	if ! dpdk=$(pkg-config --cflags --libs libdpdk 2>/dev/null); then
		echo "SKIP: conf: no DPDK (pkg-config libdpdk) for rte_cfgfile"
		return 77
	fi
	# shellcheck disable=SC2086
	"$cc" $cflags -I"$root/lib/config" $fuzz_flags \
		"$root/tests/fuzz/fuzz_conf.c" "$root"/lib/config/*.c \
		$dpdk -o "$out/fuzz"
}

# One seed: the mode byte of fuzz_conf (octal), then NUL-separated pieces.
conf_seed() {
	name=$1 mode=$2
	shift 2
	{
		printf '%b' "\\0$mode"
		sep=
		for piece in "$@"; do
			printf '%b%s' "$sep" "$piece"
			sep='\0'
		done
	} > "$out/seeds/$name"
}

seed_conf() {
	for f in "$root"/config/*.ini; do
		{ printf '\000'; cat "$f"; } > "$out/seeds/ini-${f##*/}"
	done
	# The string literals of tests/config, each run of lines one file.
	n=0
	for f in "$root"/tests/config/test_*.c; do
		awk -v dir="$out/seeds" -v base="${f##*/}" '
		function flush() {
			if (text != "") {
				n++
				printf "%s", text > (dir "/raw-" base "-" n)
				close(dir "/raw-" base "-" n)
			}
			text = ""
		}
		/"/ {
			s = $0
			while (match(s, /"([^"\\]|\\.)*"/)) {
				text = text substr(s, RSTART + 1, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH)
			}
			next
		}
		{ flush() }
		END { flush() }' "$f"
	done
	for f in "$out"/seeds/raw-*; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		{ printf '\000'; printf '%b' "$(cat "$f")"; } \
			> "$out/seeds/test-$n"
		rm -f "$f"
	done
	conf_seed set-mtu 001 port0 mtu 9000
	conf_seed set-addr 001 port1 addr "10.0.0.1/24, fd00::1/64"
	conf_seed set-capture 001 port2 capture '/tmp/a\;b.pcapng'
	conf_seed set-fault 001 port3 fault.rx.drop 5%
	conf_seed set-lcores 001 engine lcores 1-3,5
	conf_seed env 002 10.0.0.1/24 1500 debug
	conf_seed env-file 002 fd00::1/64 9000 7 \
		"$(printf '[port0]\nvlan = 5\n[log]\nlevel = err\n')"
	conf_seed args 003 --ip 1:10.0.0.2/24 --mtu 1:9000 --lcores 1-2 \
		--idle pause --log 7 --set port0.fault.tx.dup=1%
	conf_seed args-config 003 --config x --mtu=1400 \
		"$(printf '[engine]\nidle = spin\n')"
	echo "run-fuzz: conf: $(find "$out/seeds" -type f | wc -l) seeds" \
		"in $out/seeds"
}

max_len() {
	case $1 in
	parse) echo 9100 ;;
	cm-mad) echo 512 ;;
	conf) echo 4096 ;;
	esac
}

build() {
	case $1 in
	parse) build_parse ;;
	cm-mad) build_cm_mad ;;
	conf) build_conf ;;
	esac
}

seed() {
	case $1 in
	parse) seed_parse ;;
	cm-mad) seed_cm_mad ;;
	conf) seed_conf ;;
	esac
}

# Build, seed and run one target; 0, 77 (cannot build here) or 1.
fuzz_one() {
	t=$1
	out=$top/$t
	rm -rf "$out/seeds"
	mkdir -p "$out/corpus" "$out/seeds" || return 1
	build "$t"
	rc=$?
	[ $rc -eq 77 ] && return 77
	if [ $rc -ne 0 ]; then
		echo "FAIL: $t: build failed"
		return 1
	fi
	echo "run-fuzz: $t: built $out/fuzz"
	if ! seed "$t"; then
		echo "FAIL: $t: seeds failed"
		return 1
	fi
	log=$out/fuzz.log
	echo "run-fuzz: $t: $out/fuzz -max_total_time=$secs" \
		"-max_len=$(max_len "$t") ${FUZZ_ARGS:-} $out/corpus $out/seeds"
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$out/fuzz" -max_total_time="$secs" -max_len="$(max_len "$t")" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/" ${FUZZ_ARGS:-} \
		"$out/corpus" "$out/seeds" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	grep -E '^(fuzz_[a-z_]+: |stat::number_of_executed_units|Done )' "$log"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" |
		tail -n 1)
	if [ $rc -ne 0 ]; then
		tail -n 40 "$log"
		echo "FAIL: $t: exit status $rc (crash inputs: $out/crash-*)"
		return 1
	fi
	echo "run-fuzz: $t: ${execs:-?} executions in $took s, no crash"
	return 0
}

status=77
for t in $targets; do
	case $t in
	parse|cm-mad|conf) ;;
	*) echo "FAIL: unknown target '$t' (parse, cm-mad, conf)"; exit 1 ;;
	esac
	fuzz_one "$t"
	rc=$?
	if [ $rc -eq 1 ]; then
		status=1
	elif [ $rc -eq 0 ] && [ $status -eq 77 ]; then
		status=0
	fi
done
exit $status
