#!/usr/bin/env python3
"""An SVG bar chart of a strata-benchmarks run: the median time of each contender as a ratio of raw
SQLite C, per workload, on a log scale (so 1.2x and 12x both read). Standard library only.

    python3 Scripts/chart.py Results/2026-11-25-linux-epyc-2core.json > Results/2026-11-25-linux-epyc-2core.svg
"""
import json
import math
import sys
from xml.sax.saxutils import escape

COLORS = {"raw": "#888888", "raw-classes": "#555555", "grdb-record": "#d9822b", "grdb-codable": "#e3a869", "grdb-optimized": "#b35c00",
          "strata": "#2b6cb0", "strata-prefetch": "#2b6cb0", "strata-lazy": "#63a4e0"}


def main():
    run = json.load(open(sys.argv[1]))
    workloads = run["workloads"]
    bar, gap, left, top, width = 16, 18, 190, 60, 560
    rows = sum(len(w["results"]) for w in workloads)
    height = top + rows * bar + len(workloads) * gap + 50
    top_ratio = max(r["medianRatioToRaw"] for w in workloads for r in w["results"])
    scale = width / math.log10(max(top_ratio, 2) * 1.2)

    def x(ratio):
        return left + max(0.0, math.log10(max(ratio, 1.0))) * scale

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 250}" height="{height}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="22" font-size="15" font-weight="bold">Median time as a multiple of raw SQLite C (log scale; lower is better)</text>',
           f'<text x="10" y="42" fill="#555">{escape(run["date"][:10])}, {escape(run["machine"])}, {run["cores"]} cores, SQLite {escape(run["sqliteVersion"])}, {run["rounds"]} rounds</text>']
    for tick in [1, 2, 5, 10, 20]:
        if tick <= top_ratio * 1.2:
            tx = x(tick)
            out.append(f'<line x1="{tx:.1f}" y1="{top - 6}" x2="{tx:.1f}" y2="{height - 40}" stroke="#ddd"/>')
            out.append(f'<text x="{tx:.1f}" y="{height - 25}" text-anchor="middle" fill="#555">{tick}x</text>')
    y = top
    for workload in workloads:
        out.append(f'<text x="10" y="{y + bar - 3}" font-weight="bold">{escape(workload["workload"])}</text>')
        for result in workload["results"]:
            ratio = result["medianRatioToRaw"]
            color = COLORS.get(result["contender"], "#666666")
            out.append(f'<text x="{left - 6}" y="{y + bar - 4}" text-anchor="end">{escape(result["name"])}</text>')
            out.append(f'<rect x="{left}" y="{y + 2}" width="{max(2.0, x(ratio) - left):.1f}" height="{bar - 4}" fill="{color}"/>')
            label = f"{ratio:.2f}x"
            classes = result.get("medianRatioToRawClasses")
            if classes is not None and result["contender"] not in ("raw", "raw-classes"):
                label += f" ({classes:.2f}x raw C into classes)"
            out.append(f'<text x="{x(ratio) + 5:.1f}" y="{y + bar - 4}">{escape(label)}</text>')
            y += bar
        y += gap
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    main()
