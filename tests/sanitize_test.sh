#!/bin/bash
# The suite under AddressSanitizer and UndefinedBehaviorSanitizer (float-cast-
# overflow included, halt on the first finding): a build of its own in DIR,
# then the unit tests; every algorithm of every operation in process at
# P = 3, 4, 5 and 8 (the in-process tests: awkward counts, every dtype and
# op, in and out of place, roots, over threads and over direct access with
# both signallings), which reach every schedule in a fraction of the time
# mpirun would; every program under mpirun at P = 3 on awkward counts, dtypes
# and ops (the MPI transport, the harness, the library rows), a few over
# direct access through MPI shared memory, the all-reduce with --overlap;
# ps_sim, the report, and the
# hostile inputs, which must still end with one line and exit 2.
#   sanitize_test.sh SOURCE_DIR BUILD_DIR
SRC=$1 DIR=$2
source "$(dirname "$0")/support/check_lib.sh"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
jobs=$(nproc)

# Open MPI's own allocations are not ours to judge (detect_leaks=0). The
# build is -O1 (what the sanitizers' authors advise) with line tables (-g1),
# so a finding names its file and line, and asserts on; each target's files
# compiled together (a unity build: half the time, on 2 cores, of one file
# at a time, which the headers shared by every file dominate). The programs
# are those of programs.txt, written when cmake configures. Clang where it is
# found (make deps installs it, for the fuzzers too): the sanitizers are its
# own, and it compiles this build in two thirds of GCC's time (-O1 with
# UBSan's checks is what GCC is slow at: 58 s against 86 s for the largest
# file here), which leaves GCC's view of the code to the other builds. A
# folder configured before keeps its compiler.
compiler=
command -v clang++ >/dev/null && [ ! -f "$DIR/CMakeCache.txt" ] && compiler=-DCMAKE_CXX_COMPILER=clang++
# shellcheck disable=SC2046,SC2086  # the generator flags split into words, or none
if ! cmake $(new_build_generator "$DIR") $compiler -S "$SRC" -B "$DIR" -DCOMMLAB_SANITIZE=ON -DCOMMLAB_CUDA=OFF \
       -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" \
       -DCMAKE_UNITY_BUILD=ON >"$TMP/build.log" 2>&1 \
   || ! cmake --build "$DIR" -j "$jobs" --target unit_tests inprocess_tests ps_sim report allreduce_ring \
        $(cat "$DIR/bin/programs.txt") >>"$TMP/build.log" 2>&1; then
  tail -30 "$TMP/build.log"
  fail "sanitizer build"
  finish
  exit 1
fi
B=$DIR/bin

timeout 600 "$B/unit_tests" >"$TMP/out" 2>"$TMP/err" && ok "unit tests under ASan + UBSan" \
  || { fail "unit tests under ASan + UBSan"; tail -20 "$TMP/out"; }

# Every schedule in process, at the P where power of two, fold, odd and
# even, and one past a power of two all occur.
COMMLAB_INPROCESS_PS=3,4,5,8 timeout 900 "$B/inprocess_tests" "~[every-P]" >"$TMP/out" 2>"$TMP/err" \
  && ok "every algorithm in process at P = 3, 4, 5, 8 under ASan + UBSan" \
  || { fail "in-process tests under ASan + UBSan"; tail -20 "$TMP/out"; }

# Every program at P = 3, every dtype and op, counts 0, 1, P+1 and a prime.
RUN_TIMEOUT=300
P=3
for program in $(cat "$B/programs.txt"); do
  run "$P" "$B/$program" -n 0,1,$((P + 1)),1009 -T all -o all -i 1 -x 0 -r $((P - 1)) \
    && ok "$program P=$P" || fail "$program P=$P"
done
run 4 "$B/allreduce" -n 7,1009 --in-place -i 1 -x 0 --node-size 2 --segment 12 -a all \
  && ok "allreduce in place, nodes of 2, short segments, P=4" || fail "allreduce nodes P=4"
# The direct transport: peers' memory read through MPI shared memory.
for program in allreduce bcast gather alltoall; do
  run "$P" "$B/$program" --transport direct -n 1,$((P + 1)),1009 -T all -o all -i 1 -x 0 -r 1 \
    && ok "$program over direct access, P=$P" || fail "$program direct P=$P"
done
run 4 "$B/allreduce" --transport direct --registered --in-place -n 7,1009 -i 1 -x 0 \
  && ok "allreduce over direct access, registered, in place, P=4" || fail "allreduce direct registered P=4"
# --overlap: the library's MPI_Iallreduce and every schedule replayed non-blocking.
run 3 "$B/allreduce" --overlap --probes 2 -n 7,1009 -T all -o all -i 1 -x 0 \
  && ok "allreduce --overlap, P=$P" || fail "allreduce --overlap P=$P"
run 4 "$B/ps_sim" -M 64K -i 3 --mode colocated --placement hashed && ok "ps_sim colocated" \
  || fail "ps_sim colocated"
run 3 "$B/ps_sim" -M 64K -i 3 --consistency ssp --tau 1 --straggler 0:2 && ok "ps_sim ssp" \
  || fail "ps_sim ssp"
run 3 "$B/allreduce" -n 4,64 -i 2 -x 0 --csv "$TMP/rows.csv" && "$B/report" "$TMP" >"$TMP/out" 2>"$TMP/err" \
  && ok "report on a fresh CSV" || fail "report"

# The hostile inputs, under the sanitizers: one line, exit 2, no finding.
RUN_TIMEOUT=30
for args in "-n 4611686018427387905 -T float32" "-m 4:64 -f inf" "-m 4:64 -f 1e19" \
            "-m 18446744073709551615" "-n 4,,8" "-i 2147483647"; do
  # shellcheck disable=SC2086
  run 3 "$B/allreduce_ring" $args
  refused $? "allreduce_ring $args" "^error: "
done
run 3 "$B/ps_sim" --lr inf
refused $? "ps_sim --lr inf" "^error: "
finish
