# Sourced by every batch script, which finds it beside itself (bash
# slurm/NAME.sbatch, from any folder) or in the folder it was submitted from
# (sbatch copies the script away): answer --help, go to the project, apply
# and check the settings (bench/settings.sh) against the allocation, say
# where results go. Bad settings stop the job here, before anything is
# launched, with one line saying which. An argument is refused (bench/args.sh)
# unless the script set SCRIPT_TAKES_ARGS=1 before sourcing this.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/args.sh"
if [ -n "${SCRIPT_TAKES_ARGS:-}" ]; then answer_help "$0" "$@"; else script_args "$0" "$@"; fi
cd "$ROOT" || exit 2
source bench/settings.sh
[ -x "${BIN:-build/bin}/report" ] || die "${BIN:-build/bin}/report is missing: run 'make build' before submitting"
JOB=${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-local}}
TASKS=${SLURM_NTASKS:-$(nproc)}
# RESULTS_ROOT: where each job's folder goes (default results/ in the clone;
# a site's scratch or project space keeps them out of it). Run outside Slurm
# (bash slurm/NAME.sbatch) the job is "local" and its folder results/mine-local,
# which git ignores: never the committed reference run, results/local.
folder=$JOB
[ "$JOB" = local ] && folder=mine-local
export OUT=${OUT:-${RESULTS_ROOT:-results}/$folder}

# Every P must fit the tasks this job was given.
check_ps() {
  for p in $PS; do
    [[ $p =~ ^[1-9][0-9]*$ ]] || die "PS must list process counts, not '$p'"
    [ "$p" -le "$TASKS" ] || die "PS: P=$p needs $p tasks; this job has $TASKS (raise --ntasks or --ntasks-per-node)"
  done
}

# EXCLUSIVE=1, the benchmark scripts' default (their #SBATCH --exclusive asks
# for it): a job that shares its nodes times other jobs' work as its own.
# EXCLUSIVE=0 with sbatch --oversubscribe times on shared nodes, and says so.
check_exclusive() {
  case ${EXCLUSIVE:=1} in 0 | 1) ;; *) die "EXCLUSIVE must be 1 or 0, not '$EXCLUSIVE'" ;; esac
  export EXCLUSIVE_HELD=no
  [ -n "${SLURM_JOB_ID:-}" ] && scontrol show job "$SLURM_JOB_ID" 2>/dev/null | grep -q 'OverSubscribe=NO' \
    && EXCLUSIVE_HELD=yes
  [ -z "${SLURM_JOB_ID:-}" ] || [ "$EXCLUSIVE" = 0 ] || [ "$EXCLUSIVE_HELD" = yes ] \
    || die "EXCLUSIVE=1: job $SLURM_JOB_ID shares its nodes; submit with sbatch --exclusive, or EXCLUSIVE=0 to time on shared nodes"
}

where() {
  local nodes=${SLURM_JOB_NODELIST:-$(hostname -s)}
  echo "== commlab job $JOB: $TASKS task(s) on ${SLURM_JOB_NUM_NODES:-1} node(s), $nodes; results in $OUT"
}
