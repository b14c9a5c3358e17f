#!/bin/bash
# The scripts answer before they act: every bench/*.sh and slurm/*.sbatch
# prints its usage for --help (exit 0, from any folder, nothing written),
# and one that takes no arguments refuses one in a line (exit 2). A batch
# script run where it cannot find the project says so in one line, and none
# writes a committed folder by default.
#   scripts_test.sh SOURCE_DIR
SRC=$(cd "$1" && pwd)
source "$(dirname "$0")/support/check_lib.sh"
cd "$TMP" || exit 1
takes_args="portable_mpi.sh lab.sbatch sweep_array.sbatch"
before=$(cd "$SRC" && git status --porcelain 2>/dev/null)
for script in "$SRC"/bench/*.sh "$SRC"/slurm/*.sbatch; do
  name=$(basename "$script")
  case $name in settings.sh | args.sh) continue ;; esac
  first=$(sed -n '2s/^# \{0,1\}//p' "$script")
  bash "$script" --help >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [ $rc = 0 ] && [ "$(head -1 "$TMP/out")" = "$first" ] && [ ! -s "$TMP/err" ] \
    || { fail "$name --help (exit $rc)"; continue; }
  if [[ " $takes_args " != *" $name "* ]]; then
    bash "$script" --bogus >"$TMP/out" 2>"$TMP/err"
    refused $? "$name --bogus" "takes no arguments, not '--bogus'"
  else
    ok "$name --help: its usage"
  fi
done
# sbatch copies the script away: from the wrong folder it cannot find the project.
cp "$SRC/slurm/sweep.sbatch" "$TMP/slurm_script"
SLURM_SUBMIT_DIR=$TMP SLURM_JOB_ID=1 bash "$TMP/slurm_script" >"$TMP/out" 2>"$TMP/err"
refused $? "a batch script submitted from outside the project" "submit from the commlab folder"
[ "$(cd "$SRC" && git status --porcelain 2>/dev/null)" = "$before" ] \
  && ok "--help and refusals wrote nothing in the clone" || fail "the clone changed"
grep -q '^RUN=${RUN:-mine} ' "$SRC/bench/sweep.sh" && grep -qx '/results/mine\*/' "$SRC/.gitignore" \
  && ok "the sweep's default folder, results/mine, is one git ignores" || fail "sweep.sh's default folder"
# Every algorithm its own colour and marker, the same in every plot (with
# the Python the sweep would plot with: bench/settings.sh's find_python).
PY=none
for p in python3 /usr/bin/python3; do "$p" -c 'import matplotlib' 2>/dev/null && PY=$p && break; done
[ "$PY" = none ] && { echo "skip: no Python with matplotlib"; finish; exit; }
"$PY" - "$SRC" >"$TMP/out" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/bench")
import matplotlib
matplotlib.use("Agg")
import styles
seen = {}
for name in styles.NAMES:
    s = styles.style(name)
    key = (tuple(s["color"]), s["marker"])
    assert key not in seen, f"{name} and {seen[key]} share a colour and a marker"
    seen[key] = name
print(len(seen))
PY
[ $? = 0 ] && ok "$(tail -1 "$TMP/out") algorithms, each its own colour and marker (bench/styles.py)" \
  || { fail "plot styles"; cat "$TMP/out"; }
finish
