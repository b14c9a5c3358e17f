#!/bin/bash
# What a user sees: --help, --show (the known vectors of docs/formulas.md), CSV appends,
# and bad input: one line, exit status 2 on every rank, no hang, no CSV row.
BIN=$1
source "$(dirname "$0")/support/check_lib.sh"

# --help: usage on stdout, exit 0.
run 2 "$BIN/allreduce_ring" --help && grep -q -- "--message-size" "$TMP/out" \
  && [ "$(grep -c 'Usage' "$TMP/out")" = 1 ] && ok "--help prints usage once" || fail "--help"
# --version: the commit, then MPI (the MPI programs), compiler, CUDA and NCCL,
# once; every tool answers it.
run 2 "$BIN/allreduce" --version
[ "$(grep -c '^allreduce (commlab [0-9a-f]' "$TMP/out")" = 1 ] && grep -q '^MPI: ' "$TMP/out" \
  && grep -q '^compiler: ' "$TMP/out" && grep -q '^CUDA: ' "$TMP/out" && grep -q '^NCCL: ' "$TMP/out" \
  && ok "--version: $(tr '\n' ';' < "$TMP/out")" || { fail "--version"; cat "$TMP/out"; }
for tool in report predict grade lab_check gpu_bandwidth; do
  [ -x "$BIN/$tool" ] || continue
  "$BIN/$tool" --version > "$TMP/out" 2>&1 && grep -q "^$tool (commlab " "$TMP/out" \
    && grep -q '^compiler: ' "$TMP/out" && ok "$tool --version" || { fail "$tool --version"; cat "$TMP/out"; }
done
run 2 "$BIN/ps_sim" --version
[ "$(grep -c '^ps_sim (commlab ' "$TMP/out")" = 1 ] && ok "ps_sim --version" || fail "ps_sim --version"

# --show at P=4 (P elements unless -n says otherwise): element i of rank r
# holds 10r + i before, and 60 + 4i after (docs/formulas.md); the ring's schedule step
# by step under its two phases' names; --steps: each rank's buffer after each.
run 4 "$BIN/allreduce_ring" --show -i 1 -x 0
if grep -q "rank 2: \[20 21 22 23\]" "$TMP/out" && grep -q "rank 3: \[60 64 68 72\]" "$TMP/out" \
   && grep -q "^  reduce-scatter$" "$TMP/out" && grep -q "^  all-gather$" "$TMP/out" \
   && grep -q "step 0: 0->1 chunk 3 (4 B), 1->2 chunk 0 (4 B)" "$TMP/out" \
   && grep -q "step 5: .*3->0 chunk 1 (4 B)" "$TMP/out" && [ "$(grep -cE '^ +float32 +sum +4 ' "$TMP/out")" = 2 ]; then
  ok "--show ring P=4: one run of P elements, 10r + i -> [60 64 68 72], its schedule by phase"
else fail "--show ring"; sed 's/^/     | /' "$TMP/out" | head -30; fi
run 4 "$BIN/allreduce_ring" --steps -i 1 -x 0
sed -n '/^ring (hand)/,$p' "$TMP/out" | sed -n '/step 1:/,/step 2:/p' | grep -q "rank 1: \[10 11 46 16\]" \
  && ok "--steps: rank 1 holds [10 11 46 16] after step 1 (docs: lab 02)" || { fail "--steps"; sed 's/^/     | /' "$TMP/out" | head -40; }
run 4 "$BIN/reduce_scatter" -a ring -n 3 --show -i 1 -x 0
grep -q "0->1 chunk 3 (0 B)" "$TMP/out" \
  && grep -q "0 B messages carry empty chunks: 3 elements cut into 4 chunks leave 1 empty" "$TMP/out" \
  && ok "--show, count < P: the empty chunks' 0 B messages explained" || fail "--show empty chunks"
run 4 "$BIN/allreduce_tree" -n 2 --show -i 1 -x 0 -r 1
grep -q "rank 0: \[60 64\]" "$TMP/out" && grep -q "step 0: 0->2 (8 B)" "$TMP/out" \
  && grep -q "^  reduce$" "$TMP/out" && grep -q "^  broadcast$" "$TMP/out" \
  && ok "--show tree rooted at 1: reduce, then broadcast" || fail "--show tree"

# One program runs every all-reduce algorithm beside the library; -a picks
# some; allreduce_ring is allreduce -a ring under its own name.
run 3 "$BIN/allreduce" -n 10 -i 1 -x 0
[ "$(grep -cE ' (master_worker|ring|tree) +hand .* ok *$' "$TMP/out")" = 3 ] \
  && grep -qE 'MPI_Allreduce +mpi .* ok *$' "$TMP/out" \
  && ok "allreduce: every algorithm beside MPI_Allreduce" || fail "allreduce"
run 3 "$BIN/allreduce" -n 10 -i 1 -x 0 -a tree,ring
[ "$(grep -cE ' hand .* ok *$' "$TMP/out")" = 2 ] && ! grep -qE 'master_worker +hand' "$TMP/out" \
  && ok "allreduce -a tree,ring" || fail "allreduce -a tree,ring"
run 3 "$BIN/allreduce_ring" -n 10 -i 1 -x 0 -a tree
refused $? "allreduce_ring -a tree" "allreduce_ring has no such algorithm (choose from ring)"

# Buffers are printed in rank order, never interleaved.
run 5 "$BIN/allreduce_master_worker" -n 3 --show -i 1 -x 0
order=$(grep -o "^    rank [0-9]" "$TMP/out" | head -5 | tr -d ' \n')
[ "$order" = "rank0rank1rank2rank3rank4" ] && ok "--show prints ranks in order" || fail "--show order: $order"

# A rank that arrives late at every call (COMMLAB_LATE_RANK injects the
# delay): named by late_rank, apart from the slowest rank (it waits least),
# with the skew in the rows and each arrival in iterations.csv. The delay,
# 200 ms, is far above the clock's error and the machine's noise (the other
# ranks held off the cores 50 ms, beside other tests, would not hide it).
COMMLAB_LATE_RANK=2:200 run 3 "$BIN/allreduce" -a ring -n 64 -i 5 -x 0 --csv "$TMP/late.csv" \
  --times "$TMP/late_times.csv"
late=$("$BIN/report" --column late_rank,late_share "$TMP/late.csv" | sort -u)
skews=$("$BIN/report" --column arrival_skew_us "$TMP/late.csv" | awk '$1 < 150000' | wc -l)
lead=$(awk -F, 'NR > 1 && $9 == 2 && $14 >= 150000' "$TMP/late_times.csv" | wc -l)
[ "$late" = $'2\t1.0000' ] && [ "$skews" = 0 ] && [ "$lead" = 10 ] \
  && ok "a rank 200 ms late at every call: late_rank 2 at every call, its lead in iterations.csv" \
  || { fail "late rank: '$late', $skews skews under 150 ms, $lead of 10 leads"; cat "$TMP/late.csv"; }
COMMLAB_LATE_RANK=3:10 run 3 "$BIN/allreduce" -a ring -n 8 -i 1 -x 0
refused $? "COMMLAB_LATE_RANK=3:10 at P = 3" "COMMLAB_LATE_RANK '3:10': want RANK:MS"

# --interleave: a size's rows timed a call each in turn. The same rows as
# without it, each checked and exact, the heading saying so, and the late
# rank still named at every call of every row (each row's calls interleaved
# with the others'). The barrier, which has no data, interleaves too.
COMMLAB_LATE_RANK=1:100 run 3 "$BIN/allreduce" -a ring,tree,auto -n 7,100 -i 3 -x 1 --interleave \
  --csv "$TMP/inter.csv" && grep -q "timed=interleaved" "$TMP/out" && rc=0 || rc=1
rows=$("$BIN/report" --column algorithm,check,late_rank "$TMP/inter.csv" | sort | uniq -c | awk '{ print $1, $2, $3, $4 }' | tr '\n' ';')
[ $rc = 0 ] && [ "$rows" = "2 MPI_Allreduce ok 1;2 auto ok 1;2 ring ok 1;2 tree ok 1;" ] \
  && ok "--interleave: every row checked and timed, the late rank named in each" \
  || fail "--interleave (exit $rc): $rows"
run 3 "$BIN/barrier" -i 3 -x 0 --interleave --csv "$TMP/inter_b.csv" \
  && [ "$("$BIN/report" --column check "$TMP/inter_b.csv" | sort -u)" = ok ] \
  && ok "barrier --interleave" || fail "barrier --interleave"
run 2 "$BIN/allreduce" -n 8 -i 1 --interleave --overlap
refused $? "--interleave --overlap" "^error: --interleave and --overlap"

# CSV: two runs append to one file with one header; every row has every column.
csv=$TMP/r.csv
run 3 "$BIN/allreduce_tree" -n 1,10 -i 2 --csv "$csv" && run 3 "$BIN/allreduce_tree" -n 5 -i 2 --csv "$csv"
# (report --column reads every row with the report's CSV reader, which
# refuses a row of more or fewer cells than the header has)
cols=$(head -1 "$csv" | tr ',' '\n' | grep -c .)
if [ "$(grep -c '^program,' "$csv")" = 1 ] && [ "$(wc -l < "$csv")" = 7 ] \
   && [ "$("$BIN/report" --column impl,traffic,check "$csv" | grep -c $'^hand\texact\tok$')" = 3 ]; then
  ok "CSV appends: one header, 6 rows of $cols columns"
else fail "CSV append"; cat "$csv"; fi

# --json beside --csv: one object per row, the same fields and types (a
# number is a number; a library row is counted where Open MPI's monitoring
# reports it, and its traffic, compared with no model, is empty), and the report reads
# it as it reads the CSV. The header says where the ranks ran.
json=$TMP/r.json
run 3 "$BIN/allreduce" -a ring,tree -n 1,10 -i 2 --csv "$TMP/j.csv" --json "$json"
if [ "$(wc -l < "$json")" = 6 ] && grep -q "^# placement: 1 node x 3 ranks: $(hostname)$" "$TMP/out" \
   && python3 -c '
import csv, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
table = list(csv.DictReader(open(sys.argv[2])))
assert [list(r) for r in rows] == [list(t) for t in table], "columns"
mpi, ring = rows[0], rows[1]
assert mpi["impl"] == "mpi" and mpi["traffic"] == ""
if mpi["sent_max_rank_B"] is not None:  # Open MPI with its monitoring (docs/mpi-algorithms.md)
    assert mpi["sent_max_rank_B"] == int(table[0]["sent_max_rank_B"]) > 0
    assert "recursive_doubling" in mpi["chose"].split("/")
assert ring["algorithm"] == "ring" and ring["P"] == 3 and ring["nodes"] == 1 and ring["ranks_per_node"] == 3
assert isinstance(ring["t_avg_us"], float) and ring["sent_max_rank_B"] == int(table[1]["sent_max_rank_B"])
assert ring["link_GBps"] == float(table[1]["link_GBps"]) >= 0  # a rate: 0.000000 where the machine stalls
' "$json" "$TMP/j.csv" \
   && mkdir -p "$TMP/jr" && "$BIN/report" "$TMP/jr" "$json" >"$TMP/rj" && "$BIN/report" "$TMP/jr" "$TMP/j.csv" >"$TMP/rc" \
   && cmp -s "$TMP/rj" "$TMP/rc"; then
  ok "--json: 6 objects, the CSV's fields and types; the report reads it as the CSV"
else fail "--json"; head -2 "$json"; fi

# srun with the wrong MPI plugin starts P singletons: each says so, exit 2.
SLURM_STEP_NUM_TASKS=4 timeout 60 "$BIN/allreduce_ring" -n 4 -i 1 >"$TMP/out" 2>"$TMP/err"
refused $? "srun's tasks each an MPI job of 1 rank" "srun started 4 tasks but each is an MPI job of 1 rank"

# P = 1 without mpirun (singleton) works.
timeout 60 "$BIN/allreduce_ring" -n 0,1,9 -i 1 >"$TMP/out" 2>"$TMP/err" && [ "$(grep -c ' ok' "$TMP/out")" = 6 ] \
  && ok "singleton run without mpirun" || fail "singleton"

# Bad input. Each: exit 2, exactly one line on stderr saying error:, no CSV written.
bad() {  # name, ranks, args...
  local what=$1 np=$2; shift 2
  cp "$csv" "$TMP/before.csv"
  run "$np" "$BIN/$PROGRAM" "$@"
  local rc=$?
  if [ $rc = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "^error: " "$TMP/err" \
     && cmp -s "$csv" "$TMP/before.csv" && [ ! -s "$TMP/out" ]; then
    ok "bad input, $what: $(cat "$TMP/err")"
  else
    fail "bad input, $what (exit $rc)"
  fi
}
PROGRAM=allreduce_ring
bad "unknown flag" 3 --bogus --csv "$csv"
bad "bad size" 3 -m 12Q --csv "$csv"
bad "min above max" 2 -m 8K:1K --csv "$csv"
bad "bad count" 2 -n 4,x --csv "$csv"
bad "root >= P" 3 -r 3 -n 4 --csv "$csv"
bad "unknown dtype" 2 -T int8 --csv "$csv"
bad "unknown op" 2 -o avg --csv "$csv"
bad "zero iterations" 2 -i 0 --csv "$csv"
bad "-d cuda without a GPU" 3 -d cuda -n 4 --csv "$csv"
bad "more memory than the machine" 2 -m 64G --csv "$csv"
bad "an empty --mpi-algorithm (an unset variable)" 2 --mpi-algorithm "" -n 4 --csv "$csv"
bad "unwritable CSV path" 3 -n 4 --csv /nonexistent-dir/r.csv
bad "unwritable JSON path" 3 -n 4 --csv "$csv" --json /nonexistent-dir/r.json
echo "a,b" > "$TMP/other.csv"
bad "CSV with other columns" 2 -n 4 --csv "$TMP/other.csv"
[ "$(cat "$TMP/other.csv")" = "a,b" ] && ok "foreign CSV left untouched" || fail "foreign CSV changed"

# The collectives: the known vectors (docs/formulas.md) at P = 4, each from a hand-written
# algorithm's --show (the section after its heading).
section() { sed -n "/^$1 (hand)/,/^[a-zA-Z_]* (\(hand\|mpi\))/p" "$TMP/out"; }
run 4 "$BIN/reduce_scatter" -n 4 --show -i 1 -x 0 -a ring
section ring | grep -q "rank 1: \[1 10 100 1000\]" && section ring | grep -q "rank 0: \[6\]" \
  && section ring | grep -q "rank 3: \[6000\]" \
  && ok "--show reduce_scatter: [1 10 100 1000] x r -> 6 x 10^r" || fail "--show reduce_scatter"
run 4 "$BIN/scatter" -n 4 --show -i 1 -x 0 -a binomial
section binomial | grep -q "rank 0: \[10 20 30 40\]" && section binomial | grep -q "rank 2: \[30\]" \
  && ok "--show scatter: [10 20 30 40] -> 10(r+1)" || fail "--show scatter"
run 4 "$BIN/gather" -n 4 --show -i 1 -x 0 -a binomial
section binomial | grep -q "rank 0: \[0 1 2 3\]" && ok "--show gather: [r] -> [0 1 2 3]" || fail "--show gather"
# Bine's subtree of rank 3 at P = 4 is 3 and 2 (docs/algorithms.md): its parts travel packed.
run 4 "$BIN/scatter" -n 4 --show -i 1 -x 0 -a bine --root 1
section bine | grep -q "rank 1: \[10 20 30 40\]" && section bine | grep -q "rank 2: \[30\]" \
  && section bine | grep -q "rank 0: \[10\]" && ok "--show scatter bine, root 1: 10(r+1)" || fail "--show scatter bine"
run 4 "$BIN/gather" -n 4 --show -i 1 -x 0 -a bine --root 2
section bine | grep -q "rank 2: \[0 1 2 3\]" && ok "--show gather bine, root 2: [0 1 2 3]" || fail "--show gather bine"
run 4 "$BIN/allgather" -n 4 --show -i 1 -x 0 -a bruck
section bruck | grep -q "rank 3: \[0 1 2 3\]" && section bruck | grep -q "rank 1: \[0 1 2 3\]" \
  && ok "--show allgather: [r] -> [0 1 2 3] everywhere" || fail "--show allgather"

# -a picks algorithms; the library row always comes first.
run 3 "$BIN/bcast" -n 10 -i 1 -x 0 -a binomial,linear
rows=$(grep -E " (mpi|hand) " "$TMP/out" | awk '{print $5}' | tr '\n' ' ')
[ "$rows" = "MPI_Bcast linear binomial " ] && ok "-a binomial,linear runs those two beside MPI_Bcast" \
  || fail "-a: rows were '$rows'"
# sendrecv: the ping-pong reports one-way latency beside MPI_Send/MPI_Recv.
run 2 "$BIN/sendrecv" -m 1K:4K -i 2 -x 1
[ "$(grep -c ' ok' "$TMP/out")" = 12 ] && grep -q "MPI_Isend/MPI_Irecv" "$TMP/out" \
  && ok "sendrecv: ping-pong and exchange rows, all ok" || fail "sendrecv rows"
# barrier: every rank in turn arrives late; nobody may leave before it.
run 5 "$BIN/barrier" -i 5
[ "$(grep -c ' ok' "$TMP/out")" = 3 ] && ok "barrier: MPI, linear and dissemination all hold the late rank" \
  || fail "barrier"

PROGRAM=alltoall
bad "alltoall in place, count not divisible by P" 4 --in-place -n 6 --csv "$csv"
PROGRAM=sendrecv
bad "sendrecv has no in-place form" 2 --in-place --csv "$csv"
PROGRAM=barrier
bad "barrier has no buffers to register" 2 --transport direct --registered --csv "$csv"
PROGRAM=bcast
bad "unknown algorithm" 3 -a ring --csv "$csv"
bad "count over INT_MAX" 2 -n 3000000000 --csv "$csv"
PROGRAM=allreduce_ring
bad "all-reduce program, another algorithm" 2 -a tree --csv "$csv"

# Hostile input (each within seconds, never a hang): sizes that wrap past
# 2^64, float flags past their range, lists that would repeat or be empty.
# 30 s: work that did not stop would run for hours; a start-up beside other
# tests' ranks on 2 cores takes a few seconds.
RUN_TIMEOUT=30
bad "count x element size wraps" 1 -n 4611686018427387905 -T float32 -i 1 -x 0 --csv "$csv"
bad "size 2^64 - 1: more memory than the machine" 2 -m 18446744073709551615 --csv "$csv"
bad "-f inf" 2 -m 4:64 -f inf --csv "$csv"
bad "-f 1e19" 2 -m 4:64 -f 1e19 --csv "$csv"
bad "-f nan" 2 -f nan --csv "$csv"
bad "-n with a sign" 2 -n -4 --csv "$csv"
bad "-n empty" 2 -n "" --csv "$csv"
bad "-T repeated" 2 -T int32,int32 -n 4 --csv "$csv"
bad "-i past a million" 2 -i 2147483647 -n 4 --csv "$csv"
PROGRAM=gather
bad "gather: P x count on the root past memory" 4 -n 2000000000 -T float64 --csv "$csv"
PROGRAM=allreduce_ring
# A CSV whose last line has no newline is refused and left as it was.
head -c -1 "$csv" > "$TMP/cut.csv"
cp "$TMP/cut.csv" "$TMP/cut_before.csv"
run 2 "$BIN/allreduce_ring" -n 4 -i 1 -x 0 --csv "$TMP/cut.csv"
refused $? "CSV without a final newline" "does not end with a newline"
cmp -s "$TMP/cut.csv" "$TMP/cut_before.csv" && ok "cut CSV left untouched" || fail "cut CSV changed"
RUN_TIMEOUT=60

# predict (no MPI): the tree against the ring at P = 4 with alpha 1 us and
# 1 GB/s, by hand: tree 4 steps, 5N through the busiest link (the root takes
# two children's N in one step, then sends N to each in two); ring 6 steps,
# 6 chunks of N/4: 4 + 5N/1000 = 6 + 1.5N/1000 at N = 571 B; at 1 KiB
# master-worker 6 + 6.144, the ring 6 + 1.536, the tree 4 + 5.12 us. P = 2^20
# at a size is one line. Bad input: one line.
pred() { timeout 60 "$BIN/predict" "$@" >"$TMP/out" 2>"$TMP/err"; }
pred --alpha 1 --bandwidth 1 -P 4 -m 4:4K -f 4 -a master_worker,ring,tree
grep -q "^P = 4: tree up to 571 B, then ring$" "$TMP/out" \
  && grep -qE "^ +4 +1 KiB +12.14 +7.54 +9.12 +ring$" "$TMP/out" \
  && ok "predict: tree to ring at 571 B for P = 4 (alpha 1 us, 1 GB/s)" || { fail "predict crossover"; cat "$TMP/out"; }
pred --link ib-hdr -P 1048576 -m 1G -a ring,tree --csv "$TMP/p.csv"
[ "$(grep -cE '^ +1048576 +1 GiB ' "$TMP/out")" = 1 ] && [ "$(wc -l < "$TMP/p.csv")" = 3 ] \
  && ok "predict at P = 2^20: a row, and the CSV" || fail "predict P = 2^20"
pred --link ib-hdr -P 1048576 -m 1G -a rabenseifner,swing_bandwidth --topology torus:1024x1024
grep -qE '^ +1048576 +1 GiB .* swing_bandwidth$' "$TMP/out" \
  && ok "predict --topology torus:1024x1024 at P = 2^20: Swing ahead of Rabenseifner" || { fail "predict torus 2^20"; cat "$TMP/out"; }
# Ranks sharing one GPU (time-model.md, worked there at P = 4): one_shot,
# then two_shot, which moves less of the GPU's memory from a few MiB on.
pred --shared-gpu --alpha 8 --bandwidth 4241 -P 4 -m 4K:64M -a one_shot,two_shot,ring \
  && grep -q "^P = 4: one_shot up to 3.6 MiB, then two_shot$" "$TMP/out" \
  && grep -Eq "^ +4 +64 MiB .* two_shot$" "$TMP/out" \
  && ok "predict --shared-gpu: one_shot, then two_shot from 3.6 MiB" || { fail "predict --shared-gpu"; cat "$TMP/out"; }
# A call's own cost (one launch and a host wait) beside a step's: one_shot
# at 4 KiB is 8 + 1.5 + 5 x 4 KiB x 4 ranks / 4241 GB/s = 9.52 us.
pred --shared-gpu --call 8 --alpha 1.5 --bandwidth 4241 -P 4 -m 4K:64M -a one_shot,two_shot,ring \
  && grep -q "^# a call 8 us, a step 1.5 us, the memory 4241 GB/s$" "$TMP/out" \
  && grep -Eq "^ +4 +4 KiB +17.01 +9.52 +11.01 +one_shot$" "$TMP/out" \
  && grep -q "^P = 4: one_shot up to 690 KiB, then two_shot$" "$TMP/out" \
  && ok "predict --shared-gpu --call: a call beside the steps" || { fail "predict --shared-gpu --call"; cat "$TMP/out"; }
pred --link ib-hdr -P 4 --call 8; refused $? "predict --call without --shared-gpu" "a shared GPU's term"
# --topology: on a ring of 8 nodes the busiest link decides (docs/algorithms.md
# works it by hand): Swing's bandwidth-optimal all-reduce beats Rabenseifner's,
# which ties it on the switch; bad rings refused.
pred --link 1gbe -P 8 -m 16M -a rabenseifner,swing_bandwidth --topology ring:8
grep -qE "^ +8 +16 MiB .* swing_bandwidth$" "$TMP/out" && grep -q "^# network: ring:8" "$TMP/out" \
  && ok "predict --topology ring:8: swing_bandwidth beats rabenseifner" || { fail "predict --topology"; cat "$TMP/out"; }
pred --link 1gbe -P 16 --topology ring:8; refused $? "predict: more nodes than the ring" "16 nodes of 1 ranks, and ring:8 has 8"
pred --link 1gbe --topology mesh:4; refused $? "predict: unknown topology" "use switch, ring:K, torus:AxB, fattree:K:O or dragonfly:GxA"
pred --link 1gbe -P 2048 --topology torus:64x64 -a tree; refused $? "predict --topology: tree past P = 1024" "tree: no closed form on torus:64x64"
pred --link 1gbe -P 4096 --topology torus:64x64 -m 1M
grep -q "left out: .*tree.*no closed form\|left out: .*tree.*route every message" "$TMP/out" && grep -q "swing_bandwidth" "$TMP/out" \
  && ok "predict --topology past P = 1024: the closed forms, the others left out" || { fail "predict --topology at 4096"; cat "$TMP/out"; }
pred --link 1gbe -P 64 -m 1M --topology fattree:8:2; grep -q "network: fattree:8:2" "$TMP/out" \
  && ok "predict --topology fattree:8:2" || { fail "predict fattree"; cat "$TMP/out"; }
pred --link 1gbe -P 32 -m 1M --topology dragonfly:4x8; grep -q "network: dragonfly:4x8" "$TMP/out" \
  && ok "predict --topology dragonfly:4x8" || { fail "predict dragonfly"; cat "$TMP/out"; }
# COMMLAB_TOPOLOGY: the rows count the network's links from the messages sent;
# with --node-size 1 the 8 ranks of one machine stand for a ring of 8 nodes
# (lab 08), and every row's busiest link equals the model's (docs/algorithms.md
# works P = 8 by hand: Rabenseifner 3 N, Swing 2 N).
COMMLAB_TOPOLOGY=ring:8 run 8 "$BIN/allreduce" -a rabenseifner,swing_bandwidth -n 256 -i 1 -x 0 --node-size 1 --csv "$TMP/net.csv"
"$BIN/report" --column algorithm,network,link_critical_B,model_link_critical_B,hop_B,model_hop_B,check "$TMP/net.csv" >"$TMP/net.tsv"
grep -qx "rabenseifner	ring:8	3072	3072	24576	24576	ok" "$TMP/net.tsv" \
  && grep -qx "swing_bandwidth	ring:8	2048	2048	18432	18432	ok" "$TMP/net.tsv" \
  && ok "COMMLAB_TOPOLOGY=ring:8, --node-size 1: link columns counted = model (3 N, 2 N)" || { fail "COMMLAB_TOPOLOGY rows"; cat "$TMP/net.tsv"; }
COMMLAB_TOPOLOGY=ring:4 run 8 "$BIN/allreduce" -n 4 -i 1 --node-size 1; refused $? "COMMLAB_TOPOLOGY smaller than the nodes" "and COMMLAB_TOPOLOGY=ring:4 has 4"
COMMLAB_TOPOLOGY=mesh run 2 "$BIN/allreduce" -n 4 -i 1; refused $? "COMMLAB_TOPOLOGY unknown" "^error: COMMLAB_TOPOLOGY=mesh: use switch"
COMMLAB_TOPOLOGY=ring:4 COMMLAB_NODE_ORDER=/nonexistent run 2 "$BIN/allreduce" -n 4 -i 1; refused $? "COMMLAB_NODE_ORDER unreadable" "COMMLAB_NODE_ORDER=/nonexistent: cannot be read"
echo "some-other-host" >"$TMP/order"
COMMLAB_TOPOLOGY=ring:4 COMMLAB_NODE_ORDER=$TMP/order run 2 "$BIN/allreduce" -n 4 -i 1; refused $? "COMMLAB_NODE_ORDER without this host" "rank 0's host is not in it"
# docs/predict.md's table: P = 256, 64 MiB, 100gbe on the switch, a fat tree, a dragonfly.
for net_row in "switch 11164.68 +10710.20 +10710.20" "fattree:16:4 11164.68 +12597.63 +12933.18" \
               "dragonfly:16x16 11164.68 +20147.38 +14568.95"; do
  read -r net ring_us rab_us swing_us <<<"$net_row"
  pred --link 100gbe -P 256 -m 64M -a ring,rabenseifner,swing_bandwidth --topology "$net"
  grep -qE "^ +256 +64 MiB +$ring_us $rab_us $swing_us " "$TMP/out" && ok "predict.md's table: $net" \
    || { fail "predict.md's table: $net"; cat "$TMP/out"; }
done
pred --link 1gbe --topology fattree:6:4; refused $? "predict: fat tree's oversubscription must divide" "must divide the 6 nodes"
pred --shared-gpu --link nvlink-a100; refused $? "predict --shared-gpu with a link" "give the GPU by --alpha"
pred --shared-gpu --alpha 8 --bandwidth 4241 -P 128; refused $? "predict --shared-gpu at P = 128" "64 at most"
pred --link 400gbe; refused $? "predict: unknown link" "no such link (choose from"
pred -P 0 --link ib-hdr; refused $? "predict: P = 0" "P must be 1 to 1048576"
pred -P 2097152 --link ib-hdr; refused $? "predict: P past 2^20" "P must be 1 to 1048576"
pred --alpha 1; refused $? "predict: alpha without bandwidth" "go together"
pred --fit "$TMP" --link ib-hdr; refused $? "predict: two links" "say which link, once"
pred --fit "$TMP" --alpha 1; refused $? "predict: a fit and a figure by hand" "say which link, once"
# A named link with one figure replaced (a site's own measurement): the
# other figure stays the link's, and the link's name says what was given.
pred --link ib-hdr --bandwidth 50 -P 2 -m 1M -a ring \
  && grep -q "^# link: ib-hdr(bandwidth=50GBps): alpha 1.47 us, 50 GB/s each way" "$TMP/out" \
  && ok "predict --link ib-hdr --bandwidth 50: HDR's alpha, 50 GB/s" || fail "predict --link with --bandwidth"
# docs/predict.md's table of named links is what predict --links prints, row
# for row, and the links added last (NDR, Slingshot) predict.
pred --links && grep -c '^| ' "$TMP/out" >"$TMP/n" \
  && [ "$(grep -Fxf "$TMP/out" "$(dirname "$0")/../docs/predict.md" | grep -c '^| ')" = "$(cat "$TMP/n")" ] \
  && ok "predict --links: docs/predict.md's table, every row" \
  || { fail "predict --links and docs/predict.md differ"; cat "$TMP/out"; }
for link in "ib-ndr: alpha 2 us, 50 GB/s" "slingshot-200: alpha 1.8 us, 25 GB/s"; do
  pred --link "${link%%:*}" -P 64 -m 1M -a ring && grep -qF "# link: $link each way" "$TMP/out" \
    && ok "predict --link ${link%%:*}" || { fail "predict --link ${link%%:*}"; cat "$TMP/out" "$TMP/err"; }
done
# One node: the memory model the report fits (docs/predict.md). Its loads are
# each schedule's, the same the runs counted (model_memory_rank_B); its time
# is the fit's, here of a committed sweep's rows, and by hand 5N at 1 GB/s
# for recursive doubling at P = 2 (a step of 0 us).
one_node_rows="$(dirname "$0")/../results/local_memory_dec1/run1"
pred --fit "$one_node_rows" -P 2 -m 1M:1M --csv "$TMP/node.csv" \
  && grep -q "^# node: fit:run1: alpha 13.5 us, a rank's bytes moved at 12.8 GB/s (10.2 GB/s from 16 MiB on)" "$TMP/out" \
  && grep -q "^fit:run1,one-node,2,2,1048576,ring,2,0,5767168,0,563.653061$" "$TMP/node.csv" \
  && python3 - "$one_node_rows/rows.csv" "$TMP/node.csv" <<'PY' && ok "predict --fit of one node: the report's fit, every algorithm's loads as counted" || { fail "predict --fit of one node"; cat "$TMP/out" "$TMP/err"; }
import csv, sys
run = {r["algorithm"]: r["model_memory_rank_B"] for r in csv.DictReader(open(sys.argv[1]))
       if r["impl"] == "hand" and r["bytes"] == "1048576"}
pred = {r["algorithm"]: r["link_critical_B"] for r in csv.DictReader(open(sys.argv[2]))}
assert len(pred) == 11 and all(run[a] == b for a, b in pred.items()), (run, pred)
PY
pred --one-node --alpha 0 --bandwidth 1 -P 2 -m 1M:1M -a recursive_doubling \
  && grep -qE "^ +2 +1 MiB +5242.88 +recursive_doubling$" "$TMP/out" \
  && ok "predict --one-node by hand: recursive doubling moves 5N a rank at P = 2" || { fail "predict --one-node by hand"; cat "$TMP/out" "$TMP/err"; }
pred --one-node --alpha 1 --bandwidth 10 --link ib-hdr; refused $? "predict --one-node with a link" "on one node the resource is its memory"
pred --one-node --alpha 1; refused $? "predict --one-node without a rate" "one rank's memory by --bandwidth"
pred --one-node --alpha 1 --bandwidth 10 -P 512; refused $? "predict --one-node past 256 ranks" "256 at most"
pred --one-node --alpha 1 --bandwidth 10 -a one_shot; refused $? "predict --one-node -a one_shot" "reads its peers' memory"
pred --link ib-hdr --node-bandwidth 10; refused $? "predict --node-bandwidth off one node" "a term of --one-node"
pred --one-node --fit "$(dirname "$0")/../results/cluster-4x1gbit_reno"; refused $? "predict --one-node --fit of a cluster" "no hand-written all-reduce rows on one node"
pred --fit "$TMP/nowhere"; refused $? "predict: --fit without rows" "no rows.csv there"
pred --link ib-hdr -a ring,nothing; refused $? "predict: unknown algorithm" "no such algorithm"
pred -P 4,,8 --link ib-hdr; refused $? "predict: an empty item in -P" "an empty item"
pred -m 2048T --link ib-hdr; refused $? "predict: a size past 2^64" "bad size"
pred -m 2097152G --link ib-hdr; refused $? "predict: a size past 1 PiB" "N goes up to 1 PiB"
# --csv is checked before anything is printed: nothing on stdout, no file.
for bad in "$TMP" "$TMP/nowhere/p.csv" ""; do
  pred --link ib-hdr -P 4 --csv "$bad"; refused $? "predict --csv '$bad'" "--csv"
  [ ! -s "$TMP/out" ] && [ ! -e "$TMP.tmp" ] || fail "predict --csv '$bad' printed or wrote"
done
# Parallel lines never cross: at P = 2 the ring and recursive doubling move
# the same bytes, recursive doubling in half the steps. With alpha 0 the
# lines meet at N = 0, below the 1 B the crossovers start from. P = 1: nothing to do.
pred --link ib-hdr -P 1,2 -a ring,recursive_doubling
grep -q "^P = 2: recursive_doubling at every size$" "$TMP/out" && grep -q "^P = 1: .*nothing to do$" "$TMP/out" \
  && ok "predict: no crossover between parallel lines at P = 2; P = 1 has nothing to do" || { fail "predict P = 2"; cat "$TMP/out"; }
pred --alpha 0 --bandwidth 1 -P 4 -a tree,ring
grep -q "^P = 4: ring at every size$" "$TMP/out" && ok "predict: no crossover below 1 B" || { fail "predict alpha 0"; cat "$TMP/out"; }
# -P MIN:MAX doubles from MIN; repeats dropped, sorted.
pred --link ib-hdr -P 3:100,6 -m 1K -a ring
[ "$(grep -E '^ +[0-9]+ +1 KiB' "$TMP/out" | awk '{printf "%s ", $1}')" = "3 6 12 24 48 96 " ] \
  && ok "predict -P 3:100,6: 3, 6, ... 96 once each" || { fail "predict -P range"; cat "$TMP/out"; }
# --csv through a symbolic link keeps the link; to /dev/stdout after the table.
ln -sf p_target.csv "$TMP/p_link.csv"
pred --link ib-hdr -P 4 -m 1K -a ring --csv "$TMP/p_link.csv"
[ -L "$TMP/p_link.csv" ] && [ "$(wc -l < "$TMP/p_target.csv")" = 2 ] \
  && ok "predict --csv through a symbolic link writes its target" || fail "predict --csv link"
pred --link ib-hdr -P 4 -m 1K -a ring --csv /dev/stdout
tail -1 "$TMP/out" | grep -q "^ib-hdr,switch,4,1,1024,ring," && ok "predict --csv /dev/stdout: the CSV after the table" \
  || { fail "predict --csv /dev/stdout"; cat "$TMP/out"; }
# Each row names its network; on a ring of nodes the busiest link (charged)
# is set beside the busiest port: recursive doubling's distance-4 step at
# P = 8 crosses four links of the ring, so its busiest link carries more
# than the N a step that each port sends.
pred --link 1gbe -P 8 -m 1K -a recursive_doubling --topology ring:8 --ranks-per-node 1 --csv /dev/stdout
row=$(tail -1 "$TMP/out")
[ "$(head -c 40 <<<"$row")" = "1gbe,ring:8,8,1,1024,recursive_doubling," ] \
  && [ "$(cut -d, -f8 <<<"$row")" = 3072 ] && [ "$(cut -d, -f9 <<<"$row")" -gt 3072 ] \
  && ok "predict --csv on a ring: link, topology, ranks per node; port 3072 B, the busiest link more" \
  || { fail "predict --csv on a ring: $row"; }
# --fit: a folder's runs across nodes, the fit's quality in the header; one node's
# without its all-reduce's memory columns refused.
mkdir -p "$TMP/one_node"
head -3 "$(dirname "$0")/../results/local/rows.csv" > "$TMP/one_node/rows.csv"
pred --fit "$TMP/one_node"; refused $? "predict --fit: a one-node folder of two rows" "hand-written all-reduce rows"
pred --fit "$(dirname "$0")/../results/cluster-4x1gbit/" -P 4 -m 1M
grep -q "^# link: fit:cluster-4x1gbit: .*R^2 0\.[0-9]*, leave-one-out error" "$TMP/out" \
  && ok "predict --fit: the fit's rows, R^2 and leave-one-out error in the header" || { fail "predict --fit"; head -3 "$TMP/out"; }

finish
