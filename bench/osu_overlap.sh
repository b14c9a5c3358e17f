#!/bin/bash
# --overlap against the OSU micro-benchmarks' osu_iallreduce on the same MPI:
# both time MPI_Iallreduce beside compute with the same number of test calls
# (OSU's -t, our --probes), float sum, P ranks; each size alternately, a run of
# each per round, so that the machine's drift falls on both. Writes each
# pair's figures, the differences and their median per size (docs/overlap.md).
# A benchmark, not a test: the figures are the machine's.
#   OSU_IALLREDUCE=/path/to/osu_iallreduce bash bench/osu_overlap.sh [--help]
#
# OSU is not a Debian package: build osu_iallreduce from its public source
# (https://mvapich.cse.ohio-state.edu/benchmarks/) outside this project,
# against the same MPI (./configure CC=mpicc CXX=mpicxx && make), and name it.
#
# Settings, from the environment:
#   OSU_IALLREDUCE  the built osu_iallreduce (required)
#   P       ranks (default 2: a core each on a 2-core machine)
#   PROBES  test calls during the compute (default 8)
#   SIZES   bytes, space separated (default 64K, 1M and 4M)
#   ROUNDS  runs of each (default 3)
#   BIN     the programs (default build/bin)
#   OUT     where the table goes (default: a new folder under /tmp)
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
die() { echo "error: $*" >&2; exit 2; }
OSU_IALLREDUCE=${OSU_IALLREDUCE:-}
P=${P:-2}
PROBES=${PROBES:-8}
SIZES=${SIZES:-65536 1048576 4194304}
ROUNDS=${ROUNDS:-3}
BIN=${BIN:-build/bin}
OUT=${OUT:-$(mktemp -d /tmp/commlab-osu.XXXXXX)}
[ -n "$OSU_IALLREDUCE" ] || die "OSU_IALLREDUCE must name a built osu_iallreduce (bench/osu_overlap.sh --help)"
[ -x "$OSU_IALLREDUCE" ] || die "OSU_IALLREDUCE=$OSU_IALLREDUCE is not an executable"
[ -x "$BIN/allreduce" ] || die "$BIN/allreduce is missing: run make build first"
[[ $P =~ ^[1-9][0-9]*$ ]] || die "P must be a count of ranks, not '$P'"
[[ $PROBES =~ ^[0-9]+$ ]] || die "PROBES must be 0 or more, not '$PROBES'"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be 1 or more, not '$ROUNDS'"
for s in $SIZES; do [[ $s =~ ^[1-9][0-9]*$ ]] && [ $((s % 4)) = 0 ] || die "SIZES: '$s' is not a number of bytes that floats fill"; done
mkdir -p "$OUT" || die "cannot make $OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
pairs=$OUT/pairs.tsv
echo -e "round\tbytes\tprobes\tosu_overlap_pct\tcommlab_overlap_pct\tcommlab_imb_pct" > "$pairs"
for round in $(seq "$ROUNDS"); do
  for size in $SIZES; do
    osu=$(timeout 300 mpirun -np "$P" --oversubscribe "$OSU_IALLREDUCE" -T mpi_float -m "$size:$size" \
            -t "$PROBES" -i 100 -x 10 -f 2>/dev/null | awk -v s="$size" '$1 == s {print $NF}')
    rm -f "$OUT/row.csv"
    timeout 300 mpirun -np "$P" --oversubscribe "$BIN/allreduce" --overlap --probes "$PROBES" -a none \
      -n $((size / 4)) -i 100 -x 10 --csv "$OUT/row.csv" > /dev/null 2>&1
    ours=$("$BIN/report" --column overlap_pct,overlap_imb_pct "$OUT/row.csv" 2>/dev/null | tail -1 | tr ',' '\t')
    [ -n "$osu" ] && [ -n "$ours" ] || die "round $round, $size B: a run gave no figure (osu '$osu', commlab '$ours')"
    echo -e "$round\t$size\t$PROBES\t$osu\t$ours" >> "$pairs"
    echo "round $round, $size B: OSU $osu%, commlab $(echo "$ours" | cut -f1)%"
  done
done
/usr/bin/env python3 bench/osu_overlap_summary.py "$pairs" "$P" > "$OUT/summary.md"
rm -f "$OUT/row.csv"
bash bench/machine.sh > "$OUT/machine.md"
cat "$OUT/summary.md"
echo "rows: $pairs; machine: $OUT/machine.md"
