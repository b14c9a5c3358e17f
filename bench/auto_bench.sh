#!/bin/bash
# -a auto against MPI_Allreduce (`make auto-bench`): three sweeps of
# `allreduce -a auto`, each a separate launch per P with its own time-model
# probe, then one report over the three. The report's "-a auto against
# MPI_Allreduce" section gives, per P and size, auto's median time over the
# library's in each run and the median of the three.
#
#   $OUT/run1 .. run3/   each sweep's folder (rows.csv, machine.md, report.md)
#   $OUT/report.md       the report over all three runs
#
# Settings, from the environment (the sweep's, bench/sweep.sh, for the rest):
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
OUT=${OUT:-results/mine_auto}
PS=${PS:-"2 4"}
SIZES=${SIZES:-4:64M}
FACTOR=${FACTOR:-2}
RUNS=${RUNS:-3}
BIN=${BIN:-build/bin}
set -uo pipefail
cd "$(dirname "$0")/.."
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "error: RUNS must be a count, not '$RUNS'" >&2; exit 2; }
files=()
for run in $(seq 1 "$RUNS"); do
  OUT=$OUT/run$run PROGRAMS=allreduce PS=$PS SIZES=$SIZES FACTOR=$FACTOR EXTRA="-a auto ${EXTRA:-}" \
    FRESH=1 bash bench/sweep.sh || exit
  files+=("$OUT/run$run/rows.csv")
done
"$BIN/report" "$OUT" "${files[@]}" >/dev/null || exit
sed -n '/^## -a auto against MPI_Allreduce/,$p' "$OUT/report.md"
