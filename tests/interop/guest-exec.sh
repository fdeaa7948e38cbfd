#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# guest-exec.sh - run a shell command in the interop guest.
#
# Usage:
#   guest-exec.sh [-t SEC] CMD...     run CMD, print its output (stdout and
#                                     stderr together), exit with its status
#   guest-exec.sh -b CMD...           start CMD in the background, print a job id
#   guest-exec.sh -w [-t SEC] JOB     wait for a background job: output, status
#   guest-exec.sh -o JOB              print a job's output so far
#   guest-exec.sh -k JOB              kill a job (its whole process group)
#
# CMD is joined with spaces and run by /bin/sh in the guest, as root, in /root,
# with $RXDG_GID_INDEX (rxe0's IPv4 GID index) and $RXDG_IP set. The timeout
# (default $RXD_INTEROP_EXEC_TIMEOUT s) kills the job in the guest and exits
# with 124 (-w only gives up waiting, the job keeps running). Status 125 means
# the harness itself failed (no guest, ...). Expect about half a second of
# overhead per call: the guest polls a spool on a 9p share.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
	sed -n '6,12p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 125
}
fail() {
	printf '[interop] guest-exec: %s\n' "$*" >&2
	exit 125
}

mode=run timeout=$RXD_INTEROP_EXEC_TIMEOUT
while getopts "bwokt:h" opt; do
	case "$opt" in
	b) mode="bg" ;;
	w) mode="wait" ;;
	o) mode="peek" ;;
	k) mode="kill" ;;
	t) timeout=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
case "$timeout" in '' | *[!0-9.]*) fail "bad timeout: $timeout" ;; esac

JOBS=$RXD_INTEROP_SHARE/jobs
alive() { rxi_qemu_pid >/dev/null; }

submit() { # CMD -> prints job id
	local id tmp
	alive || fail "guest is not running (guest-start.sh)"
	[ -s "$RXD_INTEROP_SHARE/ready" ] || fail "guest is not ready yet"
	id=$(date +%s%N)-$$-$RANDOM
	tmp=$RXD_INTEROP_SHARE/spool/.$id.tmp
	printf '%s\n' "$1" >"$tmp" || fail "cannot write to the spool"
	mv "$tmp" "$RXD_INTEROP_SHARE/spool/$id.job" || fail "cannot write to the spool"
	echo "$id"
}

# Wait for job $1 up to $2 seconds, copying its output to stdout as it grows;
# return the job's status, or 124 on timeout.
collect() {
	local id=$1 end shown=0 size
	end=$(rxi_us_after "$2")
	flush() {
		size=$(stat -c %s "$JOBS/$id/out" 2>/dev/null) || return 0
		if [ "$size" -gt "$shown" ]; then
			tail -c +"$((shown + 1))" "$JOBS/$id/out" | head -c "$((size - shown))"
			shown=$size
		fi
	}
	while [ ! -e "$JOBS/$id/rc" ]; do
		flush
		if [ "$(rxi_us)" -ge "$end" ]; then
			printf '[interop] guest-exec: timeout after %s s (job %s)\n' "$2" "$id" >&2
			return 124
		fi
		alive || fail "guest stopped while job $id was running"
		sleep 0.1
	done
	flush
	return "$(cat "$JOBS/$id/rc")"
}

kill_job() { # ID: TERM the job's process group, KILL it 2 s later if needed
	local id=$1 pid i
	for ((i = 0; i < 50; i++)); do
		pid=$(cat "$JOBS/$id/pid" 2>/dev/null) && [ -n "$pid" ] && break
		[ -d "$JOBS/$id" ] || [ -e "$RXD_INTEROP_SHARE/spool/$id.job" ] || fail "no job $id"
		sleep 0.1
	done
	[ -n "${pid:-}" ] || fail "job $id has no pid yet"
	[ -e "$JOBS/$id/rc" ] && return 0
	"$0" -t 20 "kill -TERM -$pid 2>/dev/null; for i in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 -$pid 2>/dev/null || exit 0; sleep 0.2; done; kill -KILL -$pid 2>/dev/null; true" >/dev/null
}

case "$mode" in
run)
	id=$(submit "$*") || exit 125
	collect "$id" "$timeout"
	rc=$?
	if [ "$rc" = 124 ]; then kill_job "$id" || true; fi
	exit "$rc"
	;;
bg)
	submit "$*" || exit 125
	;;
wait)
	[ -d "$JOBS/$1" ] || [ -e "$RXD_INTEROP_SHARE/spool/$1.job" ] || fail "no job $1"
	collect "$1" "$timeout"
	;;
peek)
	[ -d "$JOBS/$1" ] || [ -e "$RXD_INTEROP_SHARE/spool/$1.job" ] || fail "no job $1"
	cat "$JOBS/$1/out" 2>/dev/null
	exit 0
	;;
kill)
	kill_job "$1"
	;;
esac
