#!/usr/bin/env python3
"""Plots a sweep folder's allreduce.csv: time and bus bandwidth against size,
one panel per P, hand-written algorithms beside MPI_Allreduce."""
import csv
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(folder):
    folder = Path(folder)
    with open(folder / "allreduce.csv", newline="") as f:
        data = [r for r in csv.DictReader(f) if int(r["bytes"]) > 0]
    Ps = sorted({int(r["P"]) for r in data})
    fig, axes = plt.subplots(2, len(Ps), figsize=(5 * len(Ps), 8), squeeze=False)
    for col, P in enumerate(Ps):
        series = defaultdict(list)
        for r in data:
            if int(r["P"]) == P:
                name = r["algorithm"] if r["impl"] == "hand" else "MPI_Allreduce"
                series[name].append((int(r["bytes"]), float(r["t_avg_us"]), float(r["busbw_GBps"])))
        for name, raw in sorted(series.items()):
            # MPI_Allreduce was timed once by each program: plot the mean per size.
            by_size = defaultdict(list)
            for b, t, bw in raw:
                by_size[b].append((t, bw))
            pts = [(b, sum(v[0] for v in vs) / len(vs), sum(v[1] for v in vs) / len(vs))
                   for b, vs in sorted(by_size.items())]
            style = "k--" if name == "MPI_Allreduce" else "-o"
            axes[0][col].plot([p[0] for p in pts], [p[1] for p in pts], style, label=name, markersize=3)
            axes[1][col].plot([p[0] for p in pts], [p[2] for p in pts], style, label=name, markersize=3)
        axes[0][col].set(xscale="log", yscale="log", title=f"all-reduce, P = {P}",
                         xlabel="message size N (bytes)", ylabel="time per call (us)")
        axes[1][col].set(xscale="log", xlabel="message size N (bytes)", ylabel="bus bandwidth (GB/s)")
        for ax in (axes[0][col], axes[1][col]):
            ax.grid(True, which="both", alpha=0.3)
            ax.legend()
    fig.suptitle("commlab: hand-written all-reduce vs MPI_Allreduce (float32 sum, host buffers)")
    fig.tight_layout()
    fig.savefig(folder / "allreduce_time_busbw.png", dpi=90)
    if (folder / "collectives.csv").exists():
        plot_collectives(folder)


def plot_collectives(folder):
    """Time against size, one panel per operation at the largest P swept."""
    with open(folder / "collectives.csv", newline="") as f:
        data = [r for r in csv.DictReader(f)]
    P = max(int(r["P"]) for r in data)
    programs = list(dict.fromkeys(r["program"] for r in data if r["program"] != "barrier"))
    cols = 4
    fig, axes = plt.subplots((len(programs) + cols - 1) // cols, cols, figsize=(5 * cols, 8), squeeze=False)
    for ax, program in zip(axes.flat, programs):
        series = defaultdict(list)
        for r in data:
            if r["program"] == program and int(r["P"]) == P and int(r["bytes"]) > 0:
                # One library line: MPI_Scatter and MPI_Scatterv (uneven parts) are one call to a user.
                name = "MPI library" if r["impl"] == "mpi" and program != "sendrecv" else r["algorithm"]
                series[(r["impl"], name)].append((int(r["bytes"]), float(r["t_avg_us"])))
        for (impl, name), pts in sorted(series.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "--" if impl == "mpi" else "-o",
                    label=name, markersize=3, color="k" if name == "MPI library" else None)
        ax.set(xscale="log", yscale="log", title=f"{program}, P = {P}", xlabel="message size N (bytes)",
               ylabel="time per call (us)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(programs):]:
        ax.axis("off")
    fig.suptitle("commlab: hand-written collectives vs the MPI library (float32, host buffers; "
                 "sendrecv: one-way time)")
    fig.tight_layout()
    fig.savefig(folder / "collectives_time.png", dpi=90)


if __name__ == "__main__":
    main(sys.argv[1])
