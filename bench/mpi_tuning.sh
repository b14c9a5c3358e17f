#!/bin/bash
# Open MPI's own algorithms, counted, and a tuned decision measured
# (docs/mpi-algorithms.md). For one program:
#   1. each of Open MPI's algorithms for its call forced in turn
#      (--mpi-algorithm NAME, one launch each), and once the default with
#      the hand-written algorithms beside it: every row counted;
#   2. report --rules: Open MPI's rules file that picks, for each P and size,
#      the fastest forced algorithm;
#   3. the default and the rules file, RUNS times in turn, the library rows
#      alone (MPI_Allreduce and MPI_Allreduce:rules);
#   4. one report over all of it: its "Open MPI's default against the tuned
#      rules" section gives the speedup per P and size, median of the runs.
#
#   $OUT/forced/NAME/, $OUT/default/   step 1's sweeps (bench/sweep.sh folders)
#   $OUT/rules.conf                    step 2
#   $OUT/runK/default, $OUT/runK/rules step 3's sweeps
#   $OUT/report.md                     step 4, over the rows listed in $OUT/sources.txt
#
# Settings, from the environment (the sweep's, bench/sweep.sh, for the rest):
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
OUT=${OUT:-results/mine_mpi_tuning}
PROGRAM=${PROGRAM:-allreduce}
PS=${PS:-"2 3 4"}
SIZES=${SIZES:-4K:16M}
FACTOR=${FACTOR:-4}
RUNS=${RUNS:-3}
BIN=${BIN:-build/bin}
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/settings.sh
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a count, not '$RUNS'"
[ -x "$BIN/$PROGRAM" ] || die "PROGRAM: $BIN/$PROGRAM is missing (run 'make build')"
LAUNCH=${LAUNCH:-auto} SRUN_FLAGS=${SRUN_FLAGS:-}
set_up_launch
# One launch of the program alone: its list, or nothing where the MPI is not Open MPI.
algorithms=$(launch 1 "$BIN/$PROGRAM" --mpi-algorithm list) || die "$BIN/$PROGRAM --mpi-algorithm list failed"
[ -n "$algorithms" ] || die "$PROGRAM: the MPI is not Open MPI, or has no algorithms to force for it"
# Open MPI runs two_proc at P = 2 only (and refuses it elsewhere mid-run).
[ "$(echo $PS)" = 2 ] || algorithms=$(grep -vx two_proc <<<"$algorithms")

sweep() {  # FOLDER EXTRA: one bench/sweep.sh over PS and SIZES, plots left out
  OUT=$1 PROGRAMS=$PROGRAM PS=$PS SIZES=$SIZES FACTOR=$FACTOR EXTRA="$2 ${EXTRA:-}" PY=none \
    FRESH=1 bash bench/sweep.sh >/dev/null || die "the sweep into $1 failed (its cells.tsv says why)"
  files+=("$1/rows.csv")
}
files=()
for name in $algorithms; do
  echo "== $PROGRAM --mpi-algorithm $name"
  sweep "$OUT/forced/$name" "-a none --mpi-algorithm $name"
done
echo "== $PROGRAM: the default and the hand-written algorithms"
sweep "$OUT/default" ""
"$BIN/report" --rules "${files[@]}" > "$OUT/rules.conf.new" || die "report --rules failed"
mv "$OUT/rules.conf.new" "$OUT/rules.conf"
for run in $(seq 1 "$RUNS"); do
  echo "== run $run of $RUNS: the default, then the rules"
  sweep "$OUT/run$run/default" "-a none"
  sweep "$OUT/run$run/rules" "-a none --mpi-rules $OUT/rules.conf"
done
# Where and how it ran, and the links' ping-pong, as the default's sweep found them.
cp "$OUT/default/machine.md" "$OUT/machine.md"
[ -f "$OUT/default/links.csv" ] && cp "$OUT/default/links.csv" "$OUT/links.csv"
# The rows the report covers, for whoever reports the folder again
# (tests/committed_reports_test.sh).
printf '%s\n' "${files[@]#"$OUT"/}" > "$OUT/sources.txt"
"$BIN/report" "$OUT" "${files[@]}" >/dev/null || die "the report failed"
sed -n "/^## Open MPI's default against the tuned rules/,/^## /p" "$OUT/report.md" | sed '$d'
