#!/bin/bash
# make check under MPICH too (Debian's mpich, libmpich-dev): the programs
# built against it into a folder of their own, only the targets these checks
# run; every program test through ctest there (every operation at P = 1, 2
# and 3, in and out of place), the all-reduce's matrix at P = 5 and the
# counted transport at P = 2; then what is MPICH's own: --mpi-algorithm through its CVARs, seen
# to take effect, the rows naming what they forced and saying the library's
# bytes are not counted, and a JSON tuning file written by report --rules
# that MPICH runs by, and a JSON rule seen to take effect.
# The report reads no MPI: the main build's (REPORT) reads the rows here.
#   mpich_test.sh SOURCE_DIR BUILD_DIR REPORT
SRC=$1 OUT=$2 REPORT=$3
if ! [ -x /usr/bin/mpicxx.mpich ] || ! [ -x /usr/bin/mpiexec.mpich ]; then
  echo "skipped: no MPICH (scripts/deps.sh installs mpich and libmpich-dev)"; exit 77
fi
# Before check_lib.sh, which reads it: Hydra, more ranks than cores by itself.
export COMMLAB_MPIEXEC=/usr/bin/mpiexec.mpich
source "$SRC/tests/support/check_lib.sh"
BIN=$OUT/bin
programs="allreduce sendrecv bcast reduce scatter gather allgather reduce_scatter alltoall barrier"
# -j 2: this test runs alone (RUN_SERIAL), on CI's 2 cores; each target's
# files compiled together (a unity build: half the time of one at a time),
# at -O1: these runs check results and counts, and time nothing that a test
# reads (114 -> 78 s of build here, against the default -O3).
# shellcheck disable=SC2046  # the generator flags split into words, or none
if cmake $(new_build_generator "$OUT") -S "$SRC" -B "$OUT" -DCOMMLAB_MPI=mpich -DCOMMLAB_CUDA=OFF -DCMAKE_UNITY_BUILD=ON \
     -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" >"$TMP/build" 2>&1 \
  && cmake --build "$OUT" -j 2 --target $programs mpi_transport_test >>"$TMP/build" 2>&1; then
  ok "built against MPICH ($(cat "$BIN/mpi-library.txt"))"
else
  tail -20 "$TMP/build"; fail "the MPICH build"; finish; exit 1
fi
# MPICH 4.0's ranks never yield while they wait (support/mpich_yield.c says
# why no setting helps): with more ranks than cores, each MPICH run here
# preloads a shim that yields the core when a poll finds nothing to do.
if cc -shared -fPIC -O2 -o "$OUT/mpich_yield.so" "$SRC/tests/support/mpich_yield.c" -ldl 2>"$TMP/cc"; then
  export LD_PRELOAD=$OUT/mpich_yield.so
else
  cat "$TMP/cc"; fail "the yield shim"; finish; exit 1
fi

# Every program test of make test (every operation and algorithm at P = 1,
# 2 and 3, in and out of place, every dtype and op: each P shape the programs
# treat apart) and the counted transport at P = 2, launched by
# mpiexec.mpich as ctest's MPIEXEC_RUN there says; then the all-reduce's
# matrix at P = 5, more ranks than cores and than a power of two. Left out:
# reduce_P3_in, whose library row crashes inside MPICH 4.0.2 (MPI_Reduce with
# MPI_IN_PLACE at root 2 of 3, 100003 elements: a segfault in libmpich's
# copy, with or without the shim; root 0, or out of place, runs right).
if (cd "$OUT" && ctest --timeout 180 -R '^([a-z_]+_P[123]_(out|in)|mpi_transport_P2)$' \
      -E '^reduce_P3_in$' >"$TMP/ctest" 2>&1) \
  && n=$(grep -oE "tests passed, 0 tests failed out of [0-9]+" "$TMP/ctest" | grep -oE "[0-9]+$") \
  && [ "${n:-0}" -ge 30 ]; then
  ok "$n program tests under mpiexec.mpich"
else
  fail "program tests under MPICH"; grep -E "Failed|tests passed|Not Run" "$TMP/ctest" | head
fi
run 5 "$BIN/allreduce" -n 0,1,2,4,100003 -T all -o all -i 1 -x 0 -r 2
[ $? = 0 ] && ! grep -q FAIL "$TMP/out" \
  && ok "every all-reduce, dtype and op at P = 5: $(grep -cE ' ok *$' "$TMP/out") rows ok" \
  || fail "the all-reduce at P = 5 under MPICH"

# MPICH's names, one a line; a forced row says what it forced and that
# MPICH's bytes are not counted; an unknown name refused in one line.
run 1 "$BIN/allreduce" --mpi-algorithm list
[ "$(tr '\n' ' ' <"$TMP/out")" = "nb smp recursive_doubling reduce_scatter_allgather " ] \
  && ok "--mpi-algorithm list: MPICH's names" || fail "list: $(cat "$TMP/out")"
run 4 "$BIN/allreduce" -a ring --mpi-algorithm recursive_doubling -n 1000 -i 1 -x 0 --csv "$TMP/f.csv"
[ $? = 0 ] && grep -q "^# library rows not counted: MPICH" "$TMP/out" \
  && [ "$("$REPORT" --column algorithm,sent_max_rank_B,check "$TMP/f.csv" | head -1)" = $'MPI_Allreduce:recursive_doubling\t\tok' ] \
  && ok "a forced row: MPI_Allreduce:recursive_doubling, not counted, said in the heading" \
  || fail "forced row: $(cat "$TMP/out")"
run 2 "$BIN/allreduce" --mpi-algorithm ring -n 8
refused $? "an algorithm MPICH does not have" "not one of MPICH's (MPI_Allreduce: nb, smp"

# The CVAR reaches the algorithm: MPICH's reduce_scatter_allgather cannot
# run fewer elements than P's power of two, and with fallback=error MPICH
# says so instead of running its own choice; recursive doubling can.
export MPIR_CVAR_COLLECTIVE_FALLBACK=error
run 4 "$BIN/allreduce" -a none --mpi-algorithm reduce_scatter_allgather -n 2 -i 1 -x 0
rc=$?
run 4 "$BIN/allreduce" -a none --mpi-algorithm recursive_doubling -n 2 -i 1 -x 0
[ $rc != 0 ] && [ $? = 0 ] && ok "--mpi-algorithm reaches MPICH (its fallback check fires)" \
  || fail "forcing did not reach MPICH (rc $rc)"
unset MPIR_CVAR_COLLECTIVE_FALLBACK

# report --rules over MPICH's rows: a JSON file (not Open MPI's format) with
# every collective MPICH needs, its evidence on stderr, which MPICH runs by
# (the rows named MPI_Allreduce:rules). Timing decides what it keeps: either passes.
for a in "" "--mpi-algorithm recursive_doubling" "--mpi-algorithm reduce_scatter_allgather"; do
  run 2 "$BIN/allreduce" -a none $a -n 1024,262144 -i 3 -x 1 --csv "$TMP/t.csv"
done
"$REPORT" --rules "$TMP/t.csv" >"$TMP/rules.json" 2>"$TMP/evidence" \
  && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "collective=barrier" in d' "$TMP/rules.json" \
  && grep -q "MPI_Allreduce P = 2, 1048576 B: .* against the default" "$TMP/evidence" \
  && run 2 "$BIN/allreduce" -a none --mpi-rules "$TMP/rules.json" -n 1024,262144 -i 1 -x 0 --csv "$TMP/r.csv" \
  && grep -q "MPI_Allreduce:rules" "$TMP/r.csv" \
  && ok "report --rules writes MPICH's JSON, which MPICH runs by" \
  || { fail "report --rules for MPICH"; head -5 "$TMP/evidence"; }

# A JSON rule takes effect: reduce_scatter_allgather up to 64 B at P = 4,
# where it cannot run 2 elements (MPICH aborts), and MPICH's own above.
python3 - "$TMP/rules.json" "$TMP/rsa.json" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]), object_pairs_hook=collections.OrderedDict)
d["collective=allreduce"]["comm_type=intra"] = collections.OrderedDict([
    ("avg_msg_size<=64", {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}),
    ("avg_msg_size=any", {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}})])
json.dump(d, open(sys.argv[2], "w"))
PY
run 4 "$BIN/allreduce" -a none --mpi-rules "$TMP/rsa.json" -n 2 -i 1 -x 0
rc=$?
run 4 "$BIN/allreduce" -a none --mpi-rules "$TMP/rsa.json" -n 1000 -i 1 -x 0
[ $rc != 0 ] && [ $? = 0 ] && ok "a JSON rule takes effect (MPICH ran the one it names)" \
  || fail "the JSON rule did not take effect (rc $rc)"
echo '{"collective=allreduce": {}}' >"$TMP/part.json"
run 2 "$BIN/allreduce" --mpi-rules "$TMP/part.json" -n 8
refused $? "a JSON file without every collective" "not a whole MPICH tuning file"
finish
