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
# mpirun's own event library, not the program, may warn once as ranks that
# refused their input leave at once ("[warn] Epoll MOD(1) on fd 35 failed.
# ... Bad file descriptor": a known race in Open MPI's teardown, open-mpi/ompi
# issue 2004); that line is taken out of $TMP/err, so that a refusal is
# judged by what the program printed. Anything else stays.
# shellcheck disable=SC2086
run() {
  local rc=0
  timeout "${RUN_TIMEOUT:-60}" $MPIEXEC -np "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
  sed -i '/^\[warn\] Epoll [A-Z]*([0-9]*) on fd [0-9]* failed\. /d' "$TMP/err"
  return $rc
}
# refused RC WHAT PATTERN: after a run, ok when it exited 2 with one line matching PATTERN.
refused() {
  if [ "$1" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q -- "$3" "$TMP/err"; then
    ok "$2 refused with one line: $(cat "$TMP/err")"
  else
    fail "$2 (exit $1)"
  fi
}
finish() { echo "$passes passed, $fails failed"; [ "$fails" = 0 ]; }

# new_build_generator DIR: "-G Ninja" where ninja is found and DIR is not
# configured yet (a folder configured before keeps its generator). Ninja
# compiles a target's files while the libraries below it link, where make
# waits for them: about 50 s of the sanitizer build on 2 cores.
new_build_generator() {
  command -v ninja >/dev/null && [ ! -f "$1/CMakeCache.txt" ] && echo "-G Ninja"
}
