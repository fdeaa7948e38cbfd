#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check rxd-perf's result rows: perftest's table or --json lines.

  check_rows.py table bw|lat FILE BYTES ITERS
  check_rows.py json bw|lat FILE BYTES ITERS

BYTES is one size or "all" (-a: 2, 4, ... 8388608).  A table must have
perftest's column titles and rows of as many numeric fields (5 for BW, 9
for latency) with the expected sizes and iteration counts, and numbers
that make sense (positive rates; min <= typical <= max, p99 <= p99.9 <=
max).  JSON output must be one object per line with the same facts.
Prints the rows it checked; exits 1 on the first problem.
"""
import json
import sys

BW_TITLES = ["#bytes", "#iterations", "BW", "peak[MB/sec]", "BW",
             "average[MB/sec]", "MsgRate[Mpps]"]
LAT_TITLES = ["#bytes", "#iterations", "t_min[usec]", "t_max[usec]",
              "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]", "99%",
              "percentile[usec]", "99.9%", "percentile[usec]"]
COLUMNS = {"bw": 5, "lat": 9}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def sizes_of(arg):
    if arg == "all":
        return [1 << s for s in range(1, 24)]
    return [int(arg)]


def check_bw(row):
    size, iters, peak, avg, rate = row
    if avg <= 0 or rate <= 0 or peak < 0:
        fail("BW row %s: average and message rate must be positive" % row)
    return int(size), int(iters)


def check_lat(row):
    size, iters, t_min, t_max, typ, avg, stdev, p99, p999 = row
    if not (0 < t_min <= typ <= t_max and t_min <= avg <= t_max):
        fail("latency row %s: min/typical/avg/max out of order" % row)
    if not (t_min <= p99 <= p999 <= t_max) or stdev < 0:
        fail("latency row %s: percentiles out of order" % row)
    return int(size), int(iters)


def table_rows(kind, text):
    lines = text.splitlines()
    titles = BW_TITLES if kind == "bw" else LAT_TITLES
    starts = [i for i, l in enumerate(lines)
              if l.replace("Gb/sec", "MB/sec").split() == titles]
    if len(starts) != 1:
        fail("expected one %s table header, found %d" % (kind, len(starts)))
    rows = []
    for line in lines[starts[0] + 1:]:
        if line.startswith("-----"):
            break
        fields = line.split()
        if len(fields) != COLUMNS[kind]:
            fail("row %r has %d columns, perftest has %d" %
                 (line, len(fields), COLUMNS[kind]))
        try:
            rows.append([float(f) for f in fields])
        except ValueError:
            fail("row %r is not all numbers" % line)
    return rows


def json_rows(kind, text):
    keys = {"bw": ["bytes", "iterations", "bw_peak", "bw_average",
                   "msg_rate_mpps"],
            "lat": ["bytes", "iterations", "t_min_usec", "t_max_usec",
                    "t_typical_usec", "t_avg_usec", "t_stdev_usec",
                    "p99_usec", "p99_9_usec"]}[kind]
    rows = []
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            fail("not JSON: %r (%s)" % (line, e))
        for k in keys + ["test", "side", "qp_stats"]:
            if k not in obj:
                fail("JSON row lacks %r: %s" % (k, line))
        if not isinstance(obj["qp_stats"].get("tx_pkts"), int):
            fail("JSON row's qp_stats has no tx_pkts count: %s" % line)
        rows.append([float(obj[k]) for k in keys])
    return rows


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in ("table", "json") or \
            sys.argv[2] not in COLUMNS:
        fail("usage: check_rows.py table|json bw|lat FILE BYTES ITERS")
    form, kind, path, want_sizes, want_iters = sys.argv[1:]
    with open(path) as f:
        text = f.read()
    rows = (table_rows if form == "table" else json_rows)(kind, text)
    sizes = sizes_of(want_sizes)
    if len(rows) != len(sizes):
        fail("%d rows, expected %d" % (len(rows), len(sizes)))
    for row, size in zip(rows, sizes):
        got_size, got_iters = (check_bw if kind == "bw" else check_lat)(row)
        if got_size != size or got_iters != int(want_iters):
            fail("row %s: expected %d bytes x %s iterations" %
                 (row, size, want_iters))
    print("  %d %s row(s) of %d columns OK, e.g. %s" %
          (len(rows), form, COLUMNS[kind], rows[-1]))


main()
