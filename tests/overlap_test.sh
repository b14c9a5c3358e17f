#!/bin/bash
# --overlap as a user runs it: every program's non-blocking rows (the
# library's MPI_I* call and each hand-written algorithm replayed from its
# recorded schedule), checked, their traffic still the model's, OSU's and
# IMB's figures filled; and the flags' bad input refused. Nothing here reads
# a time: overlap figures on 2 cores are whatever the machine gives.
BIN=$1
source "$(dirname "$0")/support/check_lib.sh"
col() { python3 - "$@" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows: print(*(r[c] for c in sys.argv[2:]))
PY
}

# The all-reduce at P = 2 and 4: MPI_Iallreduce and every hand-written one.
for P in 2 4; do
  rm -f "$TMP/a.csv"
  run $P "$BIN/allreduce" --overlap --probes 4 -n 1000,4099 -i 3 -x 1 --csv "$TMP/a.csv"
  rc=$?
  col "$TMP/a.csv" algorithm check probes t_pure_us t_overlap_us overlap_pct overlap_imb_pct \
    sent_max_rank_B model_sent_max_rank_B rounds model_overlap_pct > "$TMP/rows"
  bad=$(awk '$2 != "ok" || $3 != 4 || $4 == "" || $5 == "" || $6 < 0 || $7 < 0 ||
             ($1 != "MPI_Iallreduce" && ($8 != $9 || $10 == "" || $11 == ""))' "$TMP/rows")
  nb=$(grep -c '_nb ' "$TMP/rows")
  if [ $rc = 0 ] && [ -z "$bad" ] && [ "$nb" -ge 24 ] && grep -q '^MPI_Iallreduce ' "$TMP/rows"; then
    ok "allreduce --overlap at P = $P: MPI_Iallreduce and $nb replayed rows, checked, traffic exact, figures filled"
  else fail "allreduce --overlap P = $P (exit $rc): ${bad:-$nb rows}"; head -5 "$TMP/rows"; fi
done
grep -q 'overlap: pure .* OSU .*IMB .* rounds, 4 probes' "$TMP/out" \
  && ok "the table prints each row's overlap line" || fail "overlap line"

# Every other program: its MPI_I* call (the v-variant where P does not
# divide N) and its algorithms, in place where it has the form.
for prog in bcast:MPI_Ibcast reduce:MPI_Ireduce scatter:MPI_Iscatterv gather:MPI_Igatherv \
            allgather:MPI_Iallgatherv reduce_scatter:MPI_Ireduce_scatter alltoall:MPI_Ialltoallv \
            barrier:MPI_Ibarrier; do
  name=${prog%%:*} call=${prog#*:}
  rm -f "$TMP/p.csv"
  run 3 "$BIN/$name" --overlap -n 7 -i 2 -x 0 -r 1 --csv "$TMP/p.csv"
  rc=$?
  col "$TMP/p.csv" algorithm check > "$TMP/rows"
  bad=$(awk '$2 != "ok"' "$TMP/rows")
  if [ $rc = 0 ] && [ -z "$bad" ] && grep -q "^$call " "$TMP/rows" && grep -q '_nb ' "$TMP/rows"; then
    ok "$name --overlap at P = 3: $call and the replayed algorithms, checked"
  else fail "$name --overlap (exit $rc): $bad"; fi
done
run 2 "$BIN/sendrecv" --overlap -n 5 -i 2 -x 0 --csv "$TMP/s.csv"
rc=$?
col "$TMP/s.csv" algorithm check > "$TMP/rows"
[ $rc = 0 ] && ! grep -q '^MPI_' "$TMP/rows" && grep -q '^pingpong_nb ok' "$TMP/rows" \
  && ok "sendrecv --overlap: no library row (no MPI_Isendrecv before MPI 4.0), ours replayed" \
  || fail "sendrecv --overlap"

# Bad input: one line, exit 2, no row written.
echo keep > "$TMP/keep.csv"
run 2 "$BIN/allreduce" --overlap --probes -1 -n 4 --csv "$TMP/keep.csv"
refused $? "--probes -1" "probes"
run 2 "$BIN/allreduce" --probes 2 -n 4 --csv "$TMP/keep.csv"
refused $? "--probes without --overlap" "give --overlap too"
run 2 "$BIN/allreduce" --overlap -d cuda -n 4 --csv "$TMP/keep.csv"
refused $? "--overlap -d cuda" "host buffers only"
run 2 "$BIN/allreduce" --overlap --transport direct -n 4 --csv "$TMP/keep.csv"
refused $? "--overlap --transport direct" "over MPI only"
run 2 "$BIN/allreduce_one_shot" --overlap -n 4 --csv "$TMP/keep.csv"
refused $? "allreduce_one_shot --overlap (direct by its name)" "over MPI only"
[ "$(cat "$TMP/keep.csv")" = keep ] && ok "no refused run wrote a row" || fail "a refused run wrote"
finish
