#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Bad input: a storm of CM REQs from a peer that never completes its
# handshakes.  rxd-testpmd listens with the CM ("cm listen"), accepting
# every request; cm-req-storm (a second rxd process over net_memif) sends
# it N REQs from its QP1 and never answers a REP.  rxd-testpmd's CM
# resends each REP (RXD_CM_TIMEOUT_MS=100 instead of 4.6 s, 15 resends),
# then gives the connection up (UNREACHABLE), and the listener destroys
# the id and its QP.  Afterwards ("wait cm N 120": every request seen and
# nothing but the listener left) the CM's counters must be back where
# they were before the storm: ids, events, memory held (mem_bytes); and
# every request must have been accepted and have failed, none
# established.  Takes about 10 s.
# Usage: cm-req-storm.sh CM_REQ_STORM RXD_TESTPMD
set -u
storm=$1
testpmd=$2
n=${RXD_REQ_STORM_N:-1000}
dir=$(mktemp -d /tmp/rxd-cm-req-storm.XXXXXX)
fail=0
trap 'kill $(jobs -p) 2>/dev/null; [ -n "${RXD_KEEP:-}" ] || rm -rf "$dir"' EXIT

eal() { # role prefix
	echo "-l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdrs$2$$" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# value COUNTER: the counter from the Nth "show cm" of the server output.
value() { # N NAME
	awk -v k="$1" -v name="$2" '
		/^cm mads_tx / { seen++ }
		seen == k && $1 == "cm" && $2 == name { print $3 }' "$dir/s.out"
}

cat >"$dir/s.cmds" <<EOC
wait link 0 up 60
cm listen 7471
show cm
wait cm $n ${RXD_REQ_STORM_WAIT:-240}
show cm
EOC
# shellcheck disable=SC2046
RXD_CM_TIMEOUT_MS=100 timeout 300 "$testpmd" $(eal server s) -- \
	--ip 10.0.0.1/24 --cmdline-file "$dir/s.cmds" >"$dir/s.out" 2>&1 &
s=$!
for _ in $(seq 300); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
# shellcheck disable=SC2046
"$storm" $(eal client c) -- --ip 10.0.0.2/24 10.0.0.2 10.0.0.1 7471 "$n" \
	"$dir/go" >"$dir/c.out" 2>&1 &
g=$!
# the storm starts once the listener has shown its baseline
for _ in $(seq 1200); do
	grep -q "^cm listener requests" "$dir/s.out" && break
	kill -0 $s 2>/dev/null || break
	sleep 0.1
done
touch "$dir/go"
wait $s
rc=$?
kill $g 2>/dev/null
wait $g 2>/dev/null
cat "$dir/c.out"
grep -E "^cm (ids|events|mem_bytes|resent|timeouts|mads_rx) |^cm listener" \
	"$dir/s.out"
if [ $rc != 0 ]; then
	echo "FAIL: rxd-testpmd exit $rc"
	tail -n 20 "$dir/s.out" | sed 's/^/    | /'
	exit 1
fi
for c in ids events mem_bytes; do
	b=$(value 1 $c)
	a=$(value 2 $c)
	if [ -n "$b" ] && [ "$a" = "$b" ]; then
		echo "PASS: $c back to $b after the storm"
	else
		echo "FAIL: $c ${b:-?} before the storm, ${a:-?} after"
		fail=1
	fi
done
peak=$(value 2 ids_peak)
to=$(value 2 timeouts)
if [ "${peak:-0}" -gt "$n" ] && [ "$to" = "$n" ]; then
	echo "PASS: $n half-open connections held at once (ids peak $peak)" \
		"and each given up"
else
	echo "FAIL: ids peak ${peak:-?}, timeouts ${to:-?} for $n REQs"
	fail=1
fi
if grep -Eq "^cm listener requests $n accepted $n established 0 ended 0 failed $n$" \
	"$dir/s.out"; then
	echo "PASS: every request accepted, none established, every one failed"
else
	echo "FAIL: the listener's counts"
	fail=1
fi
exit $fail
