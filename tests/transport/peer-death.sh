#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Peer death: an rxd survivor (peer-death survivor) and victims started
# one after the other (peer-death victim), each its own process and EAL.
# The survivor kills each victim with SIGKILL at a seeded random moment
# of a workload (the victim WRITEs, READs or runs atomics against the
# survivor, the survivor WRITEs into or READs from the victim, or the
# victim is in the middle of the rdma_cm handshake) and checks that its
# WRs end with errors, each once, in about (retry_cnt + 1) timeouts; the
# next victim must connect and transfer byte-exact.  35 kills over
# net_memif (the survivor is the memif server, so the link goes down with
# each victim and comes up with the next), 6 more with inline engines
# (one lcore a side), then 15 over net_af_packet on a veth pair in a
# network namespace of the test's (SKIP without root).  After the last
# kill of each, one more victim connects cleanly, by hand and through
# rdma_cm.
# PEER_DEATH_SEED=N replays a run; PEER_DEATH_KILLS="MEMIF AF_PACKET"
# changes the counts; PEER_DEATH_SURVIVOR_OPTS adds rxd options to the
# survivor (--set port0.capture=FILE).  Usage: peer-death.sh PEER_DEATH
set -u
prog=$1
seed=${PEER_DEATH_SEED:-$(( (RANDOM << 15) | RANDOM ))}
read -r kills_memif kills_afp <<<"${PEER_DEATH_KILLS:-35 15}"
dir=$(mktemp -d /tmp/rxd-peer-death.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
fail=0
in_ns=""
# the survivor's REP to a dead victim is resent every 20 ms, 15 times
export RXD_CM_TIMEOUT_MS=20
echo "seed $seed (PEER_DEATH_SEED=$seed replays the workloads and moments)"

vdev() { # role
	echo "net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no"
}
eal() { # role ip; $lcores: the EAL's cores (default 0-1, an engine lcore)
	local prefix="--file-prefix rxdpd$$" extra=${PEER_DEATH_SURVIVOR_OPTS:-}
	if [ "$1" = client ]; then
		prefix="--file-prefix rxdpdv$$ --no-shconf"
		extra=""
	fi
	echo "-l ${lcores:-0-1} --no-pci --no-huge -m 256 $prefix --vdev=$(vdev "$1")" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error" \
		"--log-level=pmd.net.af_packet:error -- --ip $2/24 $extra"
}

# run PORT-NAME KILLS SEED: one survivor, KILLS victims killed, one not
run() {
	local name=$1 kills=$2 s i rc want passed
	rm -f "$dir/m.sock" "$dir/ctl.sock"
	# shellcheck disable=SC2046
	$in_ns timeout 600 "$prog" $(eal server 10.0.0.1) survivor \
		"$dir/ctl.sock" "$kills" "$3" "$name" >"$dir/s.log" 2>&1 &
	s=$!
	for _ in $(seq 100); do [ -S "$dir/ctl.sock" ] && break; sleep 0.1; done
	# victims until the survivor has had its final one (it runs a round
	# again when the machine stalled a live victim's QP into a timeout)
	for i in $(seq 0 $((kills + 6))); do
		# shellcheck disable=SC2046
		# (a subshell: bash's line about the killed job goes nowhere)
		( $in_ns timeout 120 "$prog" $(eal client 10.0.0.2) victim \
			"$dir/ctl.sock" >"$dir/v.log" 2>&1; exit $? ) 2>/dev/null
		rc=$?
		want=137
		grep -q ", final$" "$dir/v.log" && want=0
		if [ $rc != $want ]; then
			echo "FAIL: $name victim $i exited $rc, not $want"
			tail -n 5 "$dir/v.log" | sed 's/^/    | /'
			fail=1
		fi
		[ $want = 0 ] && break
		kill -0 $s 2>/dev/null || break
	done
	wait $s
	rc=$?
	grep -v "^TELEMETRY" "$dir/s.log"
	passed=$(grep -c "^PASS: kill " "$dir/s.log")
	if [ $rc != 0 ] || [ "$passed" != "$kills" ]; then
		echo "FAIL: $name: survivor exit $rc, $passed of $kills kills passed"
		fail=1
	else
		echo "PASS: $name: $kills kills, the survivor carried on"
	fi
}

run memif "$kills_memif" "$seed"
# and 6 more with one lcore a side: inline engines, driven by the verbs
# calls and, while the program waits elsewhere, rxd's watcher thread
lcores=0 run memif-inline 6 "$((seed + 2))"

ns=rxdpd$$
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null ||
   ! ip netns add "$ns" 2>/dev/null; then
	echo "SKIP: the $kills_afp af_packet kills (need root and a network namespace)"
	exit $fail
fi
trap 'kill $(jobs -p) 2>/dev/null; ip netns del "$ns"; rm -rf "$dir"' EXIT
ip -n "$ns" link set lo up
ip -n "$ns" link add v0 type veth peer name v1
ip -n "$ns" link set v0 up
ip -n "$ns" link set v1 up
in_ns="ip netns exec $ns"
vdev() { # role
	[ "$1" = server ] && echo "net_af_packet0,iface=v0" ||
		echo "net_af_packet0,iface=v1"
}
run af_packet "$kills_afp" "$((seed + 1))"
exit $fail
