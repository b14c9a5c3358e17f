#!/bin/bash
# The sweep driver end to end, on a tiny matrix: rows, cells, report and
# plots; a rerun skips what is done; a failing cell is recorded and the rest
# goes on; bad settings stop it before anything runs; the report names the
# line of a row it cannot read.
set -u
SRC=$1 BIN=$2
export BIN
source "$(dirname "$0")/support/check_lib.sh"
fail() { fails=$((fails + 1)); echo "FAIL $1"; sed 's/^/     | /' "$TMP/log" | tail -15; }
sweep() { timeout 600 bash "$SRC/bench/sweep.sh" >"$TMP/log" 2>&1; }

export OUT=$TMP/run PROGRAMS="allreduce_ring allreduce_master_worker allreduce_tree bcast" PS="2 3" \
  SIZES=4:4K FACTOR=16 ITERS=1 WARMUP=0
sweep && rc=0 || rc=$?
if [ $rc = 0 ] && [ "$(grep -c '	ok	' "$OUT/cells.tsv")" = 8 ] && [ -s "$OUT/rows.csv" ] \
   && grep -q "^## Traffic against the taught formulas" "$OUT/report.md" \
   && grep -q "^## Time: the alpha-beta model" "$OUT/report.md" \
   && grep -q "^## Hand-written against the library" "$OUT/report.md" \
   && grep -q "| allreduce_ring | ring | 3 |.*| sent_max_B" "$OUT/report.md" \
   && grep -q "^- launched: mpirun" "$OUT/machine.md" && grep -q "^\[8/8\] " "$TMP/log"; then
  ok "tiny sweep: 8 cells ok, rows.csv, report.md with its three parts, machine.md, progress"
else fail "tiny sweep (exit $rc)"; fi
pngs=0
for f in traffic_vs_P time_vs_size busbw_vs_size time_vs_P; do
  [ "$(head -c 4 "$OUT/$f.png" 2>/dev/null | tail -c 3)" = PNG ] && pngs=$((pngs + 1))
done
[ $pngs = 4 ] && ok "four PNG plots" || fail "plots: $pngs of 4 written"

# --check: the folder's report is what report writes; a changed line is
# named in one line, exit 1, and nothing is rewritten.
"$BIN/report" --check "$OUT" >"$TMP/log" 2>&1 && ok "report --check on the folder it wrote: exit 0" \
  || fail "report --check"
cp "$OUT/report.md" "$TMP/report.md" && sed -i 's/^## Checks$/## Checked/' "$OUT/report.md"
"$BIN/report" --check "$OUT" >"$TMP/log" 2>&1 && rc=0 || rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$TMP/log")" = 1 ] && grep -q "^## Checked$" "$OUT/report.md" \
  && grep -q "report.md line [0-9]*, column 9: the file has \"## Checked\", report now writes \"## Checks\"" "$TMP/log" \
  && ok "report --check on a changed line: exit 1, $(cat "$TMP/log")" || fail "report --check, a changed line (exit $rc)"
cp "$TMP/report.md" "$OUT/report.md"

rows=$(wc -l <"$OUT/rows.csv")
sweep && [ "$(grep -c 'done before, skipped' "$TMP/log")" = 8 ] && [ "$(wc -l <"$OUT/rows.csv")" = "$rows" ] \
  && ok "rerun: every cell skipped, rows unchanged" || fail "rerun"

# A root of 2 is bad input at P = 2 and fine at P = 3: half the cells fail.
OUT=$TMP/failing EXTRA="-r 2" sweep && rc=0 || rc=$?
if [ $rc = 1 ] && [ "$(grep -c '	failed	[0-9]*s	exit 2: error: -r 2: root must be below' "$TMP/failing/cells.tsv")" = 4 ] \
   && [ "$(grep -c '	ok	' "$TMP/failing/cells.tsv")" = 4 ] \
   && grep -q "4 sweep cells failed (cells.tsv" "$TMP/failing/report.md"; then
  ok "failing cells recorded with their error, the rest ran, exit 1, the report lists them"
else fail "failing cells (exit $rc)"; fi

# FRESH=1 (make bench): measured anew, and the folder replaced only when every cell succeeded.
mkdir -p "$TMP/fresh" && echo old >"$TMP/fresh/marker"
OUT=$TMP/fresh FRESH=1 PROGRAMS=bcast PS=2 EXTRA="-r 2" sweep && rc=0 || rc=$?
[ $rc = 1 ] && [ -f "$TMP/fresh/marker" ] && [ ! -e "$TMP/fresh/cells.tsv" ] \
  && ok "FRESH=1 with a failing cell: the folder left as it was" || fail "FRESH=1, failing (exit $rc)"
OUT=$TMP/fresh FRESH=1 PROGRAMS=bcast PS=2 sweep && rc=0 || rc=$?
[ $rc = 0 ] && [ ! -e "$TMP/fresh/marker" ] && grep -q '	ok	' "$TMP/fresh/cells.tsv" \
  && ok "FRESH=1: measured anew, the folder replaced" || fail "FRESH=1 (exit $rc)"

# A cell that runs past CELL_TIMEOUT (a library that hangs): stopped,
# recorded as failed with why, and the sweep goes on (the test's own cell:
# a sweep of 2000 calls of 16 MiB does not end in 1 s).
OUT=$TMP/slow CELL_TIMEOUT=1 PROGRAMS=allreduce_ring PS=2 SIZES=16M ITERS=2000 sweep && rc=0 || rc=$?
[ $rc = 1 ] && grep -q '	failed	[0-9]*s	exit 12[47]: stopped after CELL_TIMEOUT=1 s$' "$TMP/slow/cells.tsv" \
  && ok "a cell past CELL_TIMEOUT: stopped, failed with why, exit 1" || fail "CELL_TIMEOUT (exit $rc)"

for bad in "PS=two" "PROGRAMS=allreduce_nothing" "LAUNCH=ssh" "SIZES=1GB" "ITERS=lots" "CELL_TIMEOUT=0"; do
  env "$bad" OUT="$TMP/bad" bash "$SRC/bench/sweep.sh" >"$TMP/log" 2>&1 && rc=0 || rc=$?
  [ $rc = 2 ] && [ ! -e "$TMP/bad" ] && grep -q "^error: ${bad%%=*}" "$TMP/log" \
    && ok "bad setting $bad: exit 2 before launching anything" || fail "bad setting $bad (exit $rc)"
done
SIZES=4:64 sweep && rc=0 || rc=$?
[ $rc = 2 ] && grep -q "was swept with SIZES=4:4K" "$TMP/log" \
  && ok "other sizes into the same folder: refused" || fail "settings change (exit $rc)"

# The report on rows it cannot read: one line naming the file and line, exit 2.
mkdir -p "$TMP/cut"
head -3 "$OUT/rows.csv" >"$TMP/cut/rows.csv"
tail -1 "$OUT/rows.csv" | cut -c1-40 >>"$TMP/cut/rows.csv"
"$BIN/report" "$TMP/cut" >"$TMP/log" 2>&1 && rc=0 || rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$TMP/log")" = 1 ] && grep -q "line 4" "$TMP/log" && [ ! -e "$TMP/cut/report.md" ] \
  && ok "report of a cut-off row: $(cat "$TMP/log")" || fail "report on a cut row (exit $rc)"

finish
