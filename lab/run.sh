#!/bin/bash
# Runs the commands of one lab, as a student would type them: every line of
# lab/NN-*/README.md that starts with "$ ", in order, from the repository's
# root. Outside Slurm `mpirun -np K` runs as is (with --oversubscribe, as a
# 2-core laptop needs); inside a Slurm allocation it becomes `srun -n K`.
#   bash lab/run.sh 03          # one lab
#   bash lab/run.sh all         # every lab
# COMMLAB_BIN names another folder of programs than build/bin (the tests run
# their own build's).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
source bench/settings.sh  # SITE_SETUP, SRUN_MPI, BIND
if [ -n "${SLURM_JOB_ID:-}" ]; then
  check_srun_mpi
  # --overcommit: a lab may ask for more ranks than the job has CPUs (lab 03's P = 16).
  LAUNCH="srun ${SRUN_LAUNCH_FLAGS:+$SRUN_LAUNCH_FLAGS }--overcommit -n"
else
  LAUNCH="mpirun --oversubscribe $MPIRUN_FLAGS -np"
fi
want=${1:?usage: bash lab/run.sh NN|all}
pages=()
for page in lab/[0-9][0-9]-*/README.md; do
  [ "$want" = all ] || [[ $page == lab/$want-* ]] && pages+=("$page")
done
if [ ${#pages[@]} -eq 0 ]; then
  echo "error: no lab '$want' (use a number such as 03, or all)" >&2
  exit 2
fi
bin=${COMMLAB_BIN:-build/bin}
[ -x "$bin/allreduce" ] || { echo "error: $bin/allreduce is missing: run make first" >&2; exit 2; }
mkdir -p lab-out
failed=0
for page in "${pages[@]}"; do
  echo "== $page"
  while IFS= read -r cmd; do
    cmd=${cmd#\$ }
    [[ $cmd == "mpirun -np "* ]] && cmd="$LAUNCH ${cmd#mpirun -np }"
    cmd=${cmd//build\/bin\//$bin/}
    echo "\$ $cmd"
    if ! timeout "${LAB_TIMEOUT:-300}" bash -c "$cmd" </dev/null; then
      echo "error: this command failed: $cmd" >&2
      failed=1
    fi
  done < <(grep -E '^\$ ' "$page")
done
exit $failed
