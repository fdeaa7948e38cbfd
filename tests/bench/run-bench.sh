#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-bench.sh BUILD_DIR: one run of every figure doc/performance.md
# compares, on this machine, then a table of rxd's figures next to the
# machine's own limits and their ratio.  A benchmark, never a test: it
# asserts nothing about speed and exits non-zero only when a run fails.
#
#   limits  rxd-memif-raw: frames/s between two processes of 4154-byte
#           frames (rxd's data frame at path MTU 4096) over 8 KiB memif
#           buffers, in one mbuf and in 2 KiB mbufs, and in one mbuf over
#           a ring of 256 (its sender floods the ring, and the default
#           1024 x 8 KiB outgrow the caches), and of 1082-byte
#           frames (path MTU 1024) over the default 2 KiB buffers; the
#           round trip of a 64-byte frame; memcpy-bench: one core's memcpy
#           and rxd_copy at 64 KiB and 4 MiB (CPU time)
#   rxd     rxd-perf server and client over memif, one lcore each (the
#           engine runs inline in the application's thread): write_bw,
#           read_bw, send_bw at 64 KiB with MTU 4200 (path MTU 4096) over
#           8 KiB memif buffers and with the default MTU 1500 (path MTU
#           1024); write_bw at 64 B with post lists of 32
#           and one signaled WR in 32 (message rate); send_lat and
#           write_lat at 8 B; Debian's unmodified ib_write_bw, ib_read_bw,
#           ib_send_bw -D (path MTU 4096 and 1024) and
#           ib_send_lat on rxd (through build/compat) when
#           perftest is installed; rxd-testpmd's "show mem"
#   mpi     Open MPI over UCX over rxd (two ranks, each its own rxd over
#           memif with one lcore: tests/mpi/rank-env.sh) against the same
#           program over Open MPI's kernel TCP transport on loopback:
#           mpi-pingpong's round trips of 8 B to 8 MiB and an allreduce,
#           when openmpi-bin and mpi-pingpong are there
#   scaling rxd-perf --loopback (one process, net_ring pair, 2 QPs)
#           write_bw at 64 B with one engine lcore for both ports, then
#           with two (one a port); handoff-bench: what passing a frame
#           between two engine lcores costs (the QPN-sharding design)
#
# The machine is shared and single runs swing several times over, so the
# measurements run in rounds, each round every measurement once, limits
# and rxd interleaved; the table shows medians over the rounds and their
# range.
#
#   BENCH_ROUNDS   rounds (default 5)
#   BENCH_SECONDS  length of each timed run (default 3)
#   BENCH_OUT      directory for the raw outputs (default: a temporary one,
#                  removed at the end)
#   RXD_CPU_FEATURES_OFF  CPU features rxd must not use (e.g. avx512f: the
#                  code paths of an AVX2-only CPU); the table's first
#                  lines name the CPU, its flags and the paths chosen
# The whole run takes about 6 minutes with the defaults on a quiet machine,
# plus about 40 s a round for the MPI rows
# (estimated from the 4 it took before the READ, SEND and perftest rows of
# path MTU 1024 and 4096 were added; 8 to 15 minutes for 3 rounds under load).
set -u
build=${1:-build}
secs=${BENCH_SECONDS:-3}
rounds=${BENCH_ROUNDS:-5}
for v in "BENCH_SECONDS=$secs" "BENCH_ROUNDS=$rounds"; do
	case ${v#*=} in
	'' | *[!0-9]* | 0) echo "run-bench: $v: give a whole number from 1" >&2
		exit 2 ;;
	esac
done
raw=$build/apps/rxd-memif-raw/rxd-memif-raw
perf=$build/apps/rxd-perf/rxd-perf
testpmd=$build/apps/rxd-testpmd/rxd-testpmd
memcpy=$build/tests/bench/memcpy-bench
handoff=$build/tests/bench/handoff-bench
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${BENCH_OUT:-}" ]; then
	dir=$BENCH_OUT
	mkdir -p "$dir" || exit 2
else
	dir=$(mktemp -d /tmp/rxd-bench.XXXXXX)
	trap 'rm -rf "$dir"' EXIT
fi
trap 'kill $(jobs -p) 2>/dev/null' INT TERM
sock=$dir/m.sock
tcp=$((20000 + $$ % 20000))
failed=""
export RXD_LINK_WAIT_MS=30000

for p in "$raw" "$perf" "$testpmd" "$memcpy" "$handoff"; do
	[ -x "$p" ] || { echo "run-bench: $p not built (make build)" >&2; exit 2; }
done

# EAL of one side: lcore, memif role, file prefix[, memif buffer size]
eal() {
	echo "-l $1 --no-pci --no-huge -m 512 --file-prefix rxdb$3$$" \
		"--vdev=net_memif0,role=$2,id=0,socket=$sock,socket-abstract=no,bsize=${4:-2048}" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error"
}

# pair NAME SERVER-CMD... +++ CLIENT-CMD...: output in NAME.s and NAME.c
pair() {
	local name=$1 s=() sp src crc
	shift
	while [ "$1" != +++ ]; do s+=("$1"); shift; done
	shift
	rm -f "$sock"
	timeout 120 "${s[@]}" >"$dir/$name.s" 2>&1 &
	sp=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	timeout 120 "$@" >"$dir/$name.c" 2>&1
	crc=$?
	wait $sp
	src=$?
	if [ $src != 0 ] || [ $crc != 0 ]; then
		failed="$failed $name"
		echo "run-bench: $name failed (server $src, client $crc)" >&2
		tail -n 4 "$dir/$name.s" "$dir/$name.c" >&2
	fi
}

# key FILE KEY: the first value of KEY=V or "KEY": V in FILE
key() {
	grep -o -m 1 -E "(\"$2\": |$2=)[-0-9.]+" "$1" 2>/dev/null |
		sed -E 's/.*[=:] ?//'
}

echo "run-bench: $(nproc) cores, $(uname -r), $rounds rounds of $secs s runs," \
	"outputs in $dir" >&2

# The CPU, the flags the data path chooses by, and what it chose
# (RXD_CPU_FEATURES_OFF applies): the first lines of the table.
cpu_report() {
	local f flags=""
	for f in sse4_1 pclmulqdq avx2 vpclmulqdq avx512f erms fsrm; do
		grep -qw "$f" /proc/cpuinfo && flags="$flags $f"
	done
	echo "CPU: $(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2- |
		sed 's/^ *//') (family $(grep -m 1 'cpu family' /proc/cpuinfo |
		cut -d: -f2 | tr -d ' '), model $(grep -m 1 '^model[^ ]*:' \
		/proc/cpuinfo | cut -d: -f2 | tr -d ' ')), $(nproc) cores;" \
		"flags:$flags; RXD_CPU_FEATURES_OFF=${RXD_CPU_FEATURES_OFF:-}"
	printf 'show ports\nquit\n' >"$dir/cpu.cmds"
	"$testpmd" -l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdbc$$ \
		--vdev=net_ring0 --log-level=lib.eal:error -- --ip 10.0.0.1/24 \
		--cmdline-file "$dir/cpu.cmds" 2>&1 | grep '^data path:'
}
cpu_report >"$dir/cpu"
cat "$dir/cpu" >&2

# rxd_perf NAME TEST FLAGS...: rxd-perf, one lcore per side, MTU 1500
rxd_perf() {
	local name=$1
	shift
	# shellcheck disable=SC2046
	pair "$name" "$perf" $(eal 0 server "s$name") -- --ip 10.0.0.1/24 \
		"$@" -p $tcp --json +++ \
		"$perf" $(eal 1 client "c$name") -- --ip 10.0.0.2/24 \
		"$@" -p $tcp --json 127.0.0.1
}

# rxd_perf4k NAME TEST FLAGS...: the same at MTU 4200 (path MTU 4096)
# over 8 KiB memif buffers
rxd_perf4k() {
	local name=$1
	shift
	# shellcheck disable=SC2046
	pair "$name" "$perf" $(eal 0 server "s$name" 8192) -- \
		--ip 10.0.0.1/24 --mtu 4200 "$@" -p $tcp --json +++ \
		"$perf" $(eal 1 client "c$name" 8192) -- --ip 10.0.0.2/24 \
		--mtu 4200 "$@" -p $tcp --json 127.0.0.1
}

# raw_rate NAME SIZE BSIZE SEG [RSIZE]: rxd-memif-raw frames/s; RSIZE is
# memif's log2 ring size (default 10)
raw_rate() {
	local b=$3${5:+,rsize=$5}
	# shellcheck disable=SC2046
	pair "$1" "$raw" $(eal 0 server "rs$1" "$b") -- rx -t "$secs" \
		--seg "$4" +++ \
		"$raw" $(eal 1 client "rc$1" "$b") -- tx -t "$secs" -s "$2" \
		--seg "$4"
}

# loopback NAME LCORES [CONFIG [SIZE]]: rxd-perf --loopback, 2 QPs, 64 B
# message rate (or SIZE bytes' bandwidth); LCORES gives EAL one engine
# lcore or two, over this machine's cores; CONFIG an INI file
# (engines_per_port: two engines sharing each port)
loopback() {
	RXD_CONFIG="${3:-}" timeout 120 "$perf" "$2" --no-pci --no-huge \
		-m 512 --file-prefix rxdbl$$ --log-level=lib.eal:error -- \
		--loopback write_bw -q 2 -s "${4:-64}" -l 32 -Q 32 -t 256 \
		-D "$secs" --json >"$dir/$1.c" 2>&1 || {
		failed="$failed $1"
		tail -n 4 "$dir/$1.c" >&2
	}
}

# pt NAME TOOL FLAGS...: Debian's perftest, unmodified, on the same rxd
have_perftest=false
if command -v ib_write_bw >/dev/null; then
	have_perftest=true
	# shellcheck source=../lib/compat-env.sh
	. "$here/../lib/compat-env.sh" "$build"
fi
# pt NAME MTU BSIZE TOOL FLAGS...
pt() {
	local name=$1 mtu=$2 bsize=$3 tool=$4
	shift 4
	$have_perftest || return 0
	pair "$name" env RXD_EAL_ARGS="$(eal 0 server "s$name" "$bsize")" \
		RXD_ADDR=10.0.0.1/24 RXD_MTU="$mtu" \
		"$tool" -d rxd0 -x 1 -p $tcp "$@" +++ \
		"$here/../lib/retry-connect.sh" env RXD_EAL_ARGS="$(eal 1 client "c$name" "$bsize")" \
		RXD_ADDR=10.0.0.2/24 RXD_MTU="$mtu" \
		"$tool" -d rxd0 -x 1 -p $tcp "$@" 127.0.0.1
}

# mpi NAME rxd|tcp: mpi-pingpong, two ranks, over rxd (in a network
# namespace of its own with only lo: nothing of it can reach the kernel's
# routes) or over kernel TCP on loopback
mpi_pp=$build/tests/mpi/mpi-pingpong
have_mpi=false
command -v mpirun >/dev/null && [ -x "$mpi_pp" ] && $have_perftest &&
	have_mpi=true
mpi() {
	local ns=rxdbmpi$$ how=(--mca pml ob1 --mca btl tcp,self
		--mca btl_tcp_if_include lo) wrap=() in=()
	$have_mpi || return 0
	if [ "$2" = rxd ]; then
		ip netns add "$ns" && ip -n "$ns" link set lo up || {
			failed="$failed $1"
			return
		}
		in=(ip netns exec "$ns")
		how=(--mca pml ucx --mca osc ucx --mca btl self
			-x LD_LIBRARY_PATH -x RXD_LINK_WAIT_MS
			-x UCX_NET_DEVICES=rxd0:1 -x UCX_TLS=rc_verbs,ud_verbs,self)
		wrap=("$here/../mpi/rank-env.sh" "$dir")
	fi
	rm -f "$sock"
	timeout 300 "${in[@]}" mpirun --allow-run-as-root --oversubscribe \
		-np 2 --bind-to none "${how[@]}" "${wrap[@]}" "$mpi_pp" \
		-s 8,4096,65536,1048576,8388608 -n 1000 -N 20 \
		>"$dir/$1.c" 2>&1 || failed="$failed $1"
	[ "$2" = rxd ] && ip netns del "$ns"
}

printf '[port0]\nengines_per_port = 2\n[port1]\nengines_per_port = 2\n' \
	>"$dir/shard.ini"
for r in $(seq "$rounds"); do
	echo "run-bench: round $r of $rounds" >&2
	raw_rate "raw-rate4k.$r" 4154 8192 8192
	rxd_perf4k "write_bw.$r" write_bw -s 65536 -D "$secs"
	rxd_perf4k "read_bw.$r" read_bw -s 65536 -D "$secs"
	rxd_perf4k "send_bw.$r" send_bw -s 65536 -D "$secs"
	raw_rate "raw-rate4kc.$r" 4154 8192 2048
	raw_rate "raw-rate4kr.$r" 4154 8192 8192 8
	raw_rate "raw-rate.$r" 1082 2048 2048
	rxd_perf "write_bw1k.$r" write_bw -s 65536 -D "$secs"
	rxd_perf "read_bw1k.$r" read_bw -s 65536 -D "$secs"
	rxd_perf "send_bw1k.$r" send_bw -s 65536 -D "$secs"
	rxd_perf "msg_rate.$r" write_bw -s 64 -l 32 -Q 32 -t 256 -D "$secs"
	# shellcheck disable=SC2046
	pair "raw-rtt.$r" "$raw" $(eal 0 server ps) -- fwd -t "$secs" +++ \
		"$raw" $(eal 1 client pc) -- ping -t "$secs" -s 64
	rxd_perf "send_lat.$r" send_lat -s 8 -n 20000
	rxd_perf "write_lat.$r" write_lat -s 8 -n 20000
	pt "ib_write_bw.$r" 4200 8192 ib_write_bw -s 65536 -D "$secs"
	pt "ib_read_bw.$r" 4200 8192 ib_read_bw -s 65536 -D "$secs"
	pt "ib_send_bw.$r" 4200 8192 ib_send_bw -s 65536 -D "$secs"
	pt "ib_write_bw1k.$r" 1500 2048 ib_write_bw -s 65536 -D "$secs"
	pt "ib_read_bw1k.$r" 1500 2048 ib_read_bw -s 65536 -D "$secs"
	pt "ib_send_bw1k.$r" 1500 2048 ib_send_bw -s 65536 -D "$secs"
	pt "ib_send_lat.$r" 1500 2048 ib_send_lat -s 8 -n 20000
	mpi "mpi.$r" rxd
	mpi "mpitcp.$r" tcp
	"$memcpy" 65536 4194304 >"$dir/memcpy.$r" 2>&1 ||
		failed="$failed memcpy"
	"$memcpy" --rxd 65536 4194304 >"$dir/rxdcopy.$r" 2>&1 ||
		failed="$failed rxdcopy"
	loopback "scale1.$r" -l0-1
	loopback "scale2.$r" "--lcores=0@(0-1),1@(0-1),2@(0-1)"
	loopback "shard2.$r" "--lcores=0@(0-1),1@(0-1),2@(0-1)" "$dir/shard.ini"
	loopback "shard1bw.$r" -l0-1 "" 65536
	loopback "shard2bw.$r" "--lcores=0@(0-1),1@(0-1),2@(0-1)" \
		"$dir/shard.ini" 65536
	"$handoff" -l 0-1 --no-pci --no-huge -m 256 --file-prefix rxdbh$$ \
		--log-level=lib.eal:error -- 1 >"$dir/handoff.$r.c" 2>&1 ||
		failed="$failed handoff"
done

printf 'show mem\nquit\n' >"$dir/mem.cmds"
# shellcheck disable=SC2046
"$testpmd" -l 0-1 --no-pci --no-huge -m 512 --file-prefix rxdbm$$ \
	--vdev=net_ring0 --log-level=lib.eal:error -- --ip 10.0.0.1/24 \
	--cmdline-file "$dir/mem.cmds" >"$dir/mem" 2>&1 || failed="$failed mem"

# --- the table ---
python3 "$here/bench_table.py" "$dir" "$rounds" "$have_perftest" "$have_mpi" ||
	failed="$failed table"
if [ -n "$failed" ]; then
	echo "run-bench: failed:$failed" >&2
	exit 1
fi
