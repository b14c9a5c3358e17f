#!/bin/bash
# Every committed results folder's report.md and model.csv are what the
# current report writes from its rows (report --check), so that a change to
# the report that alters committed output fails until they are regenerated
# (docs/sweeps.md says how). A folder of rows.csv is reported alone; one of
# runs (make auto-bench: run1/, run2/, ...) over its runs' rows, as
# bench/auto_bench.sh reports it; one with sources.txt (bench/mpi_tuning.sh)
# over the rows it lists.
#   committed_reports_test.sh SOURCE_DIR BIN_DIR
source "$(dirname "$0")/support/check_lib.sh"
SRC=$1 BIN=$2
for dir in "$SRC"/results/*/ "$SRC"/results/*/*/; do
  dir=${dir%/} runs=("$dir"/run*/rows.csv)
  if [ -f "$dir/rows.csv" ]; then
    files=()
  elif [ -f "$dir/sources.txt" ]; then  # bench/mpi_tuning.sh: the rows it reported, listed
    mapfile -t files < <(sed "s|^|$dir/|" "$dir/sources.txt")
  elif [ -f "$dir/report.md" ] && [ -f "${runs[0]}" ]; then
    files=("${runs[@]}")
  else
    continue
  fi
  "$BIN/report" --check "$dir" "${files[@]}" >"$TMP/out" 2>"$TMP/err" \
    && ok "${dir#"$SRC"/}: report.md and model.csv as report writes them" || fail "${dir#"$SRC"/}"
done
finish
