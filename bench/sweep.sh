#!/bin/bash
# The main job (`make bench`): a local sweep of the three hand-written
# all-reduce algorithms beside MPI_Allreduce, P = 2, 3, 4, sizes from 4 B to
# 64 MiB; every other collective beside its MPI call, P = 3 and 4, 4 B to
# 16 MiB; then the ring / MPI time ratio, 1 to 64 MiB at P = 2 and 4.
# Writes results/$RUN/ (default: local): the CSVs, machine.md, summary.txt, a
# plot. The folder is replaced only when the whole sweep has succeeded.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${RUN:-local}
PS=${PS:-"2 3 4"}
SIZES=${SIZES:-4:64M}
COLL_PS=${COLL_PS:-"3 4"}
COLL_SIZES=${COLL_SIZES:-4:16M}
ITERS=${ITERS:-20}
WARMUP=${WARMUP:-5}
BIN=${BIN:-build/bin}
PY=/usr/bin/python3   # Debian's, which has python3-matplotlib
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

for p in $PS $COLL_PS; do [[ $p =~ ^[1-9][0-9]*$ ]] || { echo "error: PS must list process counts, not '$p'" >&2; exit 2; }; done
[ -x "$BIN/allreduce_ring" ] || { echo "error: $BIN/allreduce_ring is missing; run 'make build' first" >&2; exit 2; }

out=results/$RUN
tmp=$(mktemp -d results/.sweep-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

launch() { mpirun -q --oversubscribe --bind-to none -np "$@"; }

echo "== sweep: P in {$PS}, sizes $SIZES, $ITERS iterations after $WARMUP warm-up"
for p in $PS; do
  for algo in master_worker ring tree; do
    echo "-- allreduce_$algo, P=$p"
    launch "$p" "$BIN/allreduce_$algo" -m "$SIZES" -f 4 -i "$ITERS" -x "$WARMUP" \
      --csv "$tmp/allreduce.csv" | awk '/ FAIL/ || NR <= 2'
  done
done

echo "== every other collective: P in {$COLL_PS}, sizes $COLL_SIZES"
for p in $COLL_PS; do
  for op in sendrecv bcast reduce scatter gather allgather reduce_scatter alltoall barrier; do
    echo "-- $op, P=$p"
    launch "$p" "$BIN/$op" -m "$COLL_SIZES" -f 4 -i "$ITERS" -x "$WARMUP" \
      --csv "$tmp/collectives.csv" | awk '/ FAIL/ || NR <= 2'
  done
done

echo "== ring vs MPI_Allreduce, 1 MiB to 64 MiB"
for p in 2 4; do
  launch "$p" "$BIN/allreduce_ring" -m 1M:64M -i "$ITERS" -x "$WARMUP" \
    --csv "$tmp/ring_vs_mpi.csv" >/dev/null
done

bash bench/machine.sh > "$tmp/machine.md"
"$PY" bench/summarize.py "$tmp" | tee "$tmp/summary.txt"
"$PY" bench/plot.py "$tmp"

rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "== wrote $out/: $(cd "$out" && ls | tr '\n' ' ')"
