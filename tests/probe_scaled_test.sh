#!/bin/bash
# No test's outcome may depend on how fast the machine is. The programs read
# the time model's figures (alpha, beta, gamma, the overlap) from a probe at
# start; this runs make test's program tests again with those figures moved
# (COMMLAB_PROBE_SCALE, core/time_model.hpp): alpha halved, beta doubled,
# gamma halved and no overlap; then the other way, with full overlap. A test
# that fails under either compared a result with a choice made from timings
# (a segment, auto's pick) instead of fixing it. The unit and in-process
# tests never probe (their models are given): left out; so are the labs' and
# the pages' commands (label lab), which hold printed lines to the pages and
# grade a run against keys computed from that same run: make test runs them
# once, and twice more here would put make check past 75 minutes on 2 cores.
#   probe_scaled_test.sh BUILD_DIR
BUILD=$1
source "$(dirname "$0")/support/check_lib.sh"
cd "$BUILD" || exit 1
for scale in 0.5,2,0.5,0 2,0.5,2,1; do
  COMMLAB_PROBE_SCALE=$scale ctest -j "$(nproc)" -LE 'check|inprocess|unit|lab' --timeout 600 \
    >"$TMP/log" 2>&1 && ok "make test's program tests with the probe scaled $scale" \
    || { fail "probe scaled $scale"; grep -E "Failed|\*\*\*" "$TMP/log" | head -20; }
done
# A malformed setting is refused like any bad input: one line, exit 2.
COMMLAB_PROBE_SCALE=2,x run 2 bin/allreduce -n 8 -i 1 -x 0
refused $? "COMMLAB_PROBE_SCALE=2,x" "COMMLAB_PROBE_SCALE '2,x': want"
finish
