#!/bin/bash
# No test's outcome may depend on how fast the machine is. The programs read
# the time model's figures (alpha, beta, gamma, the overlap) from a probe at
# start; this runs every program path that decides something from those
# figures with them moved (COMMLAB_PROBE_SCALE, core/comm/time_model.hpp): alpha
# halved, beta doubled, gamma halved and no overlap; then the other way, with
# full overlap. A path that fails under either compared a result with a
# choice made from timings instead of fixing it.
#
# What reads the probe (git grep probe_cost, CostModel): the all-reduce
# alone, in three places: -a auto's pick (over MPI, on nodes, and over
# direct access, on the user's buffers or registered ones, where the copies
# in and out are priced too), the segmented ring's segment when --segment
# is not given, and the library rows' naming, which leaves out an algorithm
# whose messages a timing shaped. Every other program only prints the
# model's time beside its own. So the all-reduce runs here as make test's
# program tests run it (P = 1, 3, 4 and 8, the awkward counts, every dtype
# and op, in and out of place, root P-1 and 0), with the algorithms that
# read the probe and the library row; then nodes of 2 ranks and direct
# access. The unit and in-process tests never probe (their models are given).
#   probe_scaled_test.sh BUILD_DIR
BUILD=$1
source "$(dirname "$0")/support/check_lib.sh"
B=$BUILD/bin
RUN_TIMEOUT=180
readers=auto,segmented_ring
for scale in 0.5,2,0.5,0 2,0.5,2,1; do
  export COMMLAB_PROBE_SCALE=$scale
  for P in 1 3 4 8; do
    common=(-n "0,1,$((P - 1)),$((P + 1)),100003" -T all -o all -i 1 -x 0 -a "$readers")
    for variant in "-r $((P - 1))" "-r $((P - 1)) --in-place" "-r 0"; do
      # shellcheck disable=SC2086
      run "$P" "$B/allreduce" "${common[@]}" $variant && ! grep -q FAIL "$TMP/out" \
        && ok "scaled $scale: allreduce P=$P $variant: $(grep -cE ' ok *$' "$TMP/out") rows ok" \
        || fail "scaled $scale: allreduce P=$P $variant"
    done
  done
  run 5 "$B/allreduce_segmented_ring" -n 0,4,6,100003 -T all -o all -i 1 -x 0 -r 2 \
    && ok "scaled $scale: allreduce_segmented_ring P=5" || fail "scaled $scale: segmented_ring P=5"
  run 6 "$B/allreduce" -n 0,5,7,100003 -T all -i 1 -x 0 --node-size 2 -a hierarchical,$readers \
    && ok "scaled $scale: nodes of 2, P=6" || fail "scaled $scale: nodes of 2, P=6"
  for P in 3 4; do
    for buffers in "" --registered; do
      # shellcheck disable=SC2086
      run "$P" "$B/allreduce" --transport direct $buffers -n 1,$((P + 1)),100003 -T all -o all \
        -i 1 -x 0 -a auto,one_shot,two_shot,ring && ! grep -q FAIL "$TMP/out" \
        && ok "scaled $scale: over direct access, ${buffers:-private buffers}, P=$P" \
        || fail "scaled $scale: direct $buffers P=$P"
    done
  done
done
unset COMMLAB_PROBE_SCALE
# The scale reached the model: the heading says so.
COMMLAB_PROBE_SCALE=2,0.5,2,1 run 2 "$B/allreduce" -n 8 -i 1 -x 0 -a auto
grep -q "^# time model: .*scaled 2,0.5,2,1" "$TMP/out" && ok "the heading names the scale" \
  || fail "the scale did not reach the time model"
# A malformed setting is refused like any bad input: one line, exit 2.
COMMLAB_PROBE_SCALE=2,x run 2 "$B/allreduce" -n 8 -i 1 -x 0
refused $? "COMMLAB_PROBE_SCALE=2,x" "COMMLAB_PROBE_SCALE '2,x': want"
finish
