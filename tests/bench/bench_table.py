#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench_table.py DIR ROUNDS HAVE_PERFTEST: the table of run-bench.sh.

Reads the raw outputs run-bench.sh left in DIR (NAME.ROUND.s/.c) and
prints, in Markdown, rxd's figures next to the machine's limits measured
in the same rounds: each cell is the median over the rounds with the
range in brackets; a ratio is paired by round (rxd's figure of round r
over the limit's of round r), and the table shows the median of those
per-round ratios and the best of them: on a shared machine whose slow
phases come and go, the best round is the one where both sides ran
undisturbed.  A figure missing from every round prints as "-" and makes
the exit status 1.

Usage: bench_table.py DIR ROUNDS HAVE_PERFTEST HAVE_MPI
"""
import json
import os
import re
import statistics
import sys

PMTU = 4096                   # path MTU of the bandwidth runs (MTU 4200)
PMTU_1K = 1024                # at memif's default MTU 1500
MIB = 1 << 20

missing = []


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def kv(text, key):
    """The first KEY=VALUE of a memif-raw or memcpy-bench line."""
    m = re.search(r"\b%s=(-?[0-9.]+)" % re.escape(key), text)
    return float(m.group(1)) if m else None


def json_value(text, key):
    """KEY of the last JSON row rxd-perf printed."""
    rows = [l for l in text.splitlines() if l.startswith("{")]
    return json.loads(rows[-1]).get(key) if rows else None


def perftest_column(text, size, col):
    """Column COL of perftest's result row for SIZE."""
    for line in text.splitlines():
        f = line.split()
        if len(f) > col and f[0] == str(size):
            try:
                return float(f[col])
            except ValueError:
                continue
    return None


class Figure:
    """One measure over the rounds: median and range."""

    def __init__(self, name, values, scale=1.0):
        self.by_round = [None if v is None else v * scale for v in values]
        vals = [v for v in self.by_round if v is not None]
        self.med = statistics.median(vals) if vals else None
        self.lo = min(vals) if vals else None
        self.hi = max(vals) if vals else None
        if not vals:
            missing.append(name)

    def show(self, unit, digits=2):
        if self.med is None:
            return "-"
        return (f"{self.med:.{digits}f}{unit} "
                f"[{self.lo:.{digits}f}-{self.hi:.{digits}f}]")


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}"


def ratios(a, b, lower_is_better=False):
    """Median of the per-round ratios a/b | the best round's ratio."""
    per = [x / y for x, y in zip(a.by_round, b.by_round)
           if x is not None and y]
    if not per:
        return "- | -"
    best = min(per) if lower_is_better else max(per)
    return f"{statistics.median(per):.2f} | {best:.2f}"


def mpi_us(text, what):
    """The time in us of one round trip of SIZE (or of the allreduce)."""
    pat = (r"^allreduce .*: ok, ([0-9.]+) us each$" if what == "allreduce"
           else r"^pair 0-1 size %s: \d+ round trips, ([0-9.]+) us each, "
           r"[0-9.]+ MB/s$" % what)
    m = re.search(pat, text, re.M)
    return float(m.group(1)) if m else None


def mpi_table(d, rs):
    """Open MPI over UCX over rxd against Open MPI over kernel TCP."""
    print()
    print("| mpi-pingpong, 2 ranks, same rounds | over rxd (UCX rc_verbs) "
          "| over kernel TCP (ob1, lo) | TCP time / rxd time | best round "
          "| goal |")
    print("|---|---|---|---|---|---|")
    for what in ("8", "4096", "65536", "1048576", "8388608", "allreduce"):
        fig = {how: Figure(f"{name} {what}", [mpi_us(read(
            f"{d}/{name}.{r}.c"), what) for r in rs])
            for how, name in (("rxd", "mpi"), ("tcp", "mpitcp"))}
        label = ("allreduce of 4096 doubles" if what == "allreduce"
                 else f"round trip, {what} B")
        print(f"| {label} | {fig['rxd'].show(' us')} | "
              f"{fig['tcp'].show(' us')} | "
              f"{ratios(fig['tcp'], fig['rxd'])} | > 1 |")


def main():
    d, rounds = sys.argv[1], int(sys.argv[2])
    have_perftest = sys.argv[3] == "true"
    have_mpi = len(sys.argv) > 4 and sys.argv[4] == "true"
    rs = range(1, rounds + 1)

    def per_round(name, side, get, scale=1.0):
        return Figure(name, [get(read(f"{d}/{name}.{r}.{side}")) for r in rs],
                      scale)

    gbit = MIB * 8 / 1e9       # MB/s (2^20 B/s) to Gbit/s

    def raw4k(r):
        """The fastest way memif carried 4154-byte frames in round r."""
        got = [kv(read(f"{d}/{n}.{r}.s"), "fps")
               for n in ("raw-rate4k", "raw-rate4kc", "raw-rate4kr")]
        got = [g for g in got if g is not None]
        return max(got) if got else None

    raw4k_fps = Figure("raw-rate4k", [raw4k(r) for r in rs], 1e-6)
    ceiling = Figure("raw-rate4k", [raw4k(r) for r in rs], PMTU * 8 / 1e9)
    raw_fps = per_round("raw-rate", "s", lambda t: kv(t, "fps"), 1e-6)
    ceiling_1k = per_round("raw-rate", "s", lambda t: kv(t, "fps"),
                           PMTU_1K * 8 / 1e9)
    bw_1k = {t: per_round(t + "1k", "c",
                          lambda x: json_value(x, "bw_average"), gbit)
             for t in ("write_bw", "read_bw", "send_bw")}
    half_rtt = per_round("raw-rtt", "c", lambda t: kv(t, "median_us"), 0.5)
    mc64k = Figure("memcpy 64 KiB", [kv(read(f"{d}/memcpy.{r}").split(
        "\n")[0], "gbytes_per_s") for r in rs])
    mc4m = Figure("memcpy 4 MiB", [kv(read(f"{d}/memcpy.{r}").split(
        "\n")[-2] if read(f"{d}/memcpy.{r}") else "", "gbytes_per_s")
        for r in rs])
    rc64k = Figure("rxd_copy 64 KiB", [kv(read(f"{d}/rxdcopy.{r}").split(
        "\n")[0], "gbytes_per_s") for r in rs])
    rc4m = Figure("rxd_copy 4 MiB", [kv(read(f"{d}/rxdcopy.{r}").split(
        "\n")[-2] if read(f"{d}/rxdcopy.{r}") else "", "gbytes_per_s")
        for r in rs])
    bw = {t: per_round(t, "c", lambda x: json_value(x, "bw_average"), gbit)
          for t in ("write_bw", "read_bw", "send_bw")}
    copy = per_round("write_bw", "c", lambda x: json_value(x, "bw_average"),
                     MIB / 1e9)
    rate = per_round("msg_rate", "c", lambda x: json_value(x, "msg_rate_mpps"))
    lat = {t: per_round(t, "c", lambda x: json_value(x, "t_typical_usec"))
           for t in ("send_lat", "write_lat")}
    scale1 = per_round("scale1", "c",
                       lambda x: json_value(x, "msg_rate_mpps"))
    scale2 = per_round("scale2", "c",
                       lambda x: json_value(x, "msg_rate_mpps"))
    shard2 = per_round("shard2", "c",
                       lambda x: json_value(x, "msg_rate_mpps"))
    shard_bw = {n: per_round(f"shard{n}bw", "c",
                             lambda x: json_value(x, "bw_average"), gbit)
                for n in (1, 2)}
    handoff = per_round("handoff", "c", lambda t: kv(t, "ns_per_frame"))
    per_msg = per_round("msg_rate", "c",
                        lambda x: 1e3 / v if (v := json_value(
                            x, "msg_rate_mpps")) else None)
    cores = len(os.sched_getaffinity(0))
    mem = read(f"{d}/mem")
    qp_bytes = re.search(r"^\s*total\s+(\d+)", mem, re.M)
    wqe = re.search(r"per send WQE: .*= (\d+)", mem)

    w = bw["write_bw"]
    for line in read(f"{d}/cpu").splitlines():
        print(f"{line}  ")
    print(f"\nMedians of {rounds} rounds [range]; ratios paired by round: "
          "the median of the per-round ratios and the best round's.\n")
    print("| target | rxd | machine, same rounds | ratio | best-round ratio "
          "| goal |")
    print("|---|---|---|---|---|---|")
    names = (("write_bw", "RDMA WRITE"), ("read_bw", "RDMA READ"),
             ("send_bw", "SEND"))
    for t, name in names:
        print(f"| 1. {name} 64 KiB, path MTU 4096 | {bw[t].show(' Gbit/s')} "
              f"| memif, 4154 B frames: {raw4k_fps.show(' Mfps')} = "
              f"{ceiling.show(' Gbit/s')} of payload | "
              f"{ratios(bw[t], ceiling)} | >= 0.80 |")
    for t, name in names:
        print(f"| 1. {name} 64 KiB, path MTU 1024 | "
              f"{bw_1k[t].show(' Gbit/s')} | memif, 1082 B frames: "
              f"{raw_fps.show(' Mfps')} = {ceiling_1k.show(' Gbit/s')} of "
              f"payload | {ratios(bw_1k[t], ceiling_1k)} | >= 0.80 |")
    print(f"| 1. WRITE payload, GB/s | {copy.show(' GB/s')} | one core's "
          f"memcpy: 64 KiB {mc64k.show(' GB/s')}, 4 MiB "
          f"{mc4m.show(' GB/s')}; rxd_copy: 64 KiB {rc64k.show(' GB/s')}, "
          f"4 MiB {rc4m.show(' GB/s')} | {ratios(copy, mc4m)} | - |")
    for t, name in (("send_lat", "SEND"), ("write_lat", "WRITE")):
        print(f"| 2. {name} latency 8 B, typical | {lat[t].show(' us')} | "
              f"memif 64 B round trip / 2: {half_rtt.show(' us')} | "
              f"{ratios(lat[t], half_rtt, True)} | <= 2.5 x |")
    print(f"| 3. RDMA WRITE 64 B message rate | {rate.show(' M/s', 3)} | "
          f"memif 1082 B frames: {raw_fps.show(' Mfps')} | "
          f"{ratios(rate, raw_fps)} | >= 0.40 |")
    print(f"| 4. 2 QPs, 2 engines (one a port), 64 B message rate, "
          f"{cores} cores | {scale2.show(' M/s', 3)} | one engine for both "
          f"ports: {scale1.show(' M/s', 3)} | "
          f"{ratios(scale2, scale1)} | scales |")
    if None not in (rate.med, handoff.med, per_msg.med):
        model = 2 * rate.med / (1 + handoff.med / per_msg.med)
        best = 2 * rate.hi / (1 + handoff.lo / per_msg.lo)
        print(f"| 4. modelled: 2 QPs on 2 engines with a core each, every "
              f"frame handed off once: 2 x rate / (1 + hand-off / time per "
              f"WRITE) | {model:.3f} M/s | one engine with its core (row 3): "
              f"{rate.show(' M/s', 3)} | {ratio(model, rate.med)} | "
              f"{ratio(best, rate.hi)} | scales |")
    print(f"| 4. 2 QPs, 2 engines sharing each port (engines_per_port "
          f"2), 64 B message rate, {cores} cores | "
          f"{shard2.show(' M/s', 3)} | one engine for both ports: "
          f"{scale1.show(' M/s', 3)} | {ratios(shard2, scale1)} | "
          "measured |")
    print(f"| 4. 2 QPs, 64 KiB WRITE bandwidth, 2 engines sharing each "
          f"port | {shard_bw[2].show(' Gbit/s')} | one engine for both "
          f"ports: {shard_bw[1].show(' Gbit/s')} | "
          f"{ratios(shard_bw[2], shard_bw[1])} | measured |")
    if None not in (rate.med, handoff.med, per_msg.med):
        for n in (2, 4, 8):
            # a frame lands on its owner's queue with probability 1/n
            share = (n - 1) / n * handoff.med / per_msg.med
            print(f"| 4. modelled: {n} engines on one port, a core each, "
                  f"{n - 1}/{n} of frames handed off once: {n} x rate / "
                  f"(1 + {n - 1}/{n} x hand-off / time per WRITE) | "
                  f"{n * rate.med / (1 + share):.3f} M/s | one engine "
                  f"with its core (row 3): {rate.show(' M/s', 3)} | "
                  f"{ratio(n * rate.med / (1 + share), rate.med)} | - | "
                  "model |")
    print(f"| 4. hand-off of a frame between two engines | "
          f"{handoff.show(' ns', 1)} | time per 64 B WRITE at rxd's message rate: "
          f"{per_msg.show(' ns', 0)} | {ratios(handoff, per_msg, True)} "
          f"| measured |")
    print(f"| 5. memory per QP, default depths | "
          f"{qp_bytes.group(1) + ' B' if qp_bytes else '-'}; "
          f"{wqe.group(1) + ' B' if wqe else '-'} per send WQE | - | - | "
          "- | reported |")
    if not qp_bytes:
        missing.append("show mem")
    if have_perftest:
        def pt_bw(name):
            return per_round(name, "c",
                             lambda t: perftest_column(t, 65536, 3), gbit)
        pl = per_round("ib_send_lat", "c",
                       lambda t: perftest_column(t, 8, 4))
        print()
        print("| Debian's perftest on rxd, same rounds | perftest | rxd-perf "
              "| memif payload rate | perftest / memif | best rounds |")
        print("|---|---|---|---|---|---|")
        for t, pmtu, mine, lim in (
                ("ib_write_bw", 4096, w, ceiling),
                ("ib_read_bw", 4096, bw["read_bw"], ceiling),
                ("ib_send_bw", 4096, bw["send_bw"], ceiling),
                ("ib_write_bw1k", 1024, bw_1k["write_bw"], ceiling_1k),
                ("ib_read_bw1k", 1024, bw_1k["read_bw"], ceiling_1k),
                ("ib_send_bw1k", 1024, bw_1k["send_bw"], ceiling_1k)):
            pt = pt_bw(t)
            print(f"| {t.replace('1k', '')} -s 65536 (path MTU {pmtu}), BW "
                  f"average | {pt.show(' Gbit/s')} | "
                  f"{mine.show(' Gbit/s')} | {lim.show(' Gbit/s')} | "
                  f"{ratios(pt, lim)} |")
        print(f"| send_lat -s 8, t_typical | {pl.show(' us')} | "
              f"{lat['send_lat'].show(' us')} | half round trip "
              f"{half_rtt.show(' us')} | {ratios(pl, half_rtt, True)} |")
    if have_mpi:
        mpi_table(d, rs)
    if missing:
        print(f"\nmissing: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
