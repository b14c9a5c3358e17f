# Sourced by every batch script: find the project, check the settings against
# the allocation, say where results go. Bad settings stop the job here, before
# anything is launched, with one line saying which.
set -uo pipefail
die() { echo "error: $*" >&2; exit 2; }
ROOT=${SLURM_SUBMIT_DIR:-$PWD}
cd "$ROOT" || die "cannot enter $ROOT"
[ -f bench/sweep.sh ] || die "submit from the commlab folder (sbatch slurm/$(basename "${BASH_SOURCE[1]:-job}")), not from $ROOT"
[ -x "${BIN:-build/bin}/report" ] || die "${BIN:-build/bin}/report is missing: run 'make build' before submitting"
# Open MPI refuses root without these; harmless for everybody else.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
JOB=${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-local}}
TASKS=${SLURM_NTASKS:-$(nproc)}
export OUT=${OUT:-results/$JOB}

# Every P must fit the tasks this job was given.
check_ps() {
  for p in $PS; do
    [[ $p =~ ^[1-9][0-9]*$ ]] || die "PS must list process counts, not '$p'"
    [ "$p" -le "$TASKS" ] || die "PS: P=$p needs $p tasks; this job has $TASKS (raise --ntasks or --ntasks-per-node)"
  done
}

where() {
  local nodes=${SLURM_JOB_NODELIST:-$(hostname -s)}
  command -v scontrol >/dev/null && [ -n "${SLURM_JOB_NODELIST:-}" ] \
    && nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | tr '\n' ' ')
  echo "== commlab job $JOB: $TASKS task(s) on $nodes; results in $OUT"
}
