#!/usr/bin/env python3
"""Plots a sweep folder's rows.csv (bench/sweep.sh) into PNG files beside it:

  traffic_vs_P.png   bytes the busiest rank sends, counted, over the taught formulas
  time_vs_size.png   time per call against message size, one panel per operation
  busbw_vs_size.png  bus bandwidth against size, hand-written beside the library
  time_vs_P.png      all-reduce time against P at the largest size swept, with the
                     report's fitted model (model.csv) and the taught formula's growth
  fastest_vs_size.png  per P and size, the fastest all-reduce algorithm measured,
                     beside the one the time model predicted
  links_vs_P.png     where the rows ran on a network of nodes (COMMLAB_TOPOLOGY,
                     not the switch): per all-reduce algorithm, the busiest link's
                     bytes (summed over steps) and the hop-bytes, counted, over N,
                     against P at the largest size swept
  distributions.png  where the sweep kept every iteration (iterations.csv): per
                     all-reduce algorithm, a box of its iterations' times (each
                     the slowest rank's) at the largest P, for up to four sizes;
                     whiskers at 1.5 IQR, the points beyond them the outliers

usage: plot.py FOLDER   (bench/sweep.sh runs it; by hand: python3 bench/plot.py results/NAME)
"""
import csv
import math
import sys
from collections import defaultdict
from pathlib import Path

from script_args import script_args  # bench/script_args.py: --help, and arguments checked, before anything else

ARGS = script_args(__doc__, "FOLDER") if __name__ == "__main__" else None

try:
    import matplotlib
except ImportError:  # one line, as bench/settings.sh says it, not a traceback
    print(f"error: {sys.executable} has no matplotlib: install python3-matplotlib (Debian; scripts/deps.sh), "
          "or run this with a Python that has it", file=sys.stderr)
    sys.exit(2)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from styles import style as algorithm_style  # noqa: E402  (bench/styles.py, beside this script)

def is_allreduce(program):
    """The all-reduce's programs: allreduce, and allreduce_ALGORITHM for each algorithm."""
    return program == "allreduce" or program.startswith("allreduce_")
TAUGHT = {  # docs/formulas.md, as taught; T in units of N; a marker each, so equal points stay visible
    "master_worker": ("(P-1) N", lambda P: P - 1, "s", 11),
    "ring": ("2 (N/P) (P-1)", lambda P: 2 * (P - 1) / P, "o", 8),
    "tree": ("log2(P) N", lambda P: math.log2(P), "^", 6),
}


def load(folder):
    with open(folder / "rows.csv", newline="") as f:
        return [r for r in csv.DictReader(f) if r["check"] != "FAIL"]


def panel_name(r):
    return "allreduce" if is_allreduce(r["program"]) else r["program"]


def line_name(r):
    """Hand-written algorithms by name; each library (MPI, NCCL) as one line per call family."""
    if r["impl"] == "hand":
        return r["algorithm"]
    if r["program"] == "sendrecv":
        return r["algorithm"]
    library = "NCCL" if r["impl"] == "nccl" else "MPI library"
    return library + " (" + r["algorithm"].rstrip("v").replace("_block", "") + ")"


def mean_by(points):
    """MPI_Allreduce is timed by each all-reduce program: one mean point per x."""
    by_x = defaultdict(list)
    for x, y in points:
        by_x[x].append(y)
    return sorted((x, sum(ys) / len(ys)) for x, ys in by_x.items())


def style(name):
    """A hand-written algorithm's colour and marker (styles.py); the libraries in black and grey."""
    if name.startswith("NCCL"):
        return dict(linestyle=":", marker="", color="k")
    if not name.startswith("MPI"):
        return algorithm_style(name)
    return dict(linestyle="--", marker="", color="0.55" if "Isend" in name else "k")


def traffic_vs_P(rows, folder):
    hand = [r for r in rows if is_allreduce(r["program"]) and r["impl"] == "hand" and r["sent_max_rank_B"]]
    if not hand:
        return
    N = max(int(r["bytes"]) for r in hand)
    fig, ax = plt.subplots(figsize=(7, 5))
    Ps = sorted({int(r["P"]) for r in hand})
    grid = [P / 10 for P in range(10, 10 * max(Ps) + 1)]
    for algo, (formula, T, marker, size) in TAUGHT.items():
        pts = sorted((int(r["P"]), int(r["sent_max_rank_B"]) / N) for r in hand
                     if r["algorithm"] == algo and int(r["bytes"]) == N)
        line = ax.plot(grid, [T(P) for P in grid], "-", alpha=0.6, color=algorithm_style(algo)["color"],
                       label=f"{algo}: taught T = {formula}")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker, color=line[0].get_color(), markersize=size,
                label=f"{algo}: counted, busiest rank sends")
    ax.set(xlabel="processes P", ylabel=f"bytes / N   (N = {N >> 20} MiB)" if N >= 1 << 20 else "bytes / N",
           title="All-reduce traffic: counted against the formulas as taught")
    ax.set_xticks([1] + Ps)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "traffic_vs_P.png", dpi=90)
    plt.close(fig)


def by_size(rows, folder, column, ylabel, filename, logy):
    P = max(int(r["P"]) for r in rows)
    panels = list(dict.fromkeys(panel_name(r) for r in rows if r["program"] != "barrier"))
    cols = min(4, len(panels))
    nrows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols, 4 * nrows), squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        series = defaultdict(list)
        for r in rows:
            if panel_name(r) == panel and int(r["P"]) == P and int(r["bytes"]) > 0:
                series[line_name(r)].append((int(r["bytes"]), float(r[column])))
        for name, pts in sorted(series.items(), key=lambda kv: (kv[0].startswith("MPI"), kv[0])):
            pts = mean_by(pts)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=name, markersize=3, **style(name))
        ax.set(xscale="log", yscale="log" if logy else "linear", title=f"{panel}, P = {P}",
               xlabel="message size N (bytes)", ylabel=ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    device = sorted({r["device"] for r in rows})
    note = "; sendrecv ping-pong: one-way time" if "sendrecv" in panels else ""
    fig.suptitle(f"hand-written vs library ({', '.join(device)}, {rows[0]['dtype']}{note})",
                 fontsize=10 if len(panels) > 1 else 9)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(folder / filename, dpi=80)
    plt.close(fig)


def model_at(folder, N):
    """The report's fitted model at size N, per algorithm: [(P, ms)]; empty without model.csv."""
    path = folder / "model.csv"
    if not path.exists():
        return {}
    fitted = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if int(r["bytes"]) == N:
                fitted[r["algorithm"]].append((int(r["P"]), float(r["t_fitted_us"]) / 1e3))
    return fitted


def time_vs_P(rows, folder):
    ar = [r for r in rows if is_allreduce(r["program"])]
    if not ar:
        return
    N = max(int(r["bytes"]) for r in ar)
    series = defaultdict(list)
    for r in ar:
        if int(r["bytes"]) == N:
            # the median, as the report's model is fitted to and tested on
            series[line_name(r)].append((int(r["P"]), float(r["t_median_us"]) / 1e3))
    fig, ax = plt.subplots(figsize=(11, 5.5))
    fitted = model_at(folder, N)
    for name, pts in sorted(series.items()):
        pts = mean_by(pts)
        drawn = ax.plot([p[0] for p in pts], [p[1] for p in pts], label=name, markersize=6, **style(name))
        colour = drawn[0].get_color()
        if name in fitted:  # the report's fitted model (model.csv), not a copy of it
            model = sorted(fitted[name])
            ax.plot([p for p, _ in model], [t for _, t in model], "--", color=colour, alpha=0.7,
                    label=f"{name}: model")
        if name in TAUGHT and pts[0][0] >= 2:  # the taught formula's growth, from the smallest P
            formula, T, _, _ = TAUGHT[name]
            P0, t0 = pts[0]
            ax.plot([p for p, _ in pts], [t0 * T(p) / T(P0) for p, _ in pts], ":", color=colour,
                    alpha=0.7, label=f"{name}: taught {formula}")
    ax.set(xlabel="processes P", ylabel="median time per call (ms)",
           title=f"All-reduce of N = {N >> 20} MiB against P" if N >= 1 << 20 else f"All-reduce of {N} B against P")
    ax.set_xticks(sorted({p for pts in series.values() for p, _ in pts}))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the curves, not on them
    fig.tight_layout()
    fig.savefig(folder / "time_vs_P.png", dpi=90)
    plt.close(fig)


def fastest_vs_size(rows, folder):
    cells = defaultdict(list)  # one shape -> the hand-written all-reduce rows
    for r in rows:
        if is_allreduce(r["program"]) and r["impl"] == "hand" and r["algorithm"] != "auto":
            cells[(int(r["P"]), int(r["bytes"]), r["device"], r["dtype"], r["op"])].append(r)
    cells = {k: v for k, v in cells.items() if len({r["algorithm"] for r in v}) > 1}
    if not cells:
        return
    names = sorted({r["algorithm"] for rs in cells.values() for r in rs})
    color = {n: algorithm_style(n)["color"] for n in names}
    Ps = sorted({key[0] for key in cells})
    fig, ax = plt.subplots(figsize=(9, 1.5 + 0.7 * len(Ps)))
    for (P, N, *_), rs in cells.items():
        fastest = min(rs, key=lambda r: float(r["t_median_us"]))
        ax.scatter(N, P - 0.15, color=color[fastest["algorithm"]], marker="o", s=60)
        modelled = [r for r in rs if r.get("t_model_us")]  # older files have no model times
        if modelled:
            pick = min(modelled, key=lambda r: float(r["t_model_us"]))
            ax.scatter(N, P + 0.15, color=color[pick["algorithm"]], marker="D", s=35)
    for n in names:
        ax.scatter([], [], color=color[n], marker="s", label=n)
    ax.scatter([], [], facecolors="none", edgecolors="k", marker="o", label="fastest, measured (lower)")
    ax.scatter([], [], facecolors="none", edgecolors="k", marker="D", label="the time model's pick (upper)")
    ax.set_xscale("log", base=2)
    ax.set_yticks(Ps)
    ax.set(xlabel="N, bytes per rank", ylabel="processes P",
           title="All-reduce: the fastest algorithm at each size, and the model's pick")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(folder / "fastest_vs_size.png", dpi=90)
    plt.close(fig)


def iteration_times(folder):
    """(program, algorithm, P, bytes) -> each iteration's time: its slowest rank's."""
    path = folder / "iterations.csv"
    if not path.exists():
        return {}
    slowest = defaultdict(dict)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["program"], r["algorithm"], int(r["P"]), int(r["bytes"]))
            i = (r["date"], int(r["iteration"]))  # launches apart
            slowest[key][i] = max(slowest[key].get(i, 0.0), float(r["t_us"]))
    return {k: list(v.values()) for k, v in slowest.items()}


def distributions(folder):
    times = {k: v for k, v in iteration_times(folder).items() if is_allreduce(k[0])}
    if not times:
        return
    P = max(k[2] for k in times)
    sizes = sorted({k[3] for k in times if k[2] == P})
    picked = sorted({sizes[round(i * (len(sizes) - 1) / 3)] for i in range(4)}) if sizes else []
    fig, axes = plt.subplots(1, len(picked), figsize=(4.5 * len(picked), 4.5), squeeze=False)
    for ax, size in zip(axes[0], picked):
        at = sorted((k[1], v) for k, v in times.items() if k[2] == P and k[3] == size)
        ax.boxplot([v for _, v in at], whis=1.5, flierprops={"markersize": 3})
        ax.set_xticks(range(1, len(at) + 1))
        ax.set_xticklabels([a for a, _ in at], rotation=60, ha="right", fontsize=7)
        ax.set_yscale("log")
        ax.set_title(f"P = {P}, {size} B")
        ax.set_ylabel("time of an iteration (us)")
    fig.suptitle("all-reduce: every timed iteration (its slowest rank), 1.5 IQR whiskers")
    fig.tight_layout()
    fig.savefig(folder / "distributions.png", dpi=80)
    plt.close(fig)


def links_vs_P(rows, folder):
    hand = [r for r in rows if is_allreduce(r["program"]) and r["impl"] == "hand"
            and r.get("network", "") not in ("", "switch") and r.get("link_critical_B")]
    if not hand:
        return
    N = max(int(r["bytes"]) for r in hand)
    network = hand[0]["network"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for ax, column, what in ((axes[0], "link_critical_B", "busiest link, step by step"),
                             (axes[1], "hop_B", "hop-bytes: bytes x links crossed")):
        for algo in sorted({r["algorithm"] for r in hand}):
            pts = mean_by((int(r["P"]), int(r[column]) / N) for r in hand
                          if r["algorithm"] == algo and int(r["bytes"]) == N)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=algo, **algorithm_style(algo))
        ax.set(xlabel="processes P (one a node)", ylabel=f"bytes / N   (N = {N >> 20} MiB)" if N >= 1 << 20
               else "bytes / N", title=f"{what}, counted ({network})")
        ax.set_xticks(sorted({int(r["P"]) for r in hand}))
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(folder / "links_vs_P.png", dpi=90)
    plt.close(fig)


def main(folder):
    folder = Path(folder)
    rows = load(folder)
    if not rows:
        sys.exit(f"error: {folder / 'rows.csv'} has no rows that passed their checks")
    traffic_vs_P(rows, folder)
    by_size(rows, folder, "t_avg_us", "time per call (us)", "time_vs_size.png", True)
    by_size(rows, folder, "busbw_GBps", "bus bandwidth (GB/s)", "busbw_vs_size.png", False)
    time_vs_P(rows, folder)
    fastest_vs_size(rows, folder)
    links_vs_P(rows, folder)
    distributions(folder)


if __name__ == "__main__":
    main(*ARGS)
