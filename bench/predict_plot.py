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

from script_args import script_args  # bench/script_args.py: --help, and arguments checked, before anything else

ARGS = script_args(__doc__, "PREDICT.csv OUT.png") if __name__ == "__main__" else None

try:
    import matplotlib
except ImportError:  # one line, as bench/settings.sh says it, not a traceback
    print(f"error: {sys.executable} has no matplotlib: install python3-matplotlib (Debian; scripts/deps.sh), "
          "or run this with a Python that has it", file=sys.stderr)
    sys.exit(2)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from styles import style as algorithm_style  # noqa: E402  (bench/styles.py, beside this script)


COLUMNS = {"link", "topology", "P", "ranks_per_node", "bytes", "algorithm", "t_us"}


def read(path):
    """predict's rows past P = 1 (where every time is 0), or one line and exit."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if not COLUMNS <= set(reader.fieldnames or ()):
                sys.exit(f"error: {path}: not a CSV from predict --csv (it needs {', '.join(sorted(COLUMNS))})")
            rows = list(reader)
            return [r for r in rows if int(r["P"]) > 1]
    except (OSError, ValueError, UnicodeDecodeError) as e:
        sys.exit(f"error: {path}: {e}")


def main(path, out):
    rows = read(path)
    if not rows:
        sys.exit(f"error: {path}: no predictions at P > 1 to draw")
    names = list(dict.fromkeys(r["algorithm"] for r in rows))
    color = {n: algorithm_style(n)["color"] for n in names}
    t = defaultdict(dict)  # (P, bytes) -> algorithm -> us
    for r in rows:
        t[(int(r["P"]), float(r["bytes"]))][r["algorithm"]] = float(r["t_us"])
    Ps = sorted({P for P, _ in t})
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.8))
    # The smallest P dashed and the largest solid; one P once.
    for P, style in ((Ps[0], "--"), (Ps[-1], "-")) if len(Ps) > 1 else ((Ps[0], "-"),):
        for n in names:
            pts = sorted((N, a[n]) for (p, N), a in t.items() if p == P)
            left.plot([N for N, _ in pts], [us for _, us in pts], style, label=f"{n}, P = {P}", markersize=3,
                      **algorithm_style(n))
    left.set(xscale="log", yscale="log", xlabel="N (bytes)", ylabel="predicted time (us)")
    left.legend(fontsize=8)
    left.grid(alpha=0.3)
    for (P, N), a in t.items():
        fastest = min(a, key=a.get)
        right.scatter(N, P, color=color[fastest], marker=algorithm_style(fastest)["marker"], s=30)
    for n in names:
        right.scatter([], [], color=color[n], marker=algorithm_style(n)["marker"], label=n)
    right.set(xscale="log", xlabel="N (bytes)", ylabel="P", title="fastest algorithm")
    right.set_yscale("log", base=2)
    if len(Ps) <= 21:  # each P asked for, by name
        right.set_yticks(Ps, [str(P) for P in Ps])
    right.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    r = rows[0]
    where = ("every rank on one node, its memory" if r["topology"] == "one-node"
             else f"{r['topology']}, {r['ranks_per_node']} rank(s) per node")
    fig.suptitle(f"predicted all-reduce times: {r['link']}, {where}")
    fig.tight_layout()
    try:
        fig.savefig(out, dpi=100)
    except OSError as e:
        sys.exit(f"error: {out}: {e}")


if __name__ == "__main__":
    main(*ARGS)
