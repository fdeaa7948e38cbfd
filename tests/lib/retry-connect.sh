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
# Standard output, standard error and the exit status are the last
# attempt's; a note on standard error says when it took more than one.
on=${RXD_RETRY_ON:-"Couldn't connect"}
err=$(mktemp /tmp/rxd-retry.XXXXXX)
trap 'rm -f "$err"' EXIT
for try in 1 2 3 4 5; do
	out=$("$@" 2>"$err")
	rc=$?
	[ $rc = 0 ] && break
	printf '%s\n' "$out" | cat - "$err" | grep -Eq "$on" ||
		break
	sleep 1
done
printf '%s\n' "$out"
cat "$err" >&2
[ "$try" = 1 ] || echo "retry-connect: $1 started $try times" >&2
exit $rc
