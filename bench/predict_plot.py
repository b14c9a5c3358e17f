#!/usr/bin/env python3
"""Draws bin/predict's CSV (--csv FILE) into one PNG:

  left   each algorithm's predicted time against N, at the smallest and the
         largest P asked for
  right  the fastest algorithm for each P and N: where the crossovers are

usage: predict_plot.py PREDICT.csv OUT.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"error: {path}: no predictions")
    names = list(dict.fromkeys(r["algorithm"] for r in rows))
    color = {n: plt.cm.tab10(i % 10) for i, n in enumerate(names)}
    t = defaultdict(dict)  # (P, bytes) -> algorithm -> us
    for r in rows:
        t[(int(r["P"]), float(r["bytes"]))][r["algorithm"]] = float(r["t_us"])
    Ps = sorted({P for P, _ in t})
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    for P, style in ((Ps[0], "--"), (Ps[-1], "-")):
        for n in names:
            pts = sorted((N, a[n]) for (p, N), a in t.items() if p == P)
            left.plot([N for N, _ in pts], [us for _, us in pts], style, color=color[n], label=f"{n}, P = {P}")
    left.set(xscale="log", yscale="log", xlabel="N (bytes)", ylabel="predicted time (us)")
    left.legend(fontsize=8)
    left.grid(alpha=0.3)
    for (P, N), a in t.items():
        right.scatter(N, P, color=color[min(a, key=a.get)], marker="s", s=30)
    for n in names:
        right.scatter([], [], color=color[n], marker="s", label=n)
    right.set(xscale="log", yscale="log", xlabel="N (bytes)", ylabel="P", title="fastest algorithm")
    right.legend(fontsize=8, loc="lower left", framealpha=0.9)
    fig.suptitle(f"predicted all-reduce times: {rows[0]['link']}, {rows[0]['ranks_per_node']} rank(s) per node")
    fig.tight_layout()
    fig.savefig(out, dpi=100)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: predict_plot.py PREDICT.csv OUT.png")
    main(sys.argv[1], sys.argv[2])
