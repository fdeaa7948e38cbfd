#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Draw both flows' rates over time from the congestion test's output.

Reads the RATE lines cc-switch printed (every 100 ms: time, bytes served
per ingress port, queue depth then) from congestion-off.txt and congestion-on.txt, as kept
by `RXD_CC_OUT=DIR meson test -C build congestion`, and writes an SVG
with one panel per phase: each flow's served rate, and the queue depth
at each report in grey on a scale of its own (no plotting package
needed).

usage: plot-congestion.py DIR OUT.svg
"""
import sys

W, H, PAD = 640, 220, 48
COLOURS = ("#1f77b4", "#d62728")


def rates(path):
    """[(t_s, mbps_flow0, mbps_flow1, queue)] between successive RATE
    lines."""
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts[:1] == ["RATE"] and len(parts) >= 6:
                rows.append([int(x) for x in parts[1:4] + parts[5:6]])
    out = []
    for (t0, a0, b0, _), (t1, a1, b1, q) in zip(rows, rows[1:]):
        dt = (t1 - t0) / 1000
        if dt > 0:
            out.append((t1 / 1000, (a1 - a0) * 8 / dt / 1e6,
                        (b1 - b0) * 8 / dt / 1e6, q))
    return out


def panel(title, data, top, ymax):
    tmax = max((r[0] for r in data), default=1)
    qmax = max((r[3] for r in data), default=1) or 1
    x = lambda t: PAD + (W - 2 * PAD) * t / tmax
    y = lambda v: top + H - PAD / 2 - (H - PAD) * min(v, ymax) / ymax
    svg = [f'<text x="{PAD}" y="{top + 16}" font-size="14">{title}</text>',
           f'<line x1="{PAD}" y1="{y(0)}" x2="{W - PAD}" y2="{y(0)}" '
           'stroke="black"/>',
           f'<line x1="{PAD}" y1="{y(0)}" x2="{PAD}" y2="{y(ymax)}" '
           'stroke="black"/>',
           f'<text x="4" y="{y(ymax) + 4}" font-size="10">{ymax:.0f}</text>',
           f'<text x="4" y="{y(0)}" font-size="10">0</text>',
           f'<text x="{W - PAD}" y="{y(0) + 14}" font-size="10">'
           f'{tmax:.1f} s</text>']
    pts = " ".join(f"{x(r[0]):.1f},{y(r[3] * ymax / qmax):.1f}" for r in data)
    svg.append(f'<polyline fill="none" stroke="#999999" points="{pts}"/>')
    svg.append(f'<text x="{W - PAD - 120}" y="{top + 44}" font-size="11" '
               f'fill="#999999">queue (0-{qmax} frames)</text>')
    for i in (0, 1):
        pts = " ".join(f"{x(r[0]):.1f},{y(r[1 + i]):.1f}" for r in data)
        svg.append(f'<polyline fill="none" stroke="{COLOURS[i]}" '
                   f'points="{pts}"/>')
        svg.append(f'<text x="{W - PAD - 120}" y="{top + 16 + 14 * i}" '
                   f'font-size="11" fill="{COLOURS[i]}">flow {i} '
                   '(Mbit/s)</text>')
    return svg


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    phases = [("DCQCN off", rates(f"{sys.argv[1]}/congestion-off.txt")),
              ("DCQCN on", rates(f"{sys.argv[1]}/congestion-on.txt"))]
    ymax = max((max(r[1], r[2]) for _, d in phases for r in d), default=1)
    ymax = ymax or 1
    body = []
    for i, (title, data) in enumerate(phases):
        body += panel(title, data, i * H, ymax * 1.1)
    with open(sys.argv[2], "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" '
                f'height="{2 * H}" font-family="sans-serif">\n')
        f.write("\n".join(body))
        f.write("\n</svg>\n")


if __name__ == "__main__":
    main()
