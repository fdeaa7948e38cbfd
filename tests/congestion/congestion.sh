#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The congestion test (issue 20): two data-checked RC streams cross
# cc-switch, the project's bottleneck switch (three memif ports; the
# egress towards 10.0.0.3 is a queue of DEPTH frames served at RATE
# Mbit/s, dropping when full and CE-marking ECT frames as they leave by
# the queue behind them: RED's ramp from KMIN to KMAX frames up to PMAX,
# always at KMAX).  OP write (default): two rxd senders WRITE to one rxd
# receiver.  OP read: one rxd reader READs from two rxd responders, whose
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

# phase off|on: run the three endpoints through a fresh switch
phase() {
	local p=$1 out=$dir/$1 i cc=off sink source0 source1
	mkdir -p "$out"
	[ "$p" = on ] && cc=${RXD_CC_ON:-dcqcn}
	# shellcheck disable=SC2086
	"$sw" -l 0 $eal_common --file-prefix rxdccsw$p$$ \
		--vdev=net_memif0,role=server,id=0,socket=$dir/p0.sock,socket-abstract=no$bsize \
		--vdev=net_memif1,role=server,id=0,socket=$dir/p1.sock,socket-abstract=no$bsize \
		--vdev=net_memif2,role=server,id=0,socket=$dir/p2.sock,socket-abstract=no$bsize \
		-- "$rate" "$depth" "$kmin" "$kmax" "$pmax" 2 $((secs + 120)) 100 \
		>"$out/switch.txt" 2>"$out/switch.err" &
	local swpid=$!
	for i in $(seq 100); do
		[ -S "$dir/p0.sock" ] && [ -S "$dir/p1.sock" ] && [ -S "$dir/p2.sock" ] && break
		sleep 0.1
	done
	if [ "$op" = write ]; then
		sink="receiver $dir/c0$p.sock $dir/c1$p.sock"
		source0="sender 0 $dir/c0$p.sock $secs"
		source1="sender 1 $dir/c1$p.sock $secs"
	else
		sink="reader $dir/c0$p.sock $dir/c1$p.sock $secs"
		source0="responder 0 $dir/c0$p.sock"
		source1="responder 1 $dir/c1$p.sock"
	fi
	# shellcheck disable=SC2046,SC2086
	RXD_CC=$cc RXD_CONFIG=$dir/cc.ini "$flow" $(rxd_eal r$p 2 02:00:00:00:cc:03 10.0.0.3) \
		$sink >"$out/receiver.txt" 2>&1 &
	local rpid=$!
	# shellcheck disable=SC2046,SC2086
	RXD_CC=$cc RXD_CONFIG=$dir/cc.ini "$flow" $(rxd_eal s0$p 0 02:00:00:00:cc:01 10.0.0.1) \
		$source0 >"$out/sender0.txt" 2>&1 &
	local s0=$!
	# shellcheck disable=SC2046,SC2086
	RXD_CC=$cc RXD_CONFIG=$dir/cc.ini "$flow" $(rxd_eal s1$p 1 02:00:00:00:cc:02 10.0.0.2) \
		$source1 >"$out/sender1.txt" 2>&1 &
	local s1=$!
	wait $s0; local r0=$?
	wait $s1; local r1=$?
	wait $rpid; local rr=$?
	kill -TERM $swpid 2>/dev/null
	wait $swpid
	cat "$out"/sender0.txt "$out"/sender1.txt "$out"/receiver.txt | grep -v "^FLOW\|^TELEMETRY"
	grep "^SWITCH" "$out/switch.txt"
	if [ $r0 != 0 ] || [ $r1 != 0 ] || [ $rr != 0 ]; then
		echo "FAIL: dcqcn $p: ${source_role}s exit $r0 $r1, $sink_role $rr"
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
	cat "$1"/sender0.txt "$1"/sender1.txt "$1"/receiver.txt | awk -v p="$2" -v k="$3" '
		index($0, p) == 1 { for (i = 1; i < NF; i++) if ($i == k) s += $(i + 1) }
		END { printf "%d\n", s }'
}

# dir id: flow id's goodput in Mbit/s over its own window
flow_mbps() {
	cat "$1"/*.txt | sed -n "s/^GOODPUT $2 .* s \([0-9.]*\) Mbit.*/\1/p"
}

# dir: "BYTES SECONDS MBPS" of both flows together, over the union of
# their windows (first start to last end, CLOCK_MONOTONIC)
together() {
	cat "$1"/*.txt | sed -n 's/^GOODPUT [01] \([0-9]*\) bytes .* from \([0-9.]*\) to \([0-9.]*\)$/\1 \2 \3/p' | awk '
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
	g0=$(flow_mbps "$o" 0)
	g1=$(flow_mbps "$o" 1)
	eval "drops_$p=$(field "$o/switch.txt" dropped)"
	eval "marks_$p=$(field "$o/switch.txt" marked)"
	eval "served_$p=$(field "$o/switch.txt" served)"
	eval "g0_$p=${g0:-0} g1_$p=${g1:-0}"
	# rewinds: the requester's (a WRITE's sender, a READ's reader)
	rt=$(( $(total "$o" "SENDER " retransmits) + $(total "$o" "RECEIVER " retransmits) ))
	eval "rt_$p=$rt cnp_$p=$(total "$o" "SENDER " cnp_rx)"
	eval "cuts_$p=$(total "$o" "SENDER " rate_cuts) tx_$p=$(total "$o" "SENDER " tx_pkts)"
	read -r gbytes gsecs agg <<<"$(together "$o")"
	eval "gbytes_$p=$gbytes gsecs_$p=$gsecs agg_$p=$agg"
	python3 - "$p" "${g0:-0}" "${g1:-0}" "$rate" "$gbytes" "$gsecs" "$agg" <<'PY'
import sys
p, g0, g1, rate, gbytes, gsecs, agg = sys.argv[1], *(float(x) for x in sys.argv[2:])
tot = g0 + g1
s0 = g0 / tot if tot else 0
print(f"RESULT dcqcn {p}: goodput {agg:.1f} Mbit/s ({100 * agg / rate:.1f} % of "
      f"{rate:.0f}: {gbytes:.0f} payload bytes in {gsecs:.3f} s, first start to "
      f"last end), per flow {g0:.1f} / {g1:.1f} Mbit/s, shares {100 * s0:.0f} % / {100 * (1 - s0):.0f} %")
PY
	echo "RESULT dcqcn $p: switch drops $(eval echo \$drops_$p) marks $(eval echo \$marks_$p), rewinds $rt, CNPs received $(eval echo \$cnp_$p), rate cuts $(eval echo \$cuts_$p)"
done

awk -v a="$g0_off" -v b="$g1_off" 'BEGIN { exit !(a > 0 && b > 0) }' ||
	{ echo "FAIL: dcqcn off: a flow made no progress"; fail=1; }
awk -v a="$g0_on" -v b="$g1_on" 'BEGIN { exit !(a > 0 && b > 0) }' ||
	{ echo "FAIL: dcqcn on: a flow made no progress"; fail=1; }
if [ "$cnp_on" -eq 0 ] || [ "$cuts_on" -eq 0 ]; then
	echo "FAIL: dcqcn on: $marks_on frames marked CE, $cnp_on CNPs reached the ${source_role}s, $cuts_on cuts were made"
	fail=1
fi
# A paced QP waiting for tokens is not work: with DCQCN on a source's
# engine backs off between frames (0.1 % of passes busy here; 99.6 % when
# it counted as work and spun a core, starving the sink and switch).
for s in 0 1; do
	read -r loops busy <<<"$(sed -n 's/^ENGINE [01] loops \([0-9]*\) busy \([0-9]*\) .*/\1 \2/p' "$dir/on/sender$s.txt")"
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
python3 - "$drops_off" "$drops_on" "$g0_on" "$g1_on" "$rate" "$rt_on" \
	"$served_on" "$gbytes_on" "$tx_on" "$gsecs_on" "$mtu" "$agg_on" <<'PY' || fail=1
import sys
doff, don, g0, g1, rate, rt, served, gbytes, tx, secs, mtu, agg = (float(x) for x in sys.argv[1:])
tot = g0 + g1
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
fair = tot > 0 and abs(g0 / tot - 0.5) <= 0.1 and abs(g1 / tot - 0.5) <= 0.1
say(fair, f"each flow within 20 % of half ({g0:.1f} / {g1:.1f} Mbit/s)")
say(doff > 0 and don * 10 <= doff, f"drops down 10x ({doff:.0f} -> {don:.0f})")
say(agg >= 0.9 * rate, f"goodput {100 * agg / rate:.1f} % of the {rate:.0f} Mbit/s "
    f"bottleneck (target 90 %)")
say(retx <= 0.01, f"retransmissions {100 * retx:.1f} % of frames (target near "
    f"zero: 1 %; {rt:.0f} rewinds)")
bad = []
if not fair:
    bad.append("a flow is not within 20 % of half")
if eff < 0.9:
    bad.append(f"goodput is {100 * eff:.1f} % of the bytes served, under 90 %")
for b in bad:
    print(f"FAIL: dcqcn on: {b}")
sys.exit(1 if bad else 0)
PY
[ $fail = 0 ] && echo "PASS: congestion: two data-checked RC $op streams through a bottleneck, DCQCN off and on"
exit $fail
