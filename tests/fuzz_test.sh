#!/bin/bash
# The libFuzzer targets (tests/fuzz/): built with clang into BUILD_DIR, each run
# for SECONDS from the committed corpus (new finds go to BUILD_DIR/corpus, not
# the repository). A crash, a hang (10 s), a sanitizer finding or a trap on a
# broken invariant fails. Skipped (77) where clang or libFuzzer is missing.
# Usage: fuzz_test.sh SOURCE_DIR BUILD_DIR SECONDS
SRC=$1 DIR=$2 SECONDS_EACH=$3
source "$(dirname "$0")/support/check_lib.sh"
if ! command -v clang++ >/dev/null; then
  echo "skipped: no clang++ (apt-get install clang; make deps does)"
  exit 77
fi
if ! CXX=clang++ cmake -S "$SRC/tests/fuzz" -B "$DIR" -DCMAKE_BUILD_TYPE=None >"$TMP/build.log" 2>&1 \
   || ! cmake --build "$DIR" -j "$(nproc)" >>"$TMP/build.log" 2>&1; then
  if grep -q "libclang_rt.fuzzer\|fsanitize=fuzzer" "$TMP/build.log"; then
    echo "skipped: clang has no libFuzzer runtime (apt-get install libclang-rt-dev)"
    exit 77
  fi
  tail -20 "$TMP/build.log"
  fail "fuzz build"
  finish
  exit 1
fi
# Each target alone on a core: two at once on 2 cores, the third after
# (each as many inputs as run alone, in two thirds of the wall time).
fuzz() {  # TARGET: its run, into $TMP/TARGET.out
  mkdir -p "$DIR/corpus/$1"
  "$DIR/fuzz_$1" "$DIR/corpus/$1" "$SRC/tests/fuzz/corpus/$1" -max_total_time="$SECONDS_EACH" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$TMP/$1.out" 2>&1
}
fuzz flags & pid_flags=$!
fuzz sizes & pid_sizes=$!
wait $pid_flags; rc_flags=$?
fuzz csv & pid_csv=$!
wait $pid_sizes; rc_sizes=$?
wait $pid_csv; rc_csv=$?
for target in flags sizes csv; do
  rc_var=rc_$target
  if [ "${!rc_var}" = 0 ]; then
    ok "fuzz_$target: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$TMP/$target.out" \
         | grep -o '[0-9]*$') inputs in ${SECONDS_EACH} s, no finding"
  else
    fail "fuzz_$target"
    grep -A20 "ERROR\|runtime error\|deadly signal" "$TMP/$target.out" | head -30
  fi
done
finish
