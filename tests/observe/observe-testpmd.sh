#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# DPDK's own tools on a running rxd: two rxd-testpmd processes over
# net_memif (with hugepages, so that secondary processes can attach), the
# client writing until stopped.  Debian's dpdk-telemetry.py must read
# /rxd/ports, /rxd/engines, /rxd/qps and /rxd/qp,QPN and the QP's and the
# port's counters must grow between two reads; dpdk-dumpcap must capture
# RoCE frames of the client's port (roce-check must accept them when
# ../shared is there, else tshark or this script counts UDP 4791 frames);
# dpdk-proc-info must show the port's packet counters above zero.
# Usage: observe-testpmd.sh RXD_TESTPMD
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/hugepages.sh
. "$here/../lib/hugepages.sh"
for t in dpdk-telemetry.py dpdk-dumpcap dpdk-proc-info; do
	command -v $t >/dev/null || { echo "SKIP: $t not installed (Debian package dpdk)"; exit 77; }
done
rxd_huge_reexec "$0" "$@"
prog=$1
dir=$(mktemp -d /tmp/rxd-observe.XXXXXX)
fail=0 spid='' cpid=''
checker=${RXD_ROCE_CHECK:-$here/../../../shared/tools/roce-check/roce-check}
tcp=$((20000 + $$ % 20000))
pfx=rxdobs$$

cleanup() {
	[ -n "$cpid" ] && kill "$cpid" 2>/dev/null
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "/var/run/dpdk/${pfx}s" "/var/run/dpdk/${pfx}c"
	rxd_huge_teardown
	rm -rf "$dir"
}
trap cleanup EXIT
rxd_huge_setup "$dir" 128

ok() { echo "PASS: $1"; }
bad() { echo "FAIL: $1"; fail=1; }

# A secondary process maps the primary's memory at the primary's
# addresses.  DPDK's default base (4 GiB) lies in ASan's shadow gap, so an
# ASan primary lands in its mmap area, where the secondary's own libraries
# may already be; 32 TiB is free in both.
base=
ldd "$prog" | grep -q libasan && base=--base-virtaddr=0x200000000000

eal() { # role prefix ip
	echo "-l 0-1 --no-pci -m 96 --file-prefix $pfx$2 $base" \
		"--vdev=net_memif0,role=$1,id=0,socket=$dir/m.sock,socket-abstract=no" \
		"--log-level=lib.eal:error --log-level=pmd.net.memif:error" \
		"-- --ip $3/24"
}

# tel CMD KEY...: the fields of the client's reply to CMD, one a line.
tel() {
	local cmd=$1
	shift
	echo "$cmd" | timeout 120 dpdk-telemetry.py -f "${pfx}c" | "$here/tel_field.py" "$@"
}

printf 'wait link 0 up 60\nlisten %s\nsleep 600\nquit\n' $tcp >"$dir/s.cmds"
printf 'wait link 0 up 60\nconnect 127.0.0.1 %s\nstart traffic write 4096 16\nsleep 600\nquit\n' \
	$tcp >"$dir/c.cmds"
# shellcheck disable=SC2046
"$prog" $(eal server s 10.0.0.1) --cmdline-file "$dir/s.cmds" >"$dir/s.out" 2>&1 &
spid=$!
for _ in $(seq 1200); do [ -S "$dir/m.sock" ] && break; sleep 0.1; done
# shellcheck disable=SC2046
"$prog" $(eal client c 10.0.0.2) --cmdline-file "$dir/c.cmds" >"$dir/c.out" 2>&1 &
cpid=$!
for _ in $(seq 1800); do grep -q "traffic started" "$dir/c.out" && break; sleep 0.1; done
grep -q "traffic started" "$dir/c.out" && ok "client traffic runs" || bad "client traffic did not start"

# Telemetry: the endpoints are listed, answer, and their counters move.
eps=$(echo / | timeout 120 dpdk-telemetry.py -f "${pfx}c" | "$here/tel_field.py")
for e in /rxd/ports /rxd/engines /rxd/qps /rxd/qp; do
	case " $eps " in *" $e "*) ok "telemetry lists $e" ;; *) bad "telemetry does not list $e" ;; esac
done
read -r qpn < <(tel /rxd/qps qpn)
read -r qtype < <(tel /rxd/qps type)
read -r qstate < <(tel /rxd/qps state)
[ "$qtype $qstate" = "RC RTS" ] && ok "/rxd/qps: QP $qpn RC RTS" || bad "/rxd/qps: QP '$qpn' is '$qtype $qstate'"
{ read -r tx1; read -r psn1; read -r st; } < <(tel "/rxd/qp,$qpn" tx_pkts sq_psn state)
{ read -r ptx1; read -r link; read -r drv; } < <(tel /rxd/ports tx_pkts link_up driver)
{ read -r loops1; read -r mode; } < <(tel /rxd/engines loops mode)
sleep 1
{ read -r tx2; read -r psn2; read -r win; } < <(tel "/rxd/qp,0,$qpn" tx_pkts sq_psn window_size)
read -r ptx2 < <(tel /rxd/ports,0 tx_pkts)
read -r loops2 < <(tel /rxd/engines,0 loops)
[ "$st" = RTS ] && ok "/rxd/qp,$qpn: state RTS, send window $win" || bad "/rxd/qp,$qpn: state '$st'"
[ "${tx2:-0}" -gt "${tx1:-0}" ] 2>/dev/null && ok "/rxd/qp tx_pkts grows: $tx1 -> $tx2" ||
	bad "/rxd/qp tx_pkts did not grow: '$tx1' -> '$tx2'"
[ "$psn1" != "$psn2" ] && ok "/rxd/qp sq_psn moves: $psn1 -> $psn2" || bad "/rxd/qp sq_psn stuck at '$psn1'"
[ "${ptx2:-0}" -gt "${ptx1:-0}" ] 2>/dev/null && [ "$link $drv" = "1 net_memif" ] &&
	ok "/rxd/ports: net_memif link up, tx_pkts $ptx1 -> $ptx2" ||
	bad "/rxd/ports: link '$link' driver '$drv' tx_pkts '$ptx1' -> '$ptx2'"
[ "${loops2:-0}" -gt "${loops1:-0}" ] 2>/dev/null && [ "$mode" = lcore ] &&
	ok "/rxd/engines: lcore engine, loops $loops1 -> $loops2" ||
	bad "/rxd/engines: mode '$mode' loops '$loops1' -> '$loops2'"
read -r none < <(tel /rxd/qp,16777215 qpn)
[ "$none" = null ] && ok "/rxd/qp of no QP answers null" || bad "/rxd/qp of no QP answers '$none'"

# dpdk-dumpcap: a secondary process captures the client's port.
timeout 120 dpdk-dumpcap --file-prefix="${pfx}c" -i 0 -c 200 -w "$dir/d.pcap" -P -q \
	>"$dir/dumpcap.out" 2>&1
n=$(python3 - "$dir/d.pcap" <<'PY'
import struct, sys
# Count UDP frames to port 4791 (IPv4, no VLAN) in a classic pcap file.
data = open(sys.argv[1], 'rb').read()
off, n = 24, 0
while off + 16 <= len(data):
    incl = struct.unpack_from('<I', data, off + 8)[0]
    f = data[off + 16:off + 16 + incl]
    if len(f) >= 38 and f[12:14] == b'\x08\x00' and f[23] == 17:
        ihl = (f[14] & 15) * 4
        n += struct.unpack_from('!H', f, 14 + ihl + 2)[0] == 4791
    off += 16 + incl
print(n)
PY
)
[ "${n:-0}" -ge 100 ] && ok "dpdk-dumpcap captured $n RoCE frames" ||
	{ bad "dpdk-dumpcap captured ${n:-no} RoCE frames"; sed 's/^/    | /' "$dir/dumpcap.out"; }
if [ -x "$checker" ]; then
	if "$checker" --no-scapy --min-packets 100 "$dir/d.pcap" >"$dir/rc.out" 2>&1; then
		ok "roce-check accepts the capture: $(tail -1 "$dir/rc.out")"
	else
		bad "roce-check rejects the capture"; tail -5 "$dir/rc.out" | sed 's/^/    | /'
	fi
else
	echo "SKIP: roce-check not found ($checker); capture checked by frame count only"
fi

# dpdk-proc-info: a secondary process reads the port's statistics.
timeout 120 dpdk-proc-info --file-prefix "${pfx}c" --log-level=lib.eal:error -- --stats >"$dir/pi.out" 2>&1
rx=$(awk '$1 == "RX-packets:" { print $2; exit }' "$dir/pi.out")
tx=$(awk '$1 == "TX-packets:" { print $2; exit }' "$dir/pi.out")
[ "${rx:-0}" -gt 0 ] && [ "${tx:-0}" -gt 0 ] && ok "dpdk-proc-info: port 0 RX-packets $rx, TX-packets $tx" ||
	{ bad "dpdk-proc-info: RX-packets '$rx' TX-packets '$tx'"; tail -20 "$dir/pi.out" | sed 's/^/    | /'; }

kill "$cpid"
wait "$cpid"
cpid=''
grep -q "traffic stopped" "$dir/c.out" && ok "client stopped its traffic cleanly" || bad "client did not stop cleanly"
if [ $fail != 0 ]; then
	echo "--- server"; tail -20 "$dir/s.out"; echo "--- client"; tail -20 "$dir/c.out"
fi
exit $fail
