# The launch settings every script shares (sourced by bench/sweep.sh,
# bench/ps_sweep.sh, slurm/common.sh and lab/run.sh; the table is in
# docs/slurm.md). Each is checked here, before anything is submitted or
# launched: a bad one stops the script with one line.
#
#   SITE_SETUP  a file sourced first: module load, spack load, a venv
#   SRUN_MPI    srun --mpi=VALUE; empty: slurm.conf's MpiDefault decides
#               (Open MPI: pmix; Debian's MPICH: pmi2, docs/slurm.md)
#   BIND        none | core | socket: mpirun --bind-to, srun --cpu-bind;
#               unset: mpirun none (ranks may outnumber cores), srun as
#               slurm.conf's TaskPlugin decides
#   PY          the Python for plots, with matplotlib; none: no plots
#   EXCLUSIVE   1: a batch job must hold its nodes alone (slurm/common.sh)
SRUN_MPI=${SRUN_MPI:-}
SITE_SETUP=${SITE_SETUP:-}
BIND=${BIND:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # Open MPI refuses root without
die() { echo "error: $*" >&2; exit 2; }

# Modules, spack, a venv: before anything looks for MPI, Python or Slurm;
# once per job or shell, where one script runs another (what it exports is
# inherited), and again in each batch job.
if [ -n "$SITE_SETUP" ] && [ "${COMMLAB_SITE_SETUP_DONE:-}" != "$SITE_SETUP@${SLURM_JOB_ID:-}" ]; then
  [ -f "$SITE_SETUP" ] && [ -r "$SITE_SETUP" ] || die "SITE_SETUP: $SITE_SETUP cannot be read"
  SITE_SETUP=$(realpath "$SITE_SETUP")  # the same file from any folder, and in machine.md
  set +u  # module and spack scripts read unset variables
  # shellcheck disable=SC1090
  source "$SITE_SETUP" || die "SITE_SETUP: sourcing $SITE_SETUP failed"
  set -u
  export COMMLAB_SITE_SETUP_DONE=$SITE_SETUP@${SLURM_JOB_ID:-}
fi

case $BIND in
  '') srun_bind= ;;
  none) srun_bind=none ;;
  core) srun_bind=cores ;;
  socket) srun_bind=sockets ;;
  *) die "BIND must be none, core or socket, not '$BIND'" ;;
esac
MPIRUN_FLAGS="--bind-to ${BIND:-none}"  # Open MPI's; MPICH's Hydra spells it -bind-to
SRUN_LAUNCH_FLAGS="${SRUN_MPI:+--mpi=$SRUN_MPI}${srun_bind:+ --cpu-bind=$srun_bind}"
# One line for machine.md and job logs.
settings_line() {
  echo "BIND=${BIND:-(unset: mpirun none, srun as slurm.conf)} SRUN_MPI=${SRUN_MPI:-(unset: slurm.conf decides)} SITE_SETUP=${SITE_SETUP:-none} PY=${PY:-none}"
}

# SRUN_MPI names a plugin this Slurm has (srun --mpi=list), where srun will run.
check_srun_mpi() {
  [ -z "$SRUN_MPI" ] && return
  command -v srun >/dev/null || die "SRUN_MPI=$SRUN_MPI, but there is no srun here"
  srun --mpi=list 2>&1 | tr -s ' \t:,' '\n' | grep -qx -- "$SRUN_MPI" \
    || die "SRUN_MPI: this Slurm has no MPI plugin '$SRUN_MPI' (srun --mpi=list: $(srun --mpi=list 2>&1 | tail -n +2 | tr -s ' \t\n' ' '))"
}

# The MPI the programs would load now is the one they were built against
# (build/bin/mpi-library.txt, written by CMake): a missing module, or
# another MPI first on the library path, fails here rather than mid-sweep.
check_mpi_library() {
  local bin=$1 built now
  [ -s "$bin/mpi-library.txt" ] || return 0
  built=$(cat "$bin/mpi-library.txt")
  now=$(ldd "$bin/allreduce" 2>/dev/null | awk '$1 ~ /^libmpi(ch)?\.so/ { print $3 }')
  [ -n "$now" ] && [ "$now" != "not" ] \
    || die "$bin/allreduce cannot find $(basename "$built") at run time: load the MPI it was built with (SITE_SETUP)"
  [ "$(basename "$(readlink -f "$now")")" = "$(basename "$built")" ] \
    || die "the programs were built against $built but would load $(readlink -f "$now"): load that MPI (SITE_SETUP), or rebuild"
}

# LAUNCH (mpirun | srun | auto: srun inside a Slurm job) made into a
# function, `launch P PROGRAM ARGS...`, and launch_line, the same in words.
# RUN_TIMEOUT=S (unset: none) stops a launch that runs S seconds (exit 124,
# or 137 where it had to be killed).
# mpirun: the launcher of the MPI the programs were built against: Open
# MPI's mpirun --oversubscribe, or, where $BIN/mpiexec.txt (from CMake) names
# MPICH's, mpiexec.mpich (Hydra: more ranks than cores by itself, -bind-to).
set_up_launch() {
  if [ "$LAUNCH" = auto ]; then LAUNCH=$([ -n "${SLURM_JOB_ID:-}" ] && echo srun || echo mpirun); fi
  local mpiexec="mpirun --oversubscribe" flags=$MPIRUN_FLAGS
  if grep -qs 'mpich\|hydra' "${BIN:-build/bin}/mpiexec.txt"; then
    mpiexec=$(cat "${BIN:-build/bin}/mpiexec.txt") flags="-bind-to ${BIND:-none}"
  fi
  MPIEXEC_LINE="$mpiexec $flags"
  # shellcheck disable=SC2086
  case $LAUNCH in
    mpirun) launch_line="$MPIEXEC_LINE -np P"
            launch() { ${RUN_TIMEOUT:+timeout -k 30 $RUN_TIMEOUT} $MPIEXEC_LINE -np "$@"; } ;;
    srun)   check_srun_mpi
            launch_line=$(echo srun $SRUN_LAUNCH_FLAGS --ntasks P $SRUN_FLAGS)
            # Each cell asks for its own P; the job's --ntasks-per-node would only
            # make srun warn that it cannot honour it.
            launch() { local n=$1; shift; ${RUN_TIMEOUT:+timeout -k 30 $RUN_TIMEOUT} env -u SLURM_NTASKS_PER_NODE srun $SRUN_LAUNCH_FLAGS --ntasks "$n" $SRUN_FLAGS "$@"; } ;;
    *) die "LAUNCH must be mpirun, srun or auto, not '$LAUNCH'" ;;
  esac
}

# PY: given, or python3, then /usr/bin/python3; it must import matplotlib.
# PY unset and no matplotlib (most sites' compute nodes): the plots are
# skipped with a warning and the sweep goes on; a PY given that cannot plot
# is refused, since it was asked for.
find_python() {
  [ "${PY:-}" = none ] && return
  local tried=${PY:-$(command -v python3) /usr/bin/python3} p
  for p in $tried; do
    if "$p" -c 'import matplotlib' 2>/dev/null; then PY=$p; return; fi
  done
  if [ -z "${PY:-}" ]; then
    echo "warning: no Python with matplotlib (tried ${tried}): the plots are skipped (install python3-matplotlib, or set PY)" >&2
    PY=none
    return
  fi
  die "PY: no Python with matplotlib (tried ${tried}): install python3-matplotlib, set PY to one that has it, or PY=none to skip the plots"
}

# plot SCRIPT FOLDER: a sweep's plots by bench/SCRIPT with find_python's PY;
# nothing with PY=none. Fails, saying so in one line, where the plotting did.
plot() {
  [ "${PY:-none}" = none ] && return 0
  "$PY" "bench/$1" "$2" && return 0
  echo "error: plotting $2 with bench/$1 failed" >&2
  return 1
}
