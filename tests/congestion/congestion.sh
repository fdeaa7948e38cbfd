#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The congestion test (issue 20): two (or RXD_CC_FLOWS) data-checked RC
# streams cross cc-switch, the project's bottleneck switch (a memif port
# per endpoint; the egress towards the sink, 10.0.0.100, is a queue of DEPTH frames served at RATE
# Mbit/s, dropping when full and CE-marking ECT frames as they leave by
# the queue behind them: RED's ramp from KMIN to KMAX frames up to PMAX,
# always at KMAX).  OP write (default): two rxd senders WRITE to one rxd
# receiver (RXD_CC_FLOWS=8: eight, each its own process, an 8:1 incast).  OP read: one rxd reader READs from two rxd responders, whose
# READ responses are what the pacer holds.  It runs once with DCQCN off
# and once on, and prints per phase the switch's drops and marks, goodput
# (payload bytes of completed WRs over first start to last end, both
# flows), each flow's share, retransmitted frames and CNPs.
# Asserted (ratios of the run's own counters, so robust on a loaded 2-core
# machine): in both phases every WR completes once and in order, the data
# is exact and both flows progress (a QP may exhaust its retries under
# DCQCN off's loss: printed, its flushed WRs still complete once each);
# with DCQCN on the sink sends CNPs, the sources cut their rates, their
# engines back off between paced frames (busy in under half their
# passes), the switch drops 10x fewer frames than with it off, each flow's
# share is within 20 % of half, and goodput is at least 90 % of the bytes
# the bottleneck served.  Goodput against the bottleneck's nominal rate
# (target 90 %) and retransmissions (target 1 % of frames) also need the
# four processes scheduled within milliseconds: printed as TARGET MET /
# NOT MET (doc/testing.md).
# Settings (doc/testing.md, "The congestion test's targets"):
# RXD_CC_RATE_MBPS (100), RXD_CC_DEPTH (128), RXD_CC_KMIN (16),
# RXD_CC_KMAX (64), RXD_CC_PMAX (0.2), RXD_CC_SECONDS (8), RXD_CC_MTU
# (path MTU: 4096 or 1024), RXD_CC_WINDOW (WRs of 16 KiB outstanding per
# flow: 32 at MTU 4096, 8 at 1024), RXD_CC_INI (replaces the DCQCN lines of the configuration);
# RXD_CC_ON (dcqcn) is the port key cc of the "on" phase: ecn or delay
# try the other laws (doc/congestion.md), off runs it unpaced (to see the
# test fail when DCQCN does nothing); RXD_CC_OUT=DIR keeps each phase's output there
# (doc/plot-congestion.py draws the flows' rates from it).
# RXD_CC_FLOWS (2): WRITE senders, 2 to 8.  RXD_CC_DEFAULTS=1: no cc
# parameters at all in the configuration (the mode's defaults: issue 35's
# matrix, cc-matrix.sh).  RXD_CC_STRICT=1 asserts issue 35's targets too:
# goodput at least 90 % of the bottleneck's nominal rate and Jain's index
# of the flows' goodput at least 0.9.  Each phase prints the 99th
# percentile of the time frames waited in the switch's queue.
# Usage: congestion.sh CC_SWITCH CC_FLOW [write|read]
set -u
sw=$1
flow=$2
op=${3:-write}
rate=${RXD_CC_RATE_MBPS:-100}
depth=${RXD_CC_DEPTH:-128}
kmin=${RXD_CC_KMIN:-16}
kmax=${RXD_CC_KMAX:-64}
pmax=${RXD_CC_PMAX:-0.2}
secs=${RXD_CC_SECONDS:-8}
mtu=${RXD_CC_MTU:-4096}
nflows=${RXD_CC_FLOWS:-2}
export RXD_CC_MTU=$mtu
dir=$(mktemp -d /tmp/rxd-cc.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
fail=0
eal_common="--no-pci --no-huge -m 256 --log-level=lib.eal:error --log-level=pmd.net.memif:error"

case $op in
write) source_role=sender sink_role=receiver ;;
read) source_role=responder sink_role=reader ;;
*) echo "FAIL: OP is write or read, not $op"; exit 1 ;;
esac
if [ "$nflows" -lt 2 ] || [ "$nflows" -gt 8 ] || { [ "$op" = read ] && [ "$nflows" != 2 ]; }; then
	echo "FAIL: RXD_CC_FLOWS is 2 to 8 (2 for read), not $nflows"; exit 1
fi
flows=$(seq 0 $((nflows - 1)))

# DCQCN scaled to a bottleneck of RATE Mbit/s: the sources' ports run at
# the bottleneck's rate (a 2:1 incast, as two NICs into one switch port of
# their speed); R_AI is 1 % of it per increase event and R_HAI 10 x R_AI
# (mlx5's ratio).  The timers keep the paper's ratios to the CNP interval
# N (K = 55 us and T = 55 us just above N = 50 us, which is ~250 frames at
# 40 Gbit/s): here a flow's 4 KiB frames come ~0.66 ms apart, so with
# N = 50 us every marked frame brought a CNP and alpha decayed between
# any two (it never measured the congestion, so cuts stayed small while
# fast recovery undid them: the queue sat at the marking limit);
# N = 1 ms, K = T = 1.1 ms hold the queue inside the marking ramp
# (doc/performance.md, "Fourth pass").  At path MTU 1024 frames are 4x as
# close: N = 250 us, K = T = 275 us, and 8 WRs (128 frames) per flow.
# RXD_CC_INI replaces these lines (to try other parameters).
# Path MTU 4096 needs an Ethernet MTU of 4176 or more and memif buffers
# that hold such a frame, on every port (doc/configuration.md).
if [ "$mtu" = 4096 ]; then
	ethmtu=4200 bsize=,bsize=8192 window=32 cnp_us=1000
elif [ "$mtu" = 1024 ]; then
	ethmtu=1500 bsize= window=8 cnp_us=250
else
	echo "FAIL: RXD_CC_MTU is 1024 or 4096, not $mtu"; exit 1
fi
export RXD_CC_WINDOW=${RXD_CC_WINDOW:-$window}
[ "${RXD_CC_DEFAULTS:-0}" = 1 ] && RXD_CC_INI=" "
cat >"$dir/cc.ini" <<INI
[port0]
mtu = $ethmtu
${RXD_CC_INI:-dcqcn.line_rate_mbps = $rate
dcqcn.rpg_ai_rate_mbps = $(( (rate + 99) / 100 ))
dcqcn.rpg_hai_rate_mbps = $(( (rate + 9) / 10 ))
cnp_interval_us = $cnp_us
dcqcn.alpha_update_us = $((cnp_us * 11 / 10))
dcqcn.rpg_time_reset_us = $((cnp_us * 11 / 10))}
INI

rxd_eal() { # prefix port mac ip
	echo "-l 0-1 $eal_common --file-prefix rxdcc$1$$" \
		"--vdev=net_memif0,role=client,id=0,socket=$dir/p$2.sock,socket-abstract=no,mac=$3$bsize" \
		"-- --ip $4/24"
}

# phase off|on: run the endpoints through a fresh switch (port i: flow
# i's source, port NFLOWS: the sink, behind the bottleneck)
phase() {
	local p=$1 out=$dir/$1 i cc=off sink socks="" vdevs="" pids="" rcs="" r rr
	mkdir -p "$out"
	[ "$p" = on ] && cc=${RXD_CC_ON:-dcqcn}
	for i in $flows $nflows; do
		vdevs="$vdevs --vdev=net_memif$i,role=server,id=0,socket=$dir/p$i.sock,socket-abstract=no$bsize"
	done
	# shellcheck disable=SC2086
	"$sw" -l 0 $eal_common --file-prefix rxdccsw$p$$ $vdevs \
		-- "$rate" "$depth" "$kmin" "$kmax" "$pmax" "$nflows" $((secs + 120)) 100 \
		>"$out/switch.txt" 2>"$out/switch.err" &
	local swpid=$!
	for i in $(seq 100); do
		[ -S "$dir/p$nflows.sock" ] && break
		sleep 0.1
	done
	for i in $flows; do
		socks="$socks $dir/c$i$p.sock"
	done
	if [ "$op" = write ]; then
		sink="receiver$socks"
	else
		sink="reader$socks $secs"
	fi
	# shellcheck disable=SC2046,SC2086
	RXD_CC=$cc RXD_CONFIG=$dir/cc.ini "$flow" $(rxd_eal r$p "$nflows" 02:00:00:00:cc:64 10.0.0.100) \
		$sink >"$out/receiver.txt" 2>&1 &
	local rpid=$!
	for i in $flows; do
		local source="responder $i $dir/c$i$p.sock"
		[ "$op" = write ] && source="sender $i $dir/c$i$p.sock $secs"
		# shellcheck disable=SC2046,SC2086
		RXD_CC=$cc RXD_CONFIG=$dir/cc.ini "$flow" $(rxd_eal s$i$p "$i" "02:00:00:00:cc:0$((i + 1))" "10.0.0.$((i + 1))") \
			$source >"$out/sender$i.txt" 2>&1 &
		pids="$pids $!"
	done
	for i in $pids; do
		wait "$i"; r=$?
		rcs="$rcs $r"
	done
	wait $rpid; rr=$?
	kill -TERM $swpid 2>/dev/null
	wait $swpid
	cat "$out"/sender*.txt "$out"/receiver.txt | grep -v "^FLOW\|^TELEMETRY"
	grep "^SWITCH" "$out/switch.txt"
	if [ -n "$(echo "$rcs" | tr -d ' 0')" ] || [ $rr != 0 ]; then
		echo "FAIL: dcqcn $p: ${source_role}s exit$rcs, $sink_role $rr"
		cat "$out/switch.err"
		fail=1
	fi
	grep -q "^receiver: data exact" "$out/receiver.txt" || {
		echo "FAIL: dcqcn $p: the $sink_role's data is not exact"; fail=1; }
	# A machine stall long enough for no CNP to be sent lets the rates
	# recover and the queue overflow; every go-back-N round then resends a
	# window, and seven rounds without progress end the QP.  Printed, in
	# both phases: its WRs still complete once each, in order.
	if grep -q "^RETRY_EXCEEDED" "$out"/*.txt; then
		echo "NOTE: dcqcn $p: go-back-N under this loss exhausted a QP's retries (retry_cnt 7): $(grep -h '^RETRY_EXCEEDED' "$out"/*.txt | tr '\n' ' ')"
	fi
	if [ -n "${RXD_CC_OUT:-}" ]; then
		mkdir -p "$RXD_CC_OUT"
		cat "$out"/*.txt >"$RXD_CC_OUT/congestion-$p.txt"
	fi
}

field() { # file key: the number after key on the first line with it
	sed -n "s/.* $2 \([0-9.]*\).*/\1/p" "$1" | head -1
}

# dir prefix key: the sum of the numbers after key on the phase's lines
# that start with prefix ("SENDER ": the data sources' QPs)
total() {
	cat "$1"/sender*.txt "$1"/receiver.txt | awk -v p="$2" -v k="$3" '
		index($0, p) == 1 { for (i = 1; i < NF; i++) if ($i == k) s += $(i + 1) }
		END { printf "%d\n", s }'
}

# dir id: flow id's goodput in Mbit/s over its own window
flow_mbps() {
	cat "$1"/*.txt | sed -n "s/^GOODPUT $2 .* s \([0-9.]*\) Mbit.*/\1/p"
}

# dir: "BYTES SECONDS MBPS" of the flows together, over the union of
# their windows (first start to last end, CLOCK_MONOTONIC)
together() {
	cat "$1"/*.txt | sed -n 's/^GOODPUT [0-9] \([0-9]*\) bytes .* from \([0-9.]*\) to \([0-9.]*\)$/\1 \2 \3/p' | awk '
		{ b += $1; if (n++ == 0 || $2 < t0) t0 = $2; if ($3 > t1) t1 = $3 }
		END { w = t1 - t0; printf "%d %.3f %.1f\n", b, w, (w > 0 ? b * 8 / w / 1e6 : 0) }'
}

echo "$op: bottleneck $rate Mbit/s, queue $depth frames, CE from $kmin to $kmax frames (up to $pmax, then all), path MTU $mtu, $RXD_CC_WINDOW WRs of 16 KiB per flow, $secs s per phase"
uptime
phase off
phase on
uptime

for p in off on; do
	o=$dir/$p
	g=""
	for i in $flows; do
		r=$(flow_mbps "$o" "$i")
		g="$g,${r:-0}"
	done
	g=${g#,}
	eval "drops_$p=$(field "$o/switch.txt" dropped)"
	eval "marks_$p=$(field "$o/switch.txt" marked)"
	eval "served_$p=$(field "$o/switch.txt" served)"
	eval "g_$p=$g p99_$p=$(field "$o/switch.txt" q_p99_us)"
	# rewinds: the requester's (a WRITE's sender, a READ's reader)
	rt=$(( $(total "$o" "SENDER " retransmits) + $(total "$o" "RECEIVER " retransmits) ))
	eval "rt_$p=$rt cnp_$p=$(total "$o" "SENDER " cnp_rx)"
	eval "cuts_$p=$(total "$o" "SENDER " rate_cuts) tx_$p=$(total "$o" "SENDER " tx_pkts)"
	read -r gbytes gsecs agg <<<"$(together "$o")"
	eval "gbytes_$p=$gbytes gsecs_$p=$gsecs agg_$p=$agg"
	python3 - "$p" "$g" "$rate" "$gbytes" "$gsecs" "$agg" <<'PY'
import sys
p, g = sys.argv[1], [float(x) for x in sys.argv[2].split(",")]
rate, gbytes, gsecs, agg = (float(x) for x in sys.argv[3:])
tot = sum(g)
print(f"RESULT dcqcn {p}: goodput {agg:.1f} Mbit/s ({100 * agg / rate:.1f} % of "
      f"{rate:.0f}: {gbytes:.0f} payload bytes in {gsecs:.3f} s, first start to "
      f"last end), per flow {' / '.join(f'{x:.1f}' for x in g)} Mbit/s, shares "
      f"{' / '.join(f'{100 * x / tot if tot else 0:.0f} %' for x in g)}")
PY
	echo "RESULT dcqcn $p: switch drops $(eval echo \$drops_$p) marks $(eval echo \$marks_$p), rewinds $rt, CNPs received $(eval echo \$cnp_$p), rate cuts $(eval echo \$cuts_$p), queue delay p99 $(eval echo \$p99_$p) us"
done

for p in off on; do
	awk -v g="$(eval echo \$g_$p)" 'BEGIN { n = split(g, x, ","); for (i = 1; i <= n; i++) if (x[i] <= 0) exit 1 }' ||
		{ echo "FAIL: dcqcn $p: a flow made no progress"; fail=1; }
done
# (the delay law needs no marks: with marking off it gets no CNPs)
if { [ "$cnp_on" -eq 0 ] && [ "${RXD_CC_ON:-dcqcn}" != delay ]; } || [ "$cuts_on" -eq 0 ]; then
	echo "FAIL: dcqcn on: $marks_on frames marked CE, $cnp_on CNPs reached the ${source_role}s, $cuts_on cuts were made"
	fail=1
fi
# A paced QP waiting for tokens is not work: with DCQCN on a source's
# engine backs off between frames (0.1 % of passes busy here; 99.6 % when
# it counted as work and spun a core, starving the sink and switch).
for s in $flows; do
	read -r loops busy <<<"$(sed -n 's/^ENGINE [0-9] loops \([0-9]*\) busy \([0-9]*\) .*/\1 \2/p' "$dir/on/sender$s.txt")"
	if [ -z "$loops" ] || [ $((busy * 2)) -ge "$loops" ]; then
		echo "FAIL: dcqcn on: $source_role $s's engine was busy in ${busy:-?} of ${loops:-?} passes"
		fail=1
	fi
done
if [ "$cuts_off" -gt 0 ]; then
	echo "FAIL: dcqcn off: the ${source_role}s cut their rate ($cuts_off cuts)"
	fail=1
fi
if [ "$drops_off" -eq 0 ] || [ $((drops_on * 10)) -gt "$drops_off" ]; then
	echo "FAIL: switch drops did not fall 10x with DCQCN: $drops_off off, $drops_on on"
	fail=1
fi
# Goodput against what the bottleneck carried: counters of this run, not
# wall-clock luck (a stalled machine serves less, but wastes no more of it).
python3 - "$g_on" "$drops_off" "$drops_on" "$rate" "$rt_on" \
	"$served_on" "$gbytes_on" "$tx_on" "$gsecs_on" "$mtu" "$agg_on" \
	"${RXD_CC_STRICT:-0}" <<'PY' || fail=1
import sys
g = [float(x) for x in sys.argv[1].split(",")]
doff, don, rate, rt, served, gbytes, tx, secs, mtu, agg, strict = (float(x) for x in sys.argv[2:])
n = len(g)
tot = sum(g)
jain = tot * tot / (n * sum(x * x for x in g)) if tot else 0
secs = secs if secs > 0 else 1
eff = gbytes / served if served else 0
retx = 1 - gbytes / mtu / tx if tx else 1
# a frame's headers: Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, and a
# RETH (WRITE) or AETH (READ response) on some frames of each 16 KiB
hdr_eff = mtu / (mtu + 58 + 16 * mtu / 16384)
util = served * 8 / secs / 1e6 / rate
print(f"RESULT dcqcn on: goodput {100 * eff:.1f} % of the bytes the bottleneck "
      f"served (headers alone leave about {100 * hdr_eff:.1f} %), {100 * retx:.1f} % of the "
      f"sources' frames retransmitted, bottleneck busy {100 * util:.0f} %")
def say(ok, what):
    print(f"TARGET {'MET' if ok else 'NOT MET'}: {what}")
fair = tot > 0 and all(abs(x / tot - 1 / n) <= 0.2 / n for x in g)
say(fair, f"each flow within 20 % of its 1/{n} share "
    f"({' / '.join(f'{x:.1f}' for x in g)} Mbit/s)")
say(jain >= 0.9, f"Jain's index {jain:.3f} (target 0.9)")
say(doff > 0 and don * 10 <= doff, f"drops down 10x ({doff:.0f} -> {don:.0f})")
say(agg >= 0.9 * rate, f"goodput {100 * agg / rate:.1f} % of the {rate:.0f} Mbit/s "
    f"bottleneck (target 90 %)")
say(retx <= 0.01, f"retransmissions {100 * retx:.1f} % of frames (target near "
    f"zero: 1 %; {rt:.0f} rewinds)")
bad = []
if strict:
    if jain < 0.9:
        bad.append(f"Jain's index {jain:.3f} is under 0.9")
    if agg < 0.9 * rate:
        bad.append(f"goodput is {100 * agg / rate:.1f} % of the bottleneck's rate, under 90 %")
elif not fair:
    bad.append(f"a flow is not within 20 % of its 1/{n} share")
if eff < 0.9:
    bad.append(f"goodput is {100 * eff:.1f} % of the bytes served, under 90 %")
for b in bad:
    print(f"FAIL: dcqcn on: {b}")
sys.exit(1 if bad else 0)
PY
[ $fail = 0 ] && echo "PASS: congestion: $nflows data-checked RC $op streams through a bottleneck, DCQCN off and on"
exit $fail
