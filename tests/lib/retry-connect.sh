#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# retry-connect.sh CMD...: run the client side of a verbs tool (perftest,
# the ibv_*_pingpong examples; CMD may start with env) again, up to 5
# times a second apart, while it finds no server.  Over rxd a server
# listens only once its memif link is up, which is when its client's
# comes up too, and these clients do not retry their TCP connection.
# RXD_RETRY_ON (an extended regular expression, default "Couldn't
# connect") names the output that means "no server yet": rsockets'
# rstream, riostream and rcopy print "rconnect:" or "rpoll:" when their
# REQ is refused by a server that has not called rlisten yet, as a TCP
# client gets ECONNREFUSED.
# Standard error streams as it comes, every attempt's; standard output and
# the exit status are the last attempt's, and a note on standard error
# says when it took more than one.  Killed (TERM, INT: a test's timeout),
# it kills the attempt and still prints what it wrote.
on=${RXD_RETRY_ON:-"Couldn't connect"}
dir=$(mktemp -d /tmp/rxd-retry.XXXXXX)
pid=
stop() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	wait
	cat "$dir/out"
	rm -rf "$dir"
	exit 143
}
trap stop TERM INT
for try in 1 2 3 4 5; do
	# in the background so that a signal is handled at once; standard
	# input stays the caller's; tail passes standard error on as it comes
	"$@" <&0 >"$dir/out" 2>"$dir/err" &
	pid=$!
	tail -q -s 0.1 -n +1 -f --pid="$pid" "$dir/err" >&2 &
	wait "$pid"
	rc=$?
	pid=
	wait
	[ $rc = 0 ] && break
	cat "$dir/out" "$dir/err" | grep -Eq "$on" || break
	sleep 1
done
cat "$dir/out"
rm -rf "$dir"
[ "$try" = 1 ] || echo "retry-connect: $1 started $try times" >&2
exit $rc
