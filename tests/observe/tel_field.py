#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Print fields of one reply of dpdk-telemetry.py (read on stdin).

Usage: echo /rxd/qp,17 | dpdk-telemetry.py -f PREFIX | tel_field.py KEY...
Prints one line per KEY: the value, an array's values separated by
blanks (without a KEY: the whole reply, for an array such as "/"'s), "null" when the reply is null; exits 1 when the input is not one
JSON reply or a KEY is missing (the message says which).
"""
import json
import sys


def main():
    lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
    if len(lines) != 1:
        sys.exit("tel_field: expected one JSON reply, got %d lines: %r"
                 % (len(lines), lines[:3]))
    reply = json.loads(lines[0])
    if len(reply) != 1:
        sys.exit("tel_field: expected one command in the reply: %r" % reply)
    body = next(iter(reply.values()))
    if len(sys.argv) == 1:
        print(show(body))
    for key in sys.argv[1:]:
        if body is None:
            print("null")
            continue
        if not isinstance(body, dict) or key not in body:
            sys.exit("tel_field: no %r in %r" % (key, body))
        print(show(body[key]))


def show(value):
    """A value as printed: an array's values separated by blanks."""
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "null" if value is None else str(value)


if __name__ == "__main__":
    main()
