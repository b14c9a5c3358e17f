#!/bin/bash
# A straggler, and what the rows can name: `allreduce -a ring` on one node,
# each rank bound to a core of its own, three times: quiet; with a CPU hog
# on one rank's core; and with that rank arriving 20 ms late at every call
# (COMMLAB_LATE_RANK). The hog slows the rank's work inside each call, which
# the others wait for at the call's last message, so the calls slow down but
# the ranks still arrive together: a rank is named late (late_rank) only
# where it reaches the call late, as after work of its own between calls,
# which the third run stands for. The rows give the arrivals' skew and, apart
# from it, the rank that waited longest (slowest_rank) (docs/usage.md).
#   bash bench/straggler.sh [--help]
#
# Settings, from the environment:
#   P        ranks, at most the cores (default: the cores, at most 4)
#   HOG_RANK the rank whose core the hog shares (default: P - 1)
#   SIZE     the all-reduce's message size (default 4M)
#   ITERS    timed calls (default 200: p99 needs 100)
#   BIN      the programs (default build/bin)
#   OUT      where the rows go (default: a new folder under /tmp, not the clone)
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
die() { echo "error: $*" >&2; exit 2; }
cores=$(nproc)
P=${P:-$((cores < 4 ? cores : 4))}
HOG_RANK=${HOG_RANK:-$((P - 1))}
SIZE=${SIZE:-4M}
ITERS=${ITERS:-200}
BIN=${BIN:-build/bin}
[[ $P =~ ^[0-9]+$ ]] && [ "$P" -ge 2 ] && [ "$P" -le "$cores" ] \
  || die "P must be 2 to the $cores cores here (a core each), not '$P'"
[[ $HOG_RANK =~ ^[0-9]+$ ]] && [ "$HOG_RANK" -lt "$P" ] || die "HOG_RANK must be a rank below $P, not '$HOG_RANK'"
[[ $ITERS =~ ^[1-9][0-9]*$ ]] || die "ITERS must be a count, not '$ITERS'"
[ -x "$BIN/allreduce" ] || die "$BIN/allreduce is missing: run make build first"
command -v taskset >/dev/null || die "taskset (util-linux) is missing"
OUT=${OUT:-$(mktemp -d /tmp/commlab-straggler.XXXXXX)}
mkdir -p "$OUT" || die "cannot make $OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

hog=
trap '[ -n "$hog" ] && kill "$hog" 2>/dev/null' EXIT
echo "P=$P HOG_RANK=$HOG_RANK SIZE=$SIZE ITERS=$ITERS OUT=$OUT"
for run in quiet hog late; do
  if [ "$run" = hog ]; then
    # Rank r is bound to core r (--map-by core --bind-to core).
    taskset -c "$HOG_RANK" sh -c 'while :; do :; done' &
    hog=$!
  fi
  late=$([ "$run" = late ] && echo "$HOG_RANK:20")
  COMMLAB_LATE_RANK=$late mpirun -q --map-by core --bind-to core -np "$P" "$BIN/allreduce" -a ring -m "$SIZE" \
    -i "$ITERS" --csv "$OUT/$run.csv" --times "$OUT/${run}_iterations.csv" >/dev/null \
    || die "the $run run failed"
  [ -n "$hog" ] && kill "$hog" && hog=
  echo "$run: $("$BIN/report" --column algorithm,late_rank,late_share,arrival_skew_us,arrival_skew_p99_us,slowest_rank "$OUT/$run.csv" \
    | awk -F'\t' '{ printf "%s: last to arrive rank %s (%.0f%% of calls), skew median %s us, p99 %s; slowest rank %s. ", $1, $2, $3 * 100, $4, ($5 == "" ? "- (under 100 calls)" : $5 " us"), $6 }')"
done
