#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# rxd-testpmd's batch mode refuses bad input: an unknown command or a
# failing one stops the batch with FILE:LINE (or --cmd) and a non-zero
# exit, the commands before it ran and those after it did not.  One
# process on a net_ring port.  Usage: testpmd-batch.sh RXD_TESTPMD
set -u
prog=$1
dir=$(mktemp -d /tmp/rxd-testpmd-batch.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail=0

ok() { echo "PASS: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# run NAME ARGS...: rxd-testpmd with ARGS after rxd's options
run() {
	local name=$1
	shift
	"$prog" -l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdtpb$$ \
		--vdev=net_ring0 --log-level=lib.eal:error -- \
		--ip 10.0.0.1/24 "$@" >"$dir/$name.out" 2>"$dir/$name.err"
	echo $? >"$dir/$name.rc"
}

# check NAME RC REGEX WHAT: exit status and a line of stdout+stderr
check() {
	local rc
	rc=$(cat "$dir/$1.rc")
	if [ "$rc" = "$2" ] && cat "$dir/$1.out" "$dir/$1.err" | grep -Eq "$3"; then
		ok "$4"
	else
		bad "$4 (exit $rc, expected $2; /$3/ $(grep -Ec "$3" "$dir/$1.out" "$dir/$1.err" | tr '\n' ' '))"
		sed 's/^/    | /' "$dir/$1.out" "$dir/$1.err"
	fi
}

printf 'show gids\n# a comment\nshow portz\nshow mem\n' >"$dir/unknown.cmds"
run unknown --cmdline-file "$dir/unknown.cmds"
check unknown 1 "^$dir/unknown.cmds:3: 'show portz': bad arguments" "bad arguments name FILE:LINE"
grep -q '^port 0 gid 1 ::ffff:10.0.0.1' "$dir/unknown.out" && ok "commands before it ran" || bad "line 1 did not run"
grep -q 'QP memory' "$dir/unknown.out" && bad "the batch went on after the error" || ok "commands after it did not run"

printf 'show ports\nset fault 0 rx drop 150%%\nshow gids\n' >"$dir/value.cmds"
run value --cmdline-file "$dir/value.cmds"
check value 1 "^$dir/value.cmds:2: 'set fault 0 rx drop 150%' failed" "failing command names FILE:LINE"
check value 1 "out of range" "and says why"

# show ports names the data path's ICRC and copy, here with AVX-512 masked
RXD_CPU_FEATURES_OFF=avx512f run dpath --cmd "show ports"
check dpath 0 "^data path: ICRC (VPCLMULQDQ-256|PCLMULQDQ|table)[^,]*, copy (AVX2|SSE2|libc)[^;]*; CPU features" "show ports names the ICRC and copy in use"
if grep -q avx512f /proc/cpuinfo; then
	check dpath 0 "\\(masked: avx512f\\)" "and the masked feature"
fi

printf 'capture start 7 %s/x.pcapng\n' "$dir" >"$dir/port.cmds"
run port --cmdline-file "$dir/port.cmds"
check port 1 "port 7 does not exist" "bad port refused"

printf 'start traffic send 64 4 10\n' >"$dir/noqp.cmds"
run noqp --cmdline-file "$dir/noqp.cmds"
check noqp 1 "start traffic: no QPs" "traffic without a QP refused"

run cmd --cmd "show gids" --cmd "bogus"
check cmd 1 "^--cmd: 'bogus': unknown command" "bad --cmd"

run missing --cmdline-file "$dir/none.cmds"
check missing 1 "none.cmds: cannot open" "missing file"

run quit --cmd "show gids" --cmd quit --cmd "show mem"
check quit 0 "^port 0 gid 0 fe80::" "one-shot commands"
grep -q 'QP memory' "$dir/quit.out" && bad "ran a command after quit" || ok "quit ends the batch"

run option --bogus-option
check option 2 "unknown option '--bogus-option'" "unknown option"

exit $fail
