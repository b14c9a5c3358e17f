#!/usr/bin/env python3
"""Prints what a sweep folder shows: checks, traffic against the models and the
taught formulas, and the hand ring's time over MPI_Allreduce's."""
import csv
import sys
from collections import defaultdict
from pathlib import Path


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summarize_collectives(sweep):
    bad = [r for r in sweep if r["check"] != "ok"]
    print(f"\ncollectives: {len(sweep) - len(bad)} of {len(sweep)} rows ok"
          + "".join(f"\n  FAIL {r['program']} {r['algorithm']} P={r['P']} count={r['count']}: {r['note']}"
                    for r in bad))
    print("time(hand) / time(library) at the largest size, same run (below 1: the hand one is faster):")
    largest = {}
    for r in sweep:
        key = (r["program"], int(r["P"]))
        if int(r["bytes"]) >= int(largest.get(key, r)["bytes"]):
            largest[key] = r
    print(f"{'operation':<16}{'P':>3}{'bytes':>10}  {'library':<26}{'us':>9}  hand algorithms: us (ratio)")
    for (program, P), top in sorted(largest.items()):
        same = [r for r in sweep if r["program"] == program and int(r["P"]) == P and r["bytes"] == top["bytes"]]
        libs = [r for r in same if r["impl"] == "mpi"]
        # sendrecv's exchange is measured against MPI_Isend/MPI_Irecv, everything else against the one call.
        lib_for = {"exchange": next((r for r in libs if "Isend" in r["algorithm"]), libs[0])}
        hand = "  ".join(f"{r['algorithm']}: {float(r['t_avg_us']):.1f} "
                         f"({float(r['t_avg_us']) / float(lib_for.get(r['algorithm'], libs[0])['t_avg_us']):.2f})"
                         for r in same if r["impl"] == "hand")
        print(f"{program:<16}{P:>3}{top['bytes']:>10}  {libs[0]['algorithm']:<26}{float(libs[0]['t_avg_us']):>9.1f}  {hand}")


def main(folder):
    folder = Path(folder)
    sweep = rows(folder / "allreduce.csv")
    bad = [r for r in sweep if r["check"] != "ok"]
    print(f"checks: {len(sweep) - len(bad)} of {len(sweep)} rows ok"
          + "".join(f"\n  FAIL {r['program']} P={r['P']} count={r['count']}: {r['note']}" for r in bad))

    print("\ntraffic at the largest size (bytes; counted = model in every row marked exact):")
    print(f"{'algorithm':<14}{'P':>3}{'N':>11}{'sent busiest':>14}{'recv busiest':>14}"
          f"{'sent total':>12}{'steps':>6}  taught T{'':>14}")
    largest = defaultdict(dict)
    for r in sweep:
        if r["impl"] == "hand":
            largest[(r["algorithm"], int(r["P"]))][int(r["bytes"])] = r
    for (algo, P), by_size in sorted(largest.items()):
        r = by_size[max(by_size)]
        print(f"{algo:<14}{P:>3}{r['bytes']:>11}{r['sent_max_rank_B']:>14}{r['recv_max_rank_B']:>14}"
              f"{r['sent_total_B']:>12}{r['steps']:>6}  {r['taught_formula']} = {r['taught_T_B']}")

    coll = folder / "collectives.csv"
    if coll.exists():
        summarize_collectives(rows(coll))

    ratio = folder / "ring_vs_mpi.csv"
    if ratio.exists():
        print("\ntime(hand ring) / time(MPI_Allreduce), same run, float32 sum:")
        t = defaultdict(dict)
        for r in rows(ratio):
            t[(int(r["P"]), int(r["bytes"]))][r["impl"]] = float(r["t_avg_us"])
        print(f"{'P':>3}{'MiB':>6}{'ring us':>12}{'MPI us':>12}{'ratio':>8}")
        for (P, b), v in sorted(t.items()):
            print(f"{P:>3}{b >> 20:>6}{v['hand']:>12.1f}{v['mpi']:>12.1f}{v['hand'] / v['mpi']:>8.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
