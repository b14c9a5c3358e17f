#!/usr/bin/env python3
"""Plots a ps_sim sweep folder (bench/ps_sweep.sh) into PNG files beside it:

  ps_traffic_vs_P.png  bytes the busiest server (or rank) sends per iteration, over the formulas
  ps_time_vs_P.png     time per iteration against P: one server, S shards, colocated, ring, MPI
  ps_phases.png        where an iteration goes at the largest P: compute, push, aggregate, pull, idle
  ps_loss.png          loss per iteration, and the straggler runs under each consistency

usage: ps_plot.py FOLDER   (bench/ps_sweep.sh runs it)
"""
import csv
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


def label(r):
    if r["mode"] == "ps":
        return f"ps S={r['S']}"
    return {"colocated": "colocated (S=P)", "ring": "ring all-reduce", "mpi": "MPI_Allreduce"}[r["mode"]]


def finish(fig, ax, path, xlabel, ylabel, title):
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(folder):
    folder = Path(folder)
    with open(folder / "ps.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    plain = [r for r in rows if not r["straggler"]]
    model_mib = int(rows[0]["model_B"]) / 2**20

    series = defaultdict(list)
    for r in plain:
        series[label(r)].append(r)
    order = sorted(series, key=lambda k: (k.startswith("ps") is False, k))

    fig, ax = plt.subplots(figsize=(7, 4.5))
    # A marker and size each, so series with equal points (colocated and ring) stay visible.
    markers = dict(zip(order, [("s", 11), ("D", 9), ("o", 7), ("^", 10), ("v", 6), ("x", 8)] * 2))
    for k in order:
        if k == "MPI_Allreduce":
            continue  # not counted: the library's traffic is invisible to the harness
        pts = sorted(series[k], key=lambda r: int(r["P"]))
        col = "server_out_max_B" if k.startswith("ps") else "rank_out_max_B"
        x = [int(r["P"]) for r in pts]
        m, size = markers[k]
        ax.plot(x, [int(r[col]) / int(r["model_B"]) for r in pts], m, ms=size, mfc="none", label=f"{k}, counted")
        ax.plot(x, [float(r["taught_B"]) / int(r["model_B"]) for r in pts], "--", color="grey")
    finish(fig, ax, folder / "ps_traffic_vs_P.png", "workers P", "bytes sent per iteration / model bytes",
           f"Busiest sender per iteration (model {model_mib:g} MiB); dashed: as taught (docs/formulas.md)")

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k in order:
        pts = sorted(series[k], key=lambda r: int(r["P"]))
        ax.plot([int(r["P"]) for r in pts], [float(r["t_iter_us"]) / 1e3 for r in pts], "o-", label=k)
    finish(fig, ax, folder / "ps_time_vs_P.png", "workers P", "time per iteration (ms)",
           f"Synchronous SGD, model {model_mib:g} MiB")

    top = max(int(r["P"]) for r in plain)
    at_top = sorted((r for r in plain if int(r["P"]) == top), key=lambda r: order.index(label(r)))
    phases = ["compute_us", "push_us", "aggregate_us", "pull_us", "idle_us"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    bottom = [0.0] * len(at_top)
    for ph in phases:
        v = [float(r[ph]) / 1e3 for r in at_top]
        ax.bar([label(r) for r in at_top], v, bottom=bottom, label=ph[:-3])
        bottom = [b + x for b, x in zip(bottom, v)]
    ax.set_ylabel("ms per iteration (phase means)")
    ax.set_title(f"Where an iteration goes, P = {top}")
    ax.tick_params(axis="x", labelsize=8)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "ps_phases.png", dpi=110)

    with open(folder / "loss.csv", newline="") as f:
        loss = list(csv.DictReader(f))
    stragglers = [r for r in rows if r["straggler"]]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    key = lambda r: (r["mode"], r["consistency"], r["tau"], r["P"], r["S"])  # noqa: E731
    curves = defaultdict(list)
    for r in loss:
        curves[key(r)].append(float(r["loss"]))
    for r in plain:
        if int(r["P"]) == top:
            a1.plot(curves[key(r)][: int(r["iters"])], label=label(r))
    a1.set_xlabel("iteration")
    a1.set_ylabel("training loss")
    a1.set_title(f"Loss, P = {top}: synchronous modes agree")
    a1.legend(fontsize=7)
    names = [r["consistency"] + (f" tau={r['tau']}" if r["consistency"] == "ssp" else "") for r in stragglers]
    a2.bar(names, [float(r["t_iter_us"]) / 1e3 for r in stragglers], color="tab:orange")
    for i, r in enumerate(stragglers):
        a2.text(i, float(r["t_iter_us"]) / 1e3, f"stale<= {r['staleness_max']}", ha="center", va="bottom", fontsize=8)
    a2.set_ylabel("time per iteration (ms)")
    a2.set_title("One worker 4x slower (P=4, S=1)")
    fig.tight_layout()
    fig.savefig(folder / "ps_loss.png", dpi=110)


if __name__ == "__main__":
    main(*ARGS)
