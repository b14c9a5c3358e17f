#!/bin/bash
# ddp_step over a sweep of bucket sizes: the step, the backward alone, the
# buckets' all-reduces alone, what the step could not hide, and the time
# model's best bucket, for MPI_Iallreduce and the hand-written all-reduces
# (docs/ddp.md). One launch per P; the rows, the table printed and the
# machine go to OUT.
#   bash bench/ddp_bench.sh [--help]
#
# Settings, from the environment:
#   PS        process counts, space separated (default 2: a core each here)
#   BUCKETS   bucket capacities in MiB (default 0.25 to 32 by 2)
#   ALGOS     hand-written all-reduces (default ring,recursive_doubling,rabenseifner)
#   LAYERS, HIDDEN, BATCH   the model (default 8 layers of 512 x 512, batch 4)
#   ITERS     timed steps per row (default 20)
#   BIN       the programs (default build/bin)
#   OUT       where the rows go (default: a new folder under /tmp)
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
die() { echo "error: $*" >&2; exit 2; }
PS=${PS:-2}
BUCKETS=${BUCKETS:-0.25,0.5,1,2,4,8,16,32}
ALGOS=${ALGOS:-ring,recursive_doubling,rabenseifner}
LAYERS=${LAYERS:-8}
HIDDEN=${HIDDEN:-512}
BATCH=${BATCH:-4}
ITERS=${ITERS:-20}
BIN=${BIN:-build/bin}
OUT=${OUT:-$(mktemp -d /tmp/commlab-ddp.XXXXXX)}
[ -x "$BIN/ddp_step" ] || die "$BIN/ddp_step is missing: run make build first"
for P in $PS; do [[ $P =~ ^[1-9][0-9]*$ ]] || die "PS: '$P' is not a count of ranks"; done
mkdir -p "$OUT" || die "cannot make $OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for P in $PS; do
  timeout 1800 mpirun -np "$P" --oversubscribe "$BIN/ddp_step" --layers "$LAYERS" --hidden "$HIDDEN" \
    --batch "$BATCH" --bucket-MB "$BUCKETS" -a "$ALGOS" -i "$ITERS" -x 3 --csv "$OUT/steps.csv" \
    | tee "$OUT/table_p$P.txt" || die "ddp_step at P = $P failed (see $OUT/table_p$P.txt)"
done
bash bench/machine.sh > "$OUT/machine.md"
echo "rows: $OUT/steps.csv; machine: $OUT/machine.md"
