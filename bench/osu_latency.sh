#!/bin/bash
# The MPI_Allreduce row's OSU figure against the OSU micro-benchmarks'
# osu_allreduce on the same MPI: both average each rank's mean time of a
# call over the ranks (our rank_mean_avg_us, OSU's "Avg Latency"), float
# sum, P ranks; each size alternately, a run of each per round, so that the
# machine's drift falls on both. Writes each pair, their ratio and its median
# per size (docs/sweeps.md, "Against OSU"). A benchmark, not a test: the
# figures are the machine's.
#   OSU_ALLREDUCE=/path/to/osu_allreduce bash bench/osu_latency.sh [--help]
#
# OSU is not a Debian package: build osu_allreduce from its public source
# (https://mvapich.cse.ohio-state.edu/benchmarks/) outside this project,
# against the same MPI (./configure CC=mpicc CXX=mpicxx && make), and name it.
#
# Settings, from the environment:
#   OSU_ALLREDUCE  the built osu_allreduce (required)
#   P       ranks (default 2: a core each on a 2-core machine)
#   SIZES   bytes, space separated (default 1K, 16K, 256K and 4M)
#   ITERS   timed calls a run, OSU's -i and our -i (default 1000)
#   ROUNDS  runs of each (default 5)
#   BIN     the programs (default build/bin)
#   OUT     where the table goes (default: a new folder under /tmp)
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -uo pipefail
die() { echo "error: $*" >&2; exit 2; }
OSU_ALLREDUCE=${OSU_ALLREDUCE:-}
P=${P:-2}
SIZES=${SIZES:-1024 16384 262144 4194304}
ITERS=${ITERS:-1000}
ROUNDS=${ROUNDS:-5}
BIN=${BIN:-build/bin}
OUT=${OUT:-}                                 # default: a new folder under /tmp, made once the settings are checked
[ -n "$OSU_ALLREDUCE" ] || die "OSU_ALLREDUCE must name a built osu_allreduce (bench/osu_latency.sh --help)"
[ -x "$OSU_ALLREDUCE" ] || die "OSU_ALLREDUCE=$OSU_ALLREDUCE is not an executable"
# Paths as the user gave them, from where the script was started.
OSU_ALLREDUCE=$(realpath -m -- "$OSU_ALLREDUCE") BIN=$(realpath -m -- "$BIN")
[ -z "$OUT" ] || OUT=$(realpath -m -- "$OUT")
cd "$(dirname "$0")/.." || exit 2
[ -x "$BIN/allreduce" ] || die "$BIN/allreduce is missing: run make build first"
[[ $P =~ ^[1-9][0-9]*$ ]] || die "P must be a count of ranks, not '$P'"
[[ $ITERS =~ ^[1-9][0-9]{0,5}$ ]] || die "ITERS must be 1 to 999999, not '$ITERS'"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be 1 or more, not '$ROUNDS'"
for s in $SIZES; do [[ $s =~ ^[1-9][0-9]*$ ]] && [ $((s % 4)) = 0 ] || die "SIZES: '$s' is not a number of bytes that floats fill"; done
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/commlab-osu-latency.XXXXXX) || die "cannot make a folder under /tmp"
mkdir -p "$OUT" || die "cannot make $OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
warmup=$((ITERS / 10 + 1))
pairs=$OUT/pairs.tsv
echo -e "round\tbytes\tosu_avg_us\tcommlab_rank_mean_avg_us\tratio" > "$pairs"
for round in $(seq "$ROUNDS"); do
  for size in $SIZES; do
    osu=$(timeout 300 mpirun -np "$P" --oversubscribe "$OSU_ALLREDUCE" -T mpi_float -m "$size:$size" \
            -i "$ITERS" -x "$warmup" 2>/dev/null | awk -v s="$size" '$1 == s {print $2}')
    rm -f "$OUT/row.csv"
    timeout 300 mpirun -np "$P" --oversubscribe "$BIN/allreduce" -a none -n $((size / 4)) \
      -i "$ITERS" -x "$warmup" -c off --csv "$OUT/row.csv" > /dev/null 2>&1
    ours=$("$BIN/report" --column rank_mean_avg_us "$OUT/row.csv" 2>/dev/null | tail -1)
    [ -n "$osu" ] && [ -n "$ours" ] || die "round $round, $size B: a run gave no figure (osu '$osu', commlab '$ours')"
    ratio=$(awk -v a="$ours" -v b="$osu" 'BEGIN { printf "%.3f", a / b }')
    echo -e "$round\t$size\t$osu\t$ours\t$ratio" >> "$pairs"
    echo "round $round, $size B: OSU $osu us, commlab $ours us, ratio $ratio"
  done
done
{
  echo "# The MPI_Allreduce row beside OSU's osu_allreduce (bench/osu_latency.sh)"
  echo
  echo "### rank_mean_avg_us over osu_allreduce's average latency, P = $P"
  echo
  echo "$ITERS calls a run, float sum, $ROUNDS rounds, each size alternately (pairs.tsv)."
  echo
  echo "| bytes | median ratio | lowest | highest |"
  echo "|---|---|---|---|"
  for size in $SIZES; do
    awk -F'\t' -v s="$size" 'NR > 1 && $2 == s { print $5 }' "$pairs" | sort -n \
      | awk -v s="$size" '{ r[NR] = $1 } END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2;
                                              printf "| %s | %.3f | %.3f | %.3f |\n", s, m, r[1], r[NR] }'
  done
} > "$OUT/summary.md"
rm -f "$OUT/row.csv"
bash bench/machine.sh > "$OUT/machine.md"
cat "$OUT/summary.md"
