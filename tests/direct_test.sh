#!/bin/bash
# The direct transport between processes (--transport direct, docs/direct.md):
# ranks on one node map each other's registered memory through MPI shared
# memory. Every hand-written algorithm of every operation runs over it with
# its result right and its counts its model's, the bytes read from peers
# included; one_shot and two_shot run there and nowhere else; bad input is
# refused with one line.
#   direct_test.sh BIN_DIR
BIN=$1
source "$(dirname "$0")/support/check_lib.sh"
csv=$TMP/r.csv
cols=impl,algorithm,check,traffic,peer_read_max_rank_B,model_peer_read_max_rank_B,peer_written_max_rank_B,buffers,transport,memory_moved_B
# rows NP ARGS...: a fresh CSV of one launch, those columns a row a line.
rows() { rm -f "$csv"; run "$@" -i 2 -x 1 --csv "$csv" && "$BIN/report" --column "$cols" "$csv"; }
# Rows that are not right: a check not ok, a hand-written row whose traffic
# or peer reads differ from the model's or that wrote into a peer's memory,
# a library row said to have gone over direct access.
wrong_rows() {
  awk -F'\t' '$3 != "ok" || ($1 == "hand" && ($4 != "exact" || $5 != $6 || $7 != 0)) || ($1 == "mpi" && $9 != "host")'
}

# All-reduce at P = 1, 3, 4, 8: every algorithm, one_shot and two_shot among
# them, at counts below P, uneven and large; in place too at 4.
for P in 1 3 4 8; do
  for place in "" --in-place; do
    [ -n "$place" ] && [ "$P" != 4 ] && continue
    out=$(rows "$P" "$BIN/allreduce" --transport direct -n 1,7,1000,65537 $place)
    n=$(grep -c $'^hand\t' <<<"$out")
    bad=$(wrong_rows <<<"$out")
    if [ -z "$bad" ] && [ "$n" = 56 ] && grep -q $'\tone_shot\t' <<<"$out" && grep -q $'\ttwo_shot\t' <<<"$out"; then
      ok "allreduce P=$P $place: 56 hand-written rows over direct access, each right, reads = model"
    else
      fail "allreduce P=$P $place: $n rows; $(head -3 <<<"$bad")"
    fi
  done
done

# Every other operation at P = 4 (sendrecv at 2), root 1 for the rooted ones.
for prog in bcast reduce scatter gather allgather reduce_scatter alltoall barrier sendrecv; do
  P=4; [ "$prog" = sendrecv ] && P=2
  out=$(rows "$P" "$BIN/$prog" --transport direct -r 1 -n 5,4096)
  bad=$(wrong_rows <<<"$out")
  n=$(grep -c $'^hand\t' <<<"$out")
  [ -z "$bad" ] && [ "$n" -gt 0 ] && ok "$prog P=$P: $n hand-written rows over direct access, right" \
    || fail "$prog: $n rows; $(head -3 <<<"$bad")"
done

# --registered: the rows say so; the default says private; the heading says which.
out=$(rows 4 "$BIN/allreduce" --transport direct --registered -a ring,two_shot -n 1000)
[ "$(cut -f8 <<<"$out" | sort -u | tr '\n' ' ')" = "private registered " ] \
  && [ "$(grep -c $'\tregistered\tdirect\t[0-9]*$' <<<"$out")" = 2 ] && grep -q $'^mpi\t.*\tprivate\thost\t$' <<<"$out" && grep -q "buffers registered" "$TMP/out" \
  && ok "--registered: the hand-written rows say registered, the library's private" || fail "--registered: $out"
out=$(rows 4 "$BIN/allreduce" --transport direct -a two_shot -n 1000)
# Its memory traffic, a rank's: the 3 chunks its peers read copied to
# scratch (2 x 3000 B), its chunk reduced from 4 terms in one pass (reads 4 x
# 1000 B, writes 1000 B), its sum copied out (2 x 1000 B), 3 chunks read
# (2 x 3000 B): 19000 B, 4 ranks.
grep -q $'two_shot\tok\texact\t6000\t6000\t0\tprivate\tdirect\t76000$' <<<"$out" \
  && grep -q "private buffers: what peers read is copied" "$TMP/out" \
  && ok "two_shot P=4, 4000 B: a rank reads 3 chunks of 1000 B in each of 2 steps; 76000 B moved in memory" \
  || fail "two_shot counts: $out"

# The programs named for them run over direct access by themselves, --registered too.
run 3 "$BIN/allreduce_one_shot" -n 10 -i 1 -x 0 && grep -q "one_shot .* ok" "$TMP/out" \
  && grep -q "^# transport direct" "$TMP/out" && ok "allreduce_one_shot takes --transport direct by itself" \
  || fail "allreduce_one_shot"
run 3 "$BIN/allreduce_two_shot" --registered -n 10 -i 1 -x 0 && grep -q "two_shot .* ok" "$TMP/out" \
  && grep -q "buffers registered" "$TMP/out" && ok "allreduce_two_shot --registered" \
  || fail "allreduce_two_shot --registered"
# --show --steps: the schedule of reads, by phase.
run 3 "$BIN/allreduce_two_shot" --show --steps && grep -q "reduce-scatter" "$TMP/out" \
  && grep -q "step 1: 0->1 chunk 0 (4 B)" "$TMP/out" && ok "two_shot --show --steps: its reads by phase" \
  || fail "two_shot --show"

# Bad input: one line, exit 2, on every rank.
run 2 "$BIN/allreduce" -a one_shot -n 8; refused $? "-a one_shot without --transport direct" "only --transport direct maps"
run 2 "$BIN/allreduce" --registered -n 8; refused $? "--registered without --transport direct" "only with --transport direct"
run 2 "$BIN/allreduce" --transport staged -n 8; refused $? "--transport staged on host buffers" "GPU buffers only"
run 2 "$BIN/allreduce" --transport nvlink -n 8; refused $? "--transport nvlink" "unknown --transport"
# The signalling set on some ranks only: refused on every rank, not a wait
# that times out (ranks 0, 1 signal from the device's ops, 2, 3 from the host).
run 2 env COMMLAB_DIRECT_SIGNAL=device "$BIN/allreduce" --transport direct -a ring -n 8 -i 1 -x 0 \
  : -np 2 "$BIN/allreduce" --transport direct -a ring -n 8 -i 1 -x 0
refused $? "COMMLAB_DIRECT_SIGNAL on two ranks of four" "the ranks chose different signalling"
# The default sweep over MPI leaves them out, without a word.
run 2 "$BIN/allreduce" -n 8 -i 1 -x 0 && ! grep -q "one_shot\|two_shot" "$TMP/out" \
  && ok "over MPI, -a all leaves one_shot and two_shot out" || fail "-a all over MPI"
finish
