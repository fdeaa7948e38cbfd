#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# ucx-fabric-interop.sh - Debian's unmodified UCX 1.13 and libfabric 1.17
# between rxd (compat libraries, net_af_packet on the lab's host port,
# 10.88.0.1) and rdma_rxe in the guest (10.88.0.11), in both roles:
# ucx_perftest at the UCT level over rc_verbs (put_bw, am_lat) and
# ud_verbs (am_lat, am_bw), at the UCP level tag_bw with
# UCX_TLS=rc_verbs,ud_verbs:aux, and fi_pingpong -p verbs -e msg and
# -p "verbs;ofi_rxm" -e rdm with data checks (-c).  The guest's image has
# neither: the packages are fetched on the host with apt-get download and
# installed in the guest at test time through the 9p share (the shared
# image stays as it is).  The tools' TCP side channels run over a kernel
# veth of the lab (10.88.0.254) and the guest's eth0.  rxd captures every
# frame; when ../shared/tools/roce-check exists each capture must pass it.
#
# Two things of the guest are set for UCX, each shown by a run of its own:
# - ucx_perftest's server takes the client's parameters, device name
#   included, so both ends need one name: the guest's rxe0 is renamed rxd0.
# - UCX 1.13 finds the destination GID of a UD receive by the RoCE packet
#   type in wc.sl (mlx5 and rxd fill it); rdma_rxe leaves 0, so the guest's
#   UCX reads the IPv4 GRH area as IPv6 and drops every UD packet.  One run
#   without UCX_UD_VERBS_ETH_DGID_CHECK=n in the guest must end in UCX's
#   "unhandled timeout error" (KNOWN); the other UD runs set it in the guest.
#
# Usage: ucx-fabric-interop.sh BUILD_DIR   (root; exit 0 ok, 1 failed, 77 skip)
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rxi_script_init "${1:?usage: ucx-fabric-interop.sh BUILD_DIR}"
H=$RXD_INTEROP_HERE
pkgs="ucx-utils libucx0 libfabric-bin libfabric1 libgomp1 libnuma1 libatomic1
 libpsm-infinipath1 libpsm2-2"
[ -e "$build/compat/librdmacm.so.1" ] || skip "no $build/compat/librdmacm.so.1"
command -v ucx_perftest >/dev/null || skip "ucx-utils not installed"
command -v fi_pingpong >/dev/null || skip "libfabric-bin not installed"
if [ ! -c /dev/infiniband/uverbs-rxd0 ]; then
	"$H/../../apps/rxd-setup/rxd-setup.sh" 1 >/dev/null 2>&1 ||
		skip "no /dev/infiniband/uverbs-rxd0 and rxd-setup failed"
fi
mkdir -p "$out"
rm -rf "$out/debs" && mkdir "$out/debs"
# shellcheck disable=SC2086
(cd "$out/debs" && apt-get download $pkgs) >"$out/debs.log" 2>&1 ||
	skip "cannot fetch the guest's packages (apt-get download: $out/debs.log)"

rxi_guest_up
mkdir -p "$RXD_INTEROP_SHARE/debs"
cp "$out/debs/"*.deb "$RXD_INTEROP_SHARE/debs/"
if ! "$H/guest-exec.sh" -t 600 "dpkg -i /mnt/rxd/debs/*.deb" \
	>"$out/dpkg.log" 2>&1; then
	echo "FAIL: the guest cannot install $pkgs"
	tail -15 "$out/dpkg.log" | sed 's/^/    | /'
	exit 1
fi
"$H/guest-exec.sh" -t 60 "rdma dev set rxe0 name rxd0" >"$out/rename.log" 2>&1 ||
	{ echo "FAIL: cannot rename the guest's rxe0"; exit 1; }
rxi_tools_veth

# guest_listens PORT: wait (up to 60 s) until the guest listens on TCP PORT.
guest_listens() {
	"$H/guest-exec.sh" -t 90 "i=0; until ss -Hltn 'sport = :$1' | grep -q .;
		do i=\$((i + 1)); [ \$i -lt 300 ] || exit 1; sleep 0.2; done"
}

# rxd_listens PORT PID: wait (up to 60 s) until something in the lab's
# namespace listens on TCP PORT, while PID runs.
rxd_listens() {
	for _ in $(seq 600); do
		rxi_ns ss -Hltn "sport = :$1" | grep -q . && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# pair NAME SIDE PORT CHECK "ENV" "GUEST_ENV" TOOL ARGS...: TOOL's server
# (ARGS, no address) on SIDE (guest or rxd) listening on TCP PORT, its
# client (ARGS and the server's kernel address) on the other side.  ENV
# (VAR=VALUE words) is set on both sides, GUEST_ENV in the guest only.
# Both must exit 0 and the client's log hold CHECK (an extended regular
# expression).  With RXI_KNOWN set (the reason) and RXI_KNOWN_SIGN (a
# regular expression) in the guest's log, a failure is KNOWN.
pair() {
	local name=$1 side=$2 port=$3 check=$4 env=$5 genv=$6 job pid rc grc
	shift 6
	local gs gc clog=$out/$name.guest.log
	# shellcheck disable=SC2086
	gs=$(printf '%q ' env $env $genv "$@")
	if [ "$side" = guest ]; then
		job=$("$H/guest-exec.sh" -b "$gs")
		guest_listens "$port" >/dev/null 2>&1
		# shellcheck disable=SC2086
		rxi_rxd_run "$name" env $env "$@" "$RXD_INTEROP_GUEST_IP" \
			>"$out/$name.rxd.log" 2>&1
		rc=$?
		"$H/guest-exec.sh" -t 90 -w "$job" >"$out/$name.guest.log" 2>&1
		grc=$?
		[ $grc -ne 124 ] || "$H/guest-exec.sh" -k "$job" >/dev/null 2>&1
		clog=$out/$name.rxd.log
	else
		# shellcheck disable=SC2086
		rxi_rxd_run "$name" env $env "$@" >"$out/$name.rxd.log" 2>&1 &
		pid=$!
		rxd_listens "$port" "$pid"
		gc="$gs$(printf '%q' "$kip")"
		"$H/guest-exec.sh" -t 90 "$gc" >"$out/$name.guest.log" 2>&1
		grc=$?
		wait "$pid"
		rc=$?
	fi
	if [ $rc -eq 0 ] && [ $grc -eq 0 ] && grep -Eq "$check" "$clog"; then
		echo "PASS: $name ($side serves): $(grep -Eh \
			-e "$final" -e '^1m ' "$clog" | tr -s ' ' | tail -1)"
		rxi_check_capture "$out/$name.pcapng"
	elif [ -n "${RXI_KNOWN:-}" ] &&
		grep -Eq "$RXI_KNOWN_SIGN" "$out/$name.guest.log"; then
		echo "KNOWN: $name ($side serves): $RXI_KNOWN; not counted"
		grep -Eh -m1 "$RXI_KNOWN_SIGN" "$out/$name.guest.log" |
			sed 's/^/    | /'
	else
		echo "FAIL: $name ($side serves): rxd exit $rc, guest exit $grc"
		grep -v '^[|+]' "$out/$name.rxd.log" | tail -12 | sed 's/^/    rxd   | /'
		grep -v '^[|+]' "$out/$name.guest.log" | tail -12 | sed 's/^/    guest | /'
		failed=1
	fi
}

ucx=13337 fab=47592 final='^Final: +[0-9]+ ' nodgid=UCX_UD_VERBS_ETH_DGID_CHECK=n
ucp="UCX_TLS=rc_verbs,ud_verbs:aux UCX_LOG_LEVEL=info"
uct="-d rxd0:1 -n 200 -w 10"
for side in guest rxd; do
	# shellcheck disable=SC2086
	{
	pair "ucx-rc-put-bw-$side" $side $ucx "$final" "" "" \
		ucx_perftest $uct -x rc_verbs -t put_bw
	pair "ucx-rc-am-lat-$side" $side $ucx "$final" "" "" \
		ucx_perftest $uct -x rc_verbs -t am_lat
	pair "ucx-ud-am-lat-$side" $side $ucx "$final" "" "$nodgid" \
		ucx_perftest $uct -x ud_verbs -t am_lat
	pair "ucx-ud-am-bw-$side" $side $ucx "$final" "" "$nodgid" \
		ucx_perftest $uct -x ud_verbs -t am_bw
	pair "ucp-tag-bw-$side" $side $ucx "ep_cfg\[[0-9]+\]: tag\(rc_verbs/rxd0:1\)" \
		"$ucp" "$nodgid" ucx_perftest -t tag_bw -n 200
	pair "fi-msg-$side" $side $fab "^1m +5 +=5 " "" "" \
		fi_pingpong -p verbs -e msg -c -I 5
	# rxd runs ofi_rxm with libfabric's default universe (a 65,536-entry
	# CQ); Soft-RoCE on Linux 6.1 (max_cqe 32767) cannot, fi_enable()
	# fails EINVAL there: the guest's side alone takes a smaller universe
	pair "fi-rdm-$side" $side $fab "^1m +5 +=5 " "" "FI_UNIVERSE_SIZE=8" \
		fi_pingpong -p "verbs;ofi_rxm" -e rdm -c -I 5
	}
done

# Why the guest's UCX needs the option: without it, its UD endpoint
# drops rxd's packets and times out (10 s here instead of UCX's 30 s).
# shellcheck disable=SC2086
RXI_KNOWN="rdma_rxe leaves the RoCE packet type out of wc.sl; UCX 1.13 then reads the DGID at the IPv6 offset of the GRH area and drops every UD packet" \
RXI_KNOWN_SIGN="unhandled timeout error" \
	pair "ucx-ud-dgid-check-guest" guest $ucx "$final" "UCX_UD_TIMEOUT=10s" "" \
	ucx_perftest $uct -x ud_verbs -t am_lat
[ -x "$checker" ] || echo "SKIP: roce-check not found ($checker); captures not checked"
echo "logs and captures: $out"
exit $failed
