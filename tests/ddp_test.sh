#!/bin/bash
# ddp_step as a user runs it: MPI_Iallreduce and every hand-written
# all-reduce over DDP's buckets at P = 2 and 4, each row's gradient checked
# exactly and the hand-written buckets' traffic their model's; the buckets
# DDP's rule makes; bad input refused. Nothing here reads a time.
BIN=$1
source "$(dirname "$0")/support/check_lib.sh"
# 3 layers of 64 x 64 floats, 16 KiB each: a cap of 0.01 MiB gives each
# layer a bucket, 0.03 MiB two layers then one, 25 MiB one bucket.
for P in 2 4; do
  rm -f "$TMP/d.csv"
  run $P "$BIN/ddp_step" --layers 3 --hidden 64 --batch 2 --bucket-MB 0.01,0.03,25 -a all -i 2 -x 0 \
    --csv "$TMP/d.csv"
  rc=$?
  "$BIN/report" --column algorithm,bucket_cap_B,buckets,check,traffic,overlap_pct "$TMP/d.csv" \
    > "$TMP/rows"
  bad=$(awk -F'\t' '$4 != "ok" || ($1 != "MPI_Iallreduce" && $5 != "exact") || $6 < 0 ||
             ($2 == 10485 && $3 != 3) || ($2 == 31457 && $3 != 2) || ($2 == 26214400 && $3 != 1)' "$TMP/rows")
  rows=$(wc -l < "$TMP/rows")
  if [ $rc = 0 ] && [ -z "$bad" ] && [ "$rows" -ge 36 ]; then
    ok "ddp_step at P = $P: $rows rows (3 bucket sizes, MPI_Iallreduce and each hand-written), checked, traffic exact, 3/2/1 buckets"
  else fail "ddp_step P = $P (exit $rc, $rows rows): $bad"; head -3 "$TMP/rows"; cat "$TMP/err" | head -3; fi
done
grep -q "best bucket measured .* the model's" "$TMP/out" && ok "the best bucket, measured and modelled, per all-reduce" \
  || fail "best bucket line"

echo keep > "$TMP/keep.csv"
run 2 "$BIN/ddp_step" --bucket-MB 0 --csv "$TMP/keep.csv"
refused $? "--bucket-MB 0" "bucket-MB"
run 2 "$BIN/ddp_step" --bucket-MB nan --csv "$TMP/keep.csv"
refused $? "--bucket-MB nan" "bucket-MB"
run 2 "$BIN/ddp_step" --bucket-MB 1,1 --csv "$TMP/keep.csv"
refused $? "--bucket-MB 1,1" "listed twice"
run 2 "$BIN/ddp_step" -a one_shot --csv "$TMP/keep.csv"
refused $? "-a one_shot (reads peers' memory)" "passes messages"
run 2 "$BIN/ddp_step" --layers 0 --csv "$TMP/keep.csv"
refused $? "--layers 0" "layers"
run 2 "$BIN/ddp_step" --layers 9 --hidden 16384 --bucket-MB 1000000 --csv "$TMP/keep.csv"
refused $? "a bucket past MPI's int count" "past MPI's int count"
run 2 "$BIN/ddp_step" -a none --no-library --csv "$TMP/keep.csv"
refused $? "nothing to run" "nothing to run"
[ "$(cat "$TMP/keep.csv")" = keep ] && ok "no refused run wrote a row" || fail "a refused run wrote"
finish
