#!/bin/bash
# The batch scripts on a real Slurm cluster started here: one node, then four
# emulated nodes on 1 Gbit/s links. Each job is submitted with sbatch --wait
# and its exit status and output checked. The test's cluster has its own
# names, ports and folder, so a cluster of the user's keeps running; it is
# stopped afterwards, pass or fail. Skips (exit 77) where the machine forbids
# it: not root, no network namespaces, no Slurm packages to be had.
set -u
SRC=$1 BIN=$2
export BIN PREFIX=/tmp/commlab-cluster-test TAG=cmt SUBNET=10.78.0 PORT=6917
TMP=$(mktemp -d)
cleanup() { bash "$SRC/slurm/cluster_down.sh" >/dev/null 2>&1; rm -rf "$TMP"; }
trap cleanup EXIT
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "the local cluster needs root"
ip netns add cmtprobe 2>/dev/null && ip netns del cmtprobe || skip "this machine does not allow network namespaces"
fails=0 passes=0
ok()   { passes=$((passes + 1)); echo "ok   $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1"; for f in "$TMP"/job.out "$TMP"/up.log; do [ -f "$f" ] && sed 's/^/     | /' "$f" | tail -12; done; }
# submit NAME SCRIPT [sbatch flags]: waits for the job; its output in $TMP/job.out
submit() {
  local script=$1; shift
  rm -f "$TMP/job.out"
  (cd "$SRC" && timeout 600 sbatch --wait --output="$TMP/job.out" "$@" "$script" >/dev/null 2>"$TMP/sbatch.err")
}
up() {
  if ! env "$@" bash "$SRC/slurm/cluster_up.sh" >"$TMP/up.log" 2>&1; then
    grep -q "apt-get\|Unable to locate\|Could not resolve" "$TMP/up.log" && skip "cannot install Slurm: $(tail -1 "$TMP/up.log")"
    fail "cluster_up $*"; exit 1
  fi
  # shellcheck disable=SC1091
  source "$PREFIX/env.sh"
}
export SIZES=4:4K FACTOR=16 ITERS=1 WARMUP=0

# --- one node ---
up NODES=1 NCPUS=8
LAB=02 submit slurm/lab.sbatch && rc=0 || rc=$?
[ $rc = 0 ] && grep -q "rank 3: \[6 6 6 6\]" "$TMP/job.out" && grep -q "rank 2: \[600\]" "$TMP/job.out" \
  && grep -q '^\$ srun --overcommit -n 4 build/bin/allreduce_ring --show --steps' "$TMP/job.out" \
  && ok "lab.sbatch 02: the lab's commands through srun, the known vectors step by step" || fail "lab.sbatch 02 (exit $rc)"

OUT=$TMP/sweep PROGRAMS="allreduce_tree bcast" PS="1 3" submit slurm/sweep.sbatch && rc=0 || rc=$?
[ $rc = 0 ] && [ "$(grep -c '	ok	' "$TMP/sweep/cells.tsv")" = 4 ] && [ -s "$TMP/sweep/report.md" ] \
  && [ -s "$TMP/sweep/time_vs_size.png" ] && grep -q "launched: srun --mpi=pmix" "$TMP/sweep/machine.md" \
  && ok "sweep.sbatch: 4 cells through srun, report and plots" || fail "sweep.sbatch (exit $rc)"

OUT=$TMP/array PROGRAMS=allreduce_ring submit slurm/sweep_array.sbatch --array=2-3 --ntasks=3 && rc=0 || rc=$?
[ $rc = 0 ] && [ -s "$TMP/array/P2/report.md" ] && [ -s "$TMP/array/P3/report.md" ] \
  && grep -q "| allreduce_ring | ring | 3 |" "$TMP/array/report.md" && grep -q "| allreduce_ring | ring | 2 |" "$TMP/array/report.md" \
  && ok "sweep_array.sbatch --array=2-3: one P per task, one report over both" || fail "sweep_array.sbatch (exit $rc)"

OUT=$TMP/bad PS="2 x" submit slurm/sweep.sbatch && rc=0 || rc=$?
[ $rc != 0 ] && grep -q "^error: PS must list process counts, not 'x'" "$TMP/job.out" && [ ! -e "$TMP/bad" ] \
  && ok "a bad variable: the job says which and stops before launching" || fail "bad variable (exit $rc)"
OUT=$TMP/big PS="8" submit slurm/sweep.sbatch --ntasks=4 && rc=0 || rc=$?
[ $rc != 0 ] && grep -q "^error: PS: P=8 needs 8 tasks; this job has 4" "$TMP/job.out" \
  && ok "P above the job's tasks: refused up front" || fail "P above tasks (exit $rc)"
OUT=$TMP/failing PROGRAMS=bcast PS="2" EXTRA="-r 7" submit slurm/sweep.sbatch && rc=0 || rc=$?
[ $rc = 1 ] && grep -q "FAILED (exit 2: error: -r 7: root must be below the number of ranks, 2)" "$TMP/job.out" \
  && ok "a program that fails: the job exits 1 with the error in its output" || fail "failing program (exit $rc)"
submit slurm/gpu.sbatch --gpus-per-node=0 && rc=0 || rc=$?
[ $rc != 0 ] && grep -q "^error: no GPU visible" "$TMP/job.out" \
  && ok "gpu.sbatch without a GPU: one line, non-zero" || fail "gpu.sbatch without a GPU (exit $rc)"
bash "$SRC/slurm/cluster_down.sh" >/dev/null

# --- four emulated nodes, 1 Gbit/s links ---
up NODES=4 NCPUS=2 RATE=1gbit
OUT=$TMP/multi PROGRAMS="allreduce_ring allreduce_master_worker" PS="2 8" submit slurm/multinode.sbatch && rc=0 || rc=$?
if [ $rc = 0 ] && [ "$(grep -c '^ *2 cmtnode[0-3]$' "$TMP/job.out")" = 4 ] \
   && [ "$(grep -c '	ok	' "$TMP/multi/cells.tsv")" = 4 ] && grep -q "cmtnode\[0-3\]" "$TMP/multi/machine.md"; then
  ok "multinode.sbatch on 4 nodes: 2 ranks per node, 4 cells ok"
else fail "multinode.sbatch (exit $rc)"; fi
# The cap is real: one 4 MiB ping-pong between two nodes runs near 1 Gbit/s, not at memory speed.
OUT=$TMP/link PROGRAMS=sendrecv PS=2 SIZES=4M:4M ITERS=2 submit slurm/multinode.sbatch && rc=0 || rc=$?
bw=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $c["algorithm"] == "pingpong" { print $c["busbw_GBps"] }' "$TMP/link/rows.csv" 2>/dev/null)
[ $rc = 0 ] && awk -v b="${bw:-9}" 'BEGIN { exit !(b > 0.05 && b < 0.14) }' \
  && ok "ranks on two nodes meet the 1 Gbit/s link: ping-pong at $bw GB/s" || fail "link cap (exit $rc, busbw ${bw:-none})"

echo "$passes passed, $fails failed"
[ $fails = 0 ]
