#!/bin/bash
# The ring sweep (make ring-bench): every all-reduce algorithm beside
# MPI_Allreduce on an emulated ring of NODES nodes (slurm/cluster_up.sh
# TOPOLOGY=ring: each node linked only to its two neighbours, routes the
# shorter way round, every link at RATE), one rank a node, so that hop
# distance decides: the rows' link_critical_B and hop_B count it. Brings the
# ring up, sweeps through Slurm, and takes it down again (pass or fail).
# A benchmark, not a test: about 30 minutes with the defaults on a 2-core VM.
#
#   OUT=results/ring-8x100mbit_reno PS="2 4 8" SIZES=1M:16M bash bench/ring_sweep.sh
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
NODES=${NODES:-8}
RATE=${RATE:-100mbit}
OUT=${OUT:-results/mine_ring}
PS=${PS:-"2 4 8"}
SIZES=${SIZES:-1M:16M}
FACTOR=${FACTOR:-4}
ITERS=${ITERS:-5}
WARMUP=${WARMUP:-1}
die() { echo "error: $*" >&2; exit 2; }
[[ $NODES =~ ^[3-9]$|^[1-9][0-9]$ ]] || die "NODES must be 3 to 99, not '$NODES'"
for p in $PS; do
  [[ $p =~ ^[1-9][0-9]*$ ]] && [ "$p" -le "$NODES" ] || die "PS: every P from 1 to NODES ($NODES), one rank a node, not '$p'"
done
export PREFIX=${PREFIX:-/tmp/commlab-cluster}
NODES=$NODES NCPUS=1 RATE=$RATE TOPOLOGY=ring bash slurm/cluster_up.sh || exit 1
trap 'bash slurm/cluster_down.sh >/dev/null 2>&1' EXIT
# shellcheck disable=SC1091
source "$PREFIX/env.sh"
max_P=$(tr ' ' '\n' <<<"$PS" | sort -n | tail -1)
FRESH=1 OUT=$OUT PROGRAMS=allreduce PS=$PS SIZES=$SIZES FACTOR=$FACTOR ITERS=$ITERS WARMUP=$WARMUP \
  sbatch --wait --nodes="$max_P" --ntasks-per-node=1 --output="$PREFIX/ring-sweep-%j.out" \
  slurm/multinode.sbatch
rc=$?
cat "$PREFIX"/ring-sweep-*.out 2>/dev/null | tail -n 30
exit $rc
