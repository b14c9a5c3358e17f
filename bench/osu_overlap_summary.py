#!/usr/bin/env python3
"""bench/osu_overlap.sh's table: OSU's osu_iallreduce against commlab's
MPI_Iallreduce row, per size, from its pairs.tsv (rounds x sizes).
    python3 bench/osu_overlap_summary.py PAIRS.tsv P > summary.md"""
import csv, statistics
from script_args import script_args  # bench/script_args.py: --help, and arguments checked, before anything else
pairs, P = script_args(__doc__, "PAIRS.tsv P")
rows = list(csv.DictReader(open(pairs), delimiter="\t"))
print("# osu_iallreduce against commlab's MPI_Iallreduce row (bench/osu_overlap.sh)\n")
print(f"### P = {P}, {rows[0]['probes']} test calls\n")
print("| bytes | probes | OSU overlap % (median) | commlab overlap % (median) | commlab - OSU, each round | median difference |")
print("|---:|---:|---:|---:|---|---:|")
for size in dict.fromkeys(r["bytes"] for r in rows):
    mine = [r for r in rows if r["bytes"] == size]
    osu = [float(r["osu_overlap_pct"]) for r in mine]
    ours = [float(r["commlab_overlap_pct"]) for r in mine]
    diff = [b - a for a, b in zip(osu, ours)]
    print(f"| {size} | {mine[0]['probes']} | {statistics.median(osu):.1f} | {statistics.median(ours):.1f} | "
          + ", ".join(f"{d:+.1f}" for d in diff) + f" | {statistics.median(diff):+.1f} |")
