#!/bin/bash
# The commands the docs show, run as a reader would type them, and what they
# print held to what the docs say they print (ctest docs_commands, label lab):
#   docs_test.sh SRC BIN
#
# Which commands: in SRC/README.md and SRC/docs/*.md, every line inside a
# ```sh or ```console fence that starts with "$ " (one that ends in "\" goes
# on with the next line). Each runs from SRC with `bash -c`, stdin closed, at
# most DOCS_TIMEOUT seconds (120), after three rewrites:
#   mpirun       -> mpirun --oversubscribe -q   (as lab/run.sh: more ranks than
#                                                cores, and no banner)
#   build/bin/   -> BIN/                        (./build/bin/ too)
#   /tmp/        -> a scratch folder of its own, removed at the end, so that a
#                   run starts from nothing and leaves nothing behind
#
# Skipped, each with a `skip` line saying why:
# - a command that SKIP (below) matches: make, Slurm (sbatch, srun, salloc and
#   the slurm/ scripts, which set up a cluster as root), root package
#   installs, a GPU, the sweeps (minutes each); and the plot scripts when the
#   python3 on PATH has no matplotlib;
# - every command of a fence whose line before the opening ``` is
#     <!-- docs_test: skip: REASON -->
#   (a command that takes too long here, or needs what a test machine lacks).
#
# What is checked, for each command run:
# - its exit status: 0, or 2 where the lines shown under it include one that
#   starts with "error:" (bad input: one line and exit 2, docs/usage.md);
# - the output shown: the lines under the command, up to the next "$ " line or
#   the end of the fence. Each must be a line of the real output (stdout and
#   stderr together), both compared with every run of blanks made one and the
#   ends trimmed. Not checked, because they change from run to run or machine
#   to machine:
#     a line with a decimal fraction (a digit, ".", a digit): times, rates,
#       fitted figures, the `# time model` line;
#     a heading that names the run or the machine: lines starting
#       "# Open MPI" (date, commit), "# placement:" (hosts), "# GPU:";
#     "...", which stands for lines left out.
# Exit status: the number of failures.
SRC=$(cd "${1:?usage: docs_test.sh SRC BIN}" && pwd) || exit 2
BIN=$(cd "${2:?usage: docs_test.sh SRC BIN}" && pwd) || exit 2
source "$SRC/tests/support/check_lib.sh"  # TMP, ok, fail; and mpirun as root allowed
skips=0
skip() { skips=$((skips + 1)); echo "skip $1"; }
fail() {
  fails=$((fails + 1)); echo "FAIL $1"
  [ -f "$TMP/out" ] && tail -n 5 "$TMP/out" | sed 's/^/     | /'
}

# REGEX<TAB>why: a command that matches (grep -E) is not run.
SKIP="(^|[ ;&|(])make( |$)	make: it builds, and make test runs this
(^|[ ;&|(])(sbatch|srun|salloc)( |$)	needs Slurm
(^|[ ;&|(])(bash |source |\./)?slurm/	the Slurm scripts: a cluster, set up as root
(^|[ ;&|(])source /tmp/commlab-cluster/	needs the Slurm cluster of slurm/cluster_up.sh
(^|[ ;&|(])(sudo|apt|apt-get|dpkg)( |$)|scripts/deps\.sh	installs packages as root
-d cuda|gpu_bandwidth|gpu-bench|gpu_sweep	needs a GPU
bench/(sweep|ps_sweep|auto_bench|mpi_tuning|gpu_sweep)\.sh	a sweep: minutes"
python3 -c 'import matplotlib' 2>/dev/null || SKIP+="
python3 bench/[a-z_]*plot\.py	the python3 on PATH has no matplotlib"

squeeze() { sed -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //' -e 's/ $//'; }

# Runs the command gathered so far ($cmd, shown at $where, output lines shown
# under it in $TMP/shown), and checks it.
flush() {
  [ -n "$cmd" ] || return 0
  local shown="$cmd" why="" rule regex
  cmd=""
  if [ -n "$fence_skip" ]; then
    why=$fence_skip
  else
    while IFS= read -r rule; do
      regex=${rule%%	*}
      if grep -Eq -- "$regex" <<<"$shown"; then why=${rule#*	}; break; fi
    done <<<"$SKIP"
  fi
  if [ -n "$why" ]; then
    skip "$where: $shown ($why)"
    return 0
  fi
  local run=$shown want=0
  run=$(sed -E -e "s#(^|[^[:alnum:]_./-])/tmp/#\1$TMP/tmp/#g" \
               -e 's#(^|[^[:alnum:]_./-])mpirun( |$)#\1mpirun --oversubscribe -q\2#g' \
               -e "s#(\./)?build/bin/#$BIN/#g" <<<"$run")
  grep -q '^error:' "$TMP/shown" && want=2
  local start=$SECONDS rc
  (cd "$SRC" && timeout "${DOCS_TIMEOUT:-120}" bash -c "$run") </dev/null >"$TMP/out" 2>&1
  rc=$?
  local secs=$((SECONDS - start))
  if [ "$rc" != "$want" ]; then
    fail "$where: $shown: exit $rc, the docs want $want"
    return 0
  fi
  # The shown lines that must appear, squeezed; then those that do not.
  grep -Ev '[0-9]\.[0-9]|^# (Open MPI|placement:|GPU:)|^\.\.\.$' "$TMP/shown" | squeeze | grep -v '^$' >"$TMP/want"
  squeeze <"$TMP/out" >"$TMP/got"
  local missing
  missing=$(grep -Fvx -f "$TMP/got" "$TMP/want")
  if [ -n "$missing" ]; then
    fail "$where: $shown: it did not print $(wc -l <<<"$missing") of the lines shown, the first: '$(head -n 1 <<<"$missing")'; it printed, last:"
    return 0
  fi
  ok "$where: $shown (exit $rc, $(wc -l <"$TMP/want") shown lines checked, ${secs} s)"
}

opens='^```(sh|console)[[:space:]]*$' closes='^```[[:space:]]*$'
marks='^<!-- docs_test: skip: (.*) -->[[:space:]]*$'
mkdir -p "$TMP/tmp"
start_all=$SECONDS
shopt -s nullglob
for page in "$SRC/README.md" "$SRC"/docs/*.md; do
  name=${page#"$SRC/"}
  n=0 in_fence=0 fence_skip="" marker="" cmd="" where="" continued=0
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    if [ $in_fence = 0 ]; then
      [[ $line =~ $opens ]] && in_fence=1 fence_skip=$marker
      if [[ $line =~ $marks ]]; then
        marker=${BASH_REMATCH[1]}
      else
        marker=""
      fi
      continue
    fi
    if [[ $line =~ $closes ]]; then  # the fence ends
      flush
      in_fence=0 fence_skip="" continued=0
      continue
    fi
    if [ $continued = 1 ]; then  # the command goes on from the line before
      line=${line#"${line%%[![:space:]]*}"}
      cmd=${cmd%\\} cmd="${cmd%"${cmd##*[![:space:]]}"} $line"
      [[ $line == *\\ ]] || continued=0
      continue
    fi
    if [[ $line == '$ '* ]]; then
      flush
      cmd=${line#\$ } where="$name:$n"
      : >"$TMP/shown"
      [[ $cmd == *\\ ]] && continued=1
      continue
    fi
    [ -n "$cmd" ] && printf '%s\n' "$line" >>"$TMP/shown"
  done <"$page"
  [ $in_fence = 1 ] && { cmd=""; fail "$name: a fence that never ends"; }
done
# No page reads a CSV by column number (`awk -F,`, `cut -d,`): a column
# added later, or a quoted comma in a note, would shift it. They read by
# name: `report --column NAME,...` (or the JSON rows).
by_number=$(cd "$SRC" && grep -nE "^\\$ .*(awk +-F *'?,|cut +-d *'?,)" README.md docs/*.md lab/*/README.md)
[ -z "$by_number" ] && ok "no page reads a CSV's columns by number" \
  || fail "CSV columns read by number: $by_number"
echo "$passes passed, $fails failed, $skips skipped, $((SECONDS - start_all)) s"
exit $fails
