#!/bin/bash
# The scripts answer before they act: every script a user runs in bench/,
# slurm/ and scripts/ (*.sh and *.sbatch with a #! line; the sourced helpers,
# settings.sh, args.sh, common.sh, ring_route.sh, have none) prints its usage
# for --help (exit 0, from any folder, nothing written), and refuses an
# argument it does not take in a line (exit 2), before it installs, starts or
# writes anything. A batch script run where it cannot find the project says
# so in one line, and none writes a committed folder by default.
#   scripts_test.sh SOURCE_DIR
SRC=$(cd "$1" && pwd)
source "$(dirname "$0")/support/check_lib.sh"
cd "$TMP" || exit 1
before=$(cd "$SRC" && git status --porcelain 2>/dev/null)
scripts=0
for script in "$SRC"/bench/*.sh "$SRC"/slurm/*.sh "$SRC"/slurm/*.sbatch "$SRC"/scripts/*.sh; do
  name=$(basename "$script")
  [ "$(head -c 2 "$script")" = "#!" ] || continue
  scripts=$((scripts + 1))
  first=$(sed -n '2s/^# \{0,1\}//p' "$script")
  bash "$script" --help >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [ $rc = 0 ] && [ "$(head -1 "$TMP/out")" = "$first" ] && [ ! -s "$TMP/err" ] \
    || { fail "$name --help (exit $rc)"; continue; }
  # What each refuses '--bogus' with: those that take arguments name theirs.
  case $name in
    sweep_array.sbatch) ok "$name --help: its usage (its arguments are sbatch's flags)"; continue ;;
    portable_mpi.sh | lab.sbatch | link_timeline.sh) why="not the option '--bogus'" ;;
    port_shape.sh | ring_links.sh | ring_shape.sh) why="usage: $name " ;;
    *) why="takes no arguments, not '--bogus'" ;;
  esac
  bash "$script" --bogus >"$TMP/out" 2>"$TMP/err"
  refused $? "$name --bogus" "$why"
done
[ "$scripts" -ge 25 ] && ok "$scripts scripts answered --help" || fail "only $scripts scripts found"
# The Python scripts alike (bench/script_args.py), with any python3: --help
# answers before matplotlib is imported.
for script in "$SRC"/bench/*.py; do
  name=$(basename "$script")
  # The modules, styles.py and script_args.py itself, are imported, not run.
  [ "$name" != script_args.py ] && grep -q '^[^#]*script_args(__doc__' "$script" || continue
  first=$(sed -n '2s/^"""//p' "$script")
  python3 "$script" --help >"$TMP/out" 2>"$TMP/err"
  rc=$?
  [ $rc = 0 ] && [ "$(head -1 "$TMP/out")" = "$first" ] && [ ! -s "$TMP/err" ] \
    || { fail "$name --help (exit $rc)"; continue; }
  python3 "$script" --bogus >"$TMP/out" 2>"$TMP/err"
  refused $? "$name --bogus" "not the option '--bogus'"
done
for name in plot.py ps_plot.py predict_plot.py osu_overlap_summary.py; do
  grep -q '^[^#]*script_args(__doc__' "$SRC/bench/$name" || fail "bench/$name does not check its arguments (bench/script_args.py)"
done
# sbatch copies the script away: from the wrong folder it cannot find the project.
cp "$SRC/slurm/sweep.sbatch" "$TMP/slurm_script"
SLURM_SUBMIT_DIR=$TMP SLURM_JOB_ID=1 bash "$TMP/slurm_script" >"$TMP/out" 2>"$TMP/err"
refused $? "a batch script submitted from outside the project" "submit from the commlab folder"
[ "$(cd "$SRC" && git status --porcelain 2>/dev/null)" = "$before" ] \
  && ok "--help and refusals wrote nothing in the clone" || fail "the clone changed"
grep -q '^RUN=${RUN:-mine} ' "$SRC/bench/sweep.sh" && grep -qx '/results/mine\*/' "$SRC/.gitignore" \
  && ok "the sweep's default folder, results/mine, is one git ignores" || fail "sweep.sh's default folder"
# A folder the user names is where they are, not where the script goes (a
# sweep of the barrier alone at P = 2, 2 iterations: about 2 s).
PS=2 PROGRAMS=barrier SIZES=4:4 ITERS=2 WARMUP=0 PY=none OUT=relout timeout 120 \
  bash "$SRC/bench/sweep.sh" >"$TMP/out" 2>&1
[ -s "$TMP/relout/rows.csv" ] && [ ! -e "$SRC/relout" ] \
  && ok "OUT=relout from another folder: the sweep writes there, not in the project" \
  || { fail "a relative OUT"; tail -3 "$TMP/out"; rm -rf "$SRC/relout"; }
# A batch script run with bash outside Slurm is job "local": its folder is
# one git ignores, not the committed reference run results/local.
out=$(env -u SLURM_JOB_ID -u SLURM_ARRAY_JOB_ID -u OUT -u RESULTS_ROOT COMMLAB_SRC="$SRC" \
  bash -c 'source "$COMMLAB_SRC/slurm/common.sh" && echo "$OUT"' probe 2>&1)
[ "$out" = results/mine-local ] && (cd "$SRC" && git check-ignore -q "$out/rows.csv") \
  && ok "a batch script outside Slurm writes $out, which git ignores" \
  || fail "a batch script outside Slurm writes '$out'"
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
