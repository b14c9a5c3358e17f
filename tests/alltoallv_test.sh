#!/bin/bash
# alltoallv as a user runs it: MPI_Alltoallv and the three schedules at P = 2
# and 4 on a skewed load, an even one and a matrix file with zeros, each row
# checked exactly and the hand-written rows' traffic their model's; bad
# matrices and flags refused in one line. Nothing here reads a time.
BIN=$1
source "$(dirname "$0")/support/check_lib.sh"
cat > "$TMP/m4.txt" <<'M'
# rank i sends row i's counts: zeros, a hot pair (0 -> 3), commas or spaces
0 5 0 300
7,0,7,0
1 1 1 1
0 0 9 0
M
for args in "2:--skew zipf:1.2 --tokens 5000" "4:--skew uniform --tokens 4099" "4:--matrix $TMP/m4.txt"; do
  P=${args%%:*} flags=${args#*:}
  rm -f "$TMP/a.csv"
  # shellcheck disable=SC2086
  run $P "$BIN/alltoallv" $flags -i 3 -x 0 --csv "$TMP/a.csv"
  rc=$?
  "$BIN/report" --column algorithm,check,traffic "$TMP/a.csv" > "$TMP/rows"
  bad=$(awk -F'\t' '$2 != "ok" || ($1 != "MPI_Alltoallv" && $3 != "exact")' "$TMP/rows")
  if [ $rc = 0 ] && [ -z "$bad" ] && [ "$(wc -l < "$TMP/rows")" = 4 ] && grep -q '^MPI_Alltoallv' "$TMP/rows"; then
    ok "alltoallv at P = $P, $flags: MPI_Alltoallv, linear, pairwise, by_load checked, traffic exact"
  else fail "alltoallv P = $P $flags (exit $rc): $bad"; cat "$TMP/rows"; fi
done
# The matrix's busiest sender moves 305 elements, 1220 B: each schedule's sent_max_B.
grep -qE ' by_load +hand .* 1220 +1220 ' "$TMP/out" && ok "the matrix's busiest sender: 1220 B counted and modelled" \
  || { fail "busiest sender"; cat "$TMP/out"; }

echo keep > "$TMP/keep.csv"
# bad_matrix P WHAT CONTENT PATTERN: a matrix file refused at P ranks.
bad_matrix() {
  printf "$3" > "$TMP/m.txt"
  run "$1" "$BIN/alltoallv" --matrix "$TMP/m.txt" --csv "$TMP/keep.csv"
  refused $? "$2" "$4"
}
bad_matrix 3 "a 2 x 2 matrix at P = 3" '1 2\n3 4\n' "2 counts, want P = 3"
bad_matrix 2 "a matrix with a word in it" '1 x\n3 4\n' "'x' is not a count"
bad_matrix 2 "a negative count" '1 -2\n3 4\n' "is not a count"
bad_matrix 2 "a count past MPI's int" '1 3000000000\n3 4\n' "counts are int"
bad_matrix 2 "counts that add up past MPI's int" '2000000000 2000000000\n3 4\n' "counts and displacements are int"
printf '1 2\n3 4\n' > "$TMP/m2.txt"
run 2 "$BIN/alltoallv" --matrix "$TMP/none.txt" --csv "$TMP/keep.csv"
refused $? "a missing matrix file" "cannot be read"
run 2 "$BIN/alltoallv" --matrix "$TMP/m2.txt" --skew uniform --csv "$TMP/keep.csv"
refused $? "--matrix with --skew" "not with --skew"
run 2 "$BIN/alltoallv" --skew zipf:-1 --csv "$TMP/keep.csv"
refused $? "--skew zipf:-1" "exponent"
run 2 "$BIN/alltoallv" -a spiral --csv "$TMP/keep.csv"
refused $? "-a spiral" "no such schedule"
[ "$(cat "$TMP/keep.csv")" = keep ] && ok "no refused run wrote a row" || fail "a refused run wrote"
finish
