#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# retry-connect.sh CMD...: run the client side of a verbs tool (perftest,
# the ibv_*_pingpong examples; CMD may start with env) again, up to 5
# times a second apart, while it finds no server.  Over rxd a server
# listens only once its memif link is up, which is when its client's
# comes up too, and these clients do not retry their TCP connection.
# Standard output, standard error and the exit status are the last
# attempt's; a note on standard error says when it took more than one.
err=$(mktemp /tmp/rxd-retry.XXXXXX)
trap 'rm -f "$err"' EXIT
for try in 1 2 3 4 5; do
	out=$("$@" 2>"$err")
	rc=$?
	[ $rc = 0 ] && break
	printf '%s\n' "$out" | cat - "$err" | grep -q "Couldn't connect" ||
		break
	sleep 1
done
printf '%s\n' "$out"
cat "$err" >&2
[ "$try" = 1 ] || echo "retry-connect: $1 started $try times" >&2
exit $rc
