# Shared by the shell tests: a scratch folder, counters, and ok/fail/run.
# A test sources it, may redefine fail() to show more, and ends with `finish`.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0 passes=0
ok()   { passes=$((passes + 1)); echo "ok   $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1"; [ -f "$TMP/err" ] && sed 's/^/     | /' "$TMP/err" | head -5; }
# The build's launcher and its flags (ctest sets COMMLAB_MPIEXEC from the
# build's MPI: Open MPI's needs --oversubscribe, MPICH's takes no such flag).
MPIEXEC=${COMMLAB_MPIEXEC:-mpirun -q --oversubscribe}
# run NP PROGRAM FLAGS...: stdout to $TMP/out, stderr to $TMP/err, at most RUN_TIMEOUT s.
# shellcheck disable=SC2086
run()  { timeout "${RUN_TIMEOUT:-60}" $MPIEXEC -np "$@" >"$TMP/out" 2>"$TMP/err"; }
# refused RC WHAT PATTERN: after a run, ok when it exited 2 with one line matching PATTERN.
refused() {
  if [ "$1" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q -- "$3" "$TMP/err"; then
    ok "$2 refused with one line: $(cat "$TMP/err")"
  else
    fail "$2 (exit $1)"
  fi
}
finish() { echo "$passes passed, $fails failed"; [ "$fails" = 0 ]; }
