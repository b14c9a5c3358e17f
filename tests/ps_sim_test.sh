#!/bin/bash
# ps_sim under MPI. The program itself checks, with -c on (the default), that
# a synchronous run reaches serial SGD's weights (bit for bit when the server
# sums in worker order) and that every rank moved exactly its formula's bytes;
# it exits 1 otherwise. Here: every mode over P, S and placements, the
# staleness bound, stragglers in every mode (no hang), and bad input.
BIN=$1
RUN_TIMEOUT=120
source "$(dirname "$0")/support/check_lib.sh"
fail() { fails=$((fails + 1)); echo "FAIL $1"; sed 's/^/     | /' "$TMP/out" "$TMP/err" | tail -8; }
csv=$TMP/ps.csv
# A column of the CSV's last row, by name (report's CSV reader: quotes respected).
col() { "$BIN/report" --column "$1" "$csv" | tail -1; }
small=(-M 64K -C 8 -i 6 -b 4 --csv "$csv")

# Synchronous training equals serial SGD, and the bytes are exact.
for np in 2 3 5; do
  for S in 1 2 4; do
    [ "$S" -lt "$np" ] || continue
    for placement in even uneven hashed; do
      what="ps P=$((np - S)) S=$S $placement"
      run "$np" "$BIN/ps_sim" --mode ps -s "$S" --placement "$placement" "${small[@]}" \
        && [ "$(col check)" = ok ] && [ "$(col traffic)" = exact ] \
        && [ "$(col server_out_max_B)" = "$(col exact_max_B)" ] && ok "$what" || fail "$what"
    done
  done
done
for P in 1 2 3 4; do
  for mode in colocated ring mpi; do
    run "$P" "$BIN/ps_sim" --mode "$mode" "${small[@]}" && [ "$(col check)" = ok ] \
      && ok "$mode P=$P" || fail "$mode P=$P"
  done
done
run 3 "$BIN/ps_sim" --mode colocated --placement hashed "${small[@]}" && [ "$(col check)" = ok ] \
  && ok "colocated, hashed shards" || fail "colocated hashed"

# The textbook numbers: one server sends P x model per iteration, S even
# shards P/S of that, colocated 2(P-1)/P x model per rank.
run 5 "$BIN/ps_sim" -s 1 -M 64K -i 2 --csv "$csv" && [ "$(col server_out_max_B)" = 262144 ] \
  && [ "$(col worker_out_max_B)" = 65536 ] && ok "one server: 4 x 64 KiB out" || fail "P x model"
run 6 "$BIN/ps_sim" -s 2 -M 64K -i 2 --csv "$csv" && [ "$(col server_out_max_B)" = 131072 ] \
  && ok "two shards: 4/2 x 64 KiB each" || fail "P/S x model"
run 4 "$BIN/ps_sim" --mode colocated -M 64K -i 2 --csv "$csv" && [ "$(col rank_out_max_B)" = 98304 ] \
  && ok "colocated: 2(4-1)/4 x 64 KiB per rank" || fail "colocated 2(P-1)/P"

# Bounded staleness: tau = 0 is BSP (checked against serial SGD, nothing
# stale); with a straggler no gradient is staler than tau, yet some reach it;
# without a bound they go past it. The straggler 200 times slower (tens of ms
# an iteration): far above what a loaded machine adds to the others' pulls.
run 4 "$BIN/ps_sim" --consistency ssp --tau 0 "${small[@]}" && [ "$(col check)" = ok ] \
  && [ "$(col staleness_max)" = 0 ] && [ -n "$(col weights_max_rel_diff)" ] \
  && ok "ssp tau=0 reproduces BSP" || fail "ssp tau=0"
run 4 "$BIN/ps_sim" --consistency ssp --tau 2 --straggler 0:200 -M 64K -C 8 -b 16 -i 12 --csv "$csv" \
  && [ "$(col check)" = ok ] && [ "$(col staleness_max)" = 2 ] \
  && ok "ssp tau=2 with a straggler: staleness reaches 2, never more ($(col staleness_hist))" \
  || fail "ssp tau=2"
run 4 "$BIN/ps_sim" --consistency async --straggler 0:200 -M 64K -C 8 -b 16 -i 12 --csv "$csv" \
  && [ "$(col staleness_max)" -gt 2 ] \
  && ok "async with a straggler goes past 2 ($(col staleness_hist))" || fail "async staleness"
run 5 "$BIN/ps_sim" --consistency ssp --tau 1 -s 2 --placement hashed --straggler 2:4 "${small[@]}" \
  && [ "$(col staleness_max)" -le 1 ] && ok "ssp tau=1, two hashed shards" || fail "ssp two servers"

# A straggler in every mode: everyone finishes, the others wait for it.
for mode in "--mode ps" "--mode ps -s 2" "--mode colocated" "--mode ring" "--mode mpi" \
            "--consistency async"; do
  run 4 "$BIN/ps_sim" $mode --straggler 1:3 "${small[@]}" && [ "$(col check)" = ok ] \
    && ok "straggler, $mode" || fail "straggler, $mode"
done

# Loss per iteration: one row per iteration, falling.
run 3 "$BIN/ps_sim" -M 64K -i 20 --loss-csv "$TMP/loss.csv" \
  && [ "$(wc -l < "$TMP/loss.csv")" = 21 ] \
  && "$BIN/report" --column loss "$TMP/loss.csv" | awk 'NR == 1 { a = $1 } END { exit !(NR && $1 < a / 2) }' \
  && ok "loss CSV: 20 iterations, loss halves" || fail "loss csv"

# Bad input: one line, exit 2, no row written.
rows=$(wc -l < "$csv")
bad() {
  local np=$1 want=$2; shift 2
  run "$np" "$BIN/ps_sim" "$@" --csv "$csv"
  local rc=$?
  if [ $rc = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q -- "$want" "$TMP/err"; then
    ok "bad input: $* -> $(cat "$TMP/err")"
  else fail "bad input: $* (rc $rc)"; fi
}
bad 2 "leaves no worker" -s 2
bad 3 "use ps, colocated" --mode bogus
bad 3 "needs --mode ps" --mode ring --consistency async
bad 3 "--tau is the bound" --tau 2
bad 3 "not among the 2 workers" --straggler 5:2
bad 3 "WORKER:FACTOR" --straggler fast
bad 3 "between 128 and" -M 16 -C 16
bad 3 "use even, uneven or hashed" --placement round
# Hostile values: past a float's range, unbounded work, memory the flags would take
# (30 s: unbounded work would run for hours; a start-up beside other tests takes seconds).
RUN_TIMEOUT=30
bad 3 "'inf' is not a number" -i 2 -M 64K --lr inf
bad 3 "'nan' is not a number" --lr nan
bad 3 "factor 1e9: use a number from 1 to 1000" --straggler 0:1e9
bad 3 "factor nan" --straggler 0:nan
bad 3 "WORKER:FACTOR" --straggler -1:2
bad 3 "not in range" -b 2147483647
bad 3 "not in range" --samples 300000000
bad 3 "a batch is at most" -b 300 --samples 256
bad 3 "need .* GiB of memory" -M 4G -C 2
RUN_TIMEOUT=120
[ "$(wc -l < "$csv")" = "$rows" ] && ok "bad input writes no row" || fail "rows after bad input"

finish
