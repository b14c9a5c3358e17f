#!/bin/bash
# The sweep driver, and the main job (`make bench`). Runs a matrix of cells,
# program x P x dtype x device, each one program launch over all SIZES, and
# collects their rows into one CSV; then the report and the plots.
#
#   results/$RUN/rows.csv     every row (the programs' CSV schema)
#   results/$RUN/rows.jsonl   the same rows as JSON Lines (--json)
#   results/$RUN/cells.tsv    one line per cell: ok, or failed with its error
#   results/$RUN/cells/       each cell's own CSV and output
#   results/$RUN/machine.md   where, what and how it ran
#   results/$RUN/report.md    the report (build/bin/report), and *.png plots
#
# FRESH=1 (what `make bench` sets) measures every cell anew and replaces the
# folder only when all succeeded. Otherwise cells already ok are skipped when
# the same RUN is swept again, so an
# interrupted sweep resumes (with the same SIZES, FACTOR, ITERS, WARMUP and
# EXTRA: the script refuses others in the same folder); a failed cell is recorded, the sweep goes on, and
# the script exits 1 at the end. Settings, from the environment (and those
# every script shares, bench/settings.sh: SITE_SETUP, SRUN_MPI, BIND, PY):
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
RUN=${RUN:-mine}                            # results folder name (results/mine: git ignores it)
OUT=${OUT:-results/$RUN}                    # or the folder itself
PROGRAMS=${PROGRAMS:-}                       # default: every program ($BIN/programs.txt, from the build)
PS=${PS:-"2 3 4 6"}                         # process counts
SIZES=${SIZES:-4:16M}                       # -m MIN:MAX
FACTOR=${FACTOR:-4}                         # -f between sizes
DTYPES=${DTYPES:-float32}
DEVICES=${DEVICES:-host}
ITERS=${ITERS:-auto}  # auto: the programs' own, 100 below 1 MiB (a p99 needs them), 20 above
WARMUP=${WARMUP:-5}
EXTRA=${EXTRA:-}                            # more flags for every program, e.g. "-r 1"
INTERLEAVE=${INTERLEAVE:-yes}               # yes: --interleave (a size's rows a call each in turn); no: a row at a time
LAUNCH=${LAUNCH:-auto}                      # mpirun | srun | auto (srun inside a Slurm job)
SRUN_FLAGS=${SRUN_FLAGS:-}                  # more srun flags, e.g. --distribution=cyclic
CELL_TIMEOUT=${CELL_TIMEOUT:-3600}          # seconds a cell may run before it is stopped and failed
BIN=${BIN:-build/bin}
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/settings.sh

if [ -z "$PROGRAMS" ]; then
  [ -f "$BIN/programs.txt" ] || die "$BIN/programs.txt is missing; run 'make build' first"
  PROGRAMS=$(cat "$BIN/programs.txt")
fi
# Bad settings stop the sweep before anything is launched.
for p in $PS; do [[ $p =~ ^[1-9][0-9]*$ ]] || die "PS must list process counts, not '$p'"; done
for prog in $PROGRAMS; do
  [ -x "$BIN/$prog" ] || die "PROGRAMS: $BIN/$prog is missing (run 'make build'; programs: $(cat "$BIN/programs.txt" 2>/dev/null))"
done
[ -x "$BIN/report" ] && [ -x "$BIN/predict" ] || die "$BIN/report or $BIN/predict is missing; run 'make build' first"
[ -n "$PS" ] && [ -n "$PROGRAMS" ] && [ -n "$DTYPES" ] && [ -n "$DEVICES" ] || die "PS, PROGRAMS, DTYPES and DEVICES must not be empty"
[[ $ITERS =~ ^(auto|[1-9][0-9]*)$ ]] || die "ITERS must be auto or a count of iterations, not '$ITERS'"
[[ $INTERLEAVE =~ ^(yes|no)$ ]] || die "INTERLEAVE must be yes or no, not '$INTERLEAVE'"
# --overlap times each row beside its own compute: one row at a time.
interleave=(); [ "$INTERLEAVE" = yes ] && [[ " $EXTRA " != *" --overlap "* ]] && interleave=(--interleave)
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be a count of iterations, not '$WARMUP'"
[[ $CELL_TIMEOUT =~ ^[1-9][0-9]{0,5}$ ]] || die "CELL_TIMEOUT must be a number of seconds from 1 to 999999, not '$CELL_TIMEOUT'"
# SIZES and FACTOR as the programs read them (predict parses -m and -f alike, without MPI).
if ! why=$("$BIN/predict" -m "$SIZES" -f "$FACTOR" -P 2 --alpha 1 --bandwidth 1 2>&1 >/dev/null); then
  die "SIZES=$SIZES FACTOR=$FACTOR: ${why#error: }"
fi
set_up_launch
check_mpi_library "$BIN"
find_python

# FRESH=1 (make bench): measure everything anew in a scratch folder beside
# OUT, and put it in OUT's place only when every cell succeeded; OUT is left
# as it was otherwise.
final=
if [ "${FRESH:-0}" = 1 ]; then
  final=$OUT
  mkdir -p "$(dirname "$OUT")" || die "cannot create $(dirname "$OUT")"
  OUT=$(mktemp -d "$(dirname "$OUT")/.sweep-XXXXXX") || die "cannot create a scratch folder beside $final"
fi
mkdir -p "$OUT/cells" || die "cannot create $OUT"
touch "$OUT/cells.tsv"
# What each row means must not change within one folder: the matrix may grow
# (PROGRAMS, PS, DTYPES, DEVICES), the measurement settings may not.
# INTERLEAVE=yes is a measurement setting of its own; =no measures as before it existed.
settings="SIZES=$SIZES FACTOR=$FACTOR ITERS=$ITERS WARMUP=$WARMUP EXTRA=\"$EXTRA\"${interleave:+ INTERLEAVE=yes}"
if [ -s "$OUT/settings" ] && [ "$(cat "$OUT/settings")" != "$settings" ]; then
  die "$OUT was swept with $(cat "$OUT/settings"), not $settings: use another RUN, or delete $OUT"
fi
echo "$settings" >"$OUT/settings"
cells=()
for prog in $PROGRAMS; do for p in $PS; do for t in $DTYPES; do for d in $DEVICES; do
  cells+=("$prog P=$p $t $d")
done; done; done; done

start=$SECONDS failed=0 ran=0 total=${#cells[@]}
stamp() { local s=$((SECONDS - start)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }
echo "== sweep into $OUT: ${#cells[@]} cells ($PROGRAMS) x P in {$PS}, sizes $SIZES, via $launch_line"
for i in "${!cells[@]}"; do
  cell=${cells[$i]}
  read -r prog pp t d <<<"$cell"
  p=${pp#P=}
  name=${prog}_P${p}_${t}_${d}
  progress=$(printf '[%*d/%d]' ${#total} $((i + 1)) "$total")
  if grep -q "^$cell	ok	" "$OUT/cells.tsv"; then
    echo "$progress $cell: done before, skipped"
    continue
  fi
  t0=$SECONDS ran=$((ran + 1))
  rm -f "$OUT/cells/$name.csv" "$OUT/cells/$name.jsonl" "$OUT/cells/$name.iterations.csv"
  iters=(); [ "$ITERS" = auto ] || iters=(-i "$ITERS")
  # A cell that hangs (an MPI library that lost a message: docs/slurm.md) is
  # stopped, failed, and the sweep goes on.
  # shellcheck disable=SC2086
  RUN_TIMEOUT=$CELL_TIMEOUT launch "$p" "$BIN/$prog" -m "$SIZES" -f "$FACTOR" -T "$t" -d "$d" "${iters[@]}" -x "$WARMUP" "${interleave[@]}" $EXTRA \
    --csv "$OUT/cells/$name.csv" --json "$OUT/cells/$name.jsonl" \
    --times "$OUT/cells/$name.iterations.csv" >"$OUT/cells/$name.log" 2>&1
  rc=$?
  grep -v "^$cell	" "$OUT/cells.tsv" >"$OUT/cells.tsv.new"
  if [ $rc = 0 ]; then
    printf '%s\tok\t%ds\t\n' "$cell" $((SECONDS - t0)) >>"$OUT/cells.tsv.new"
    status=ok
  else
    failed=$((failed + 1))
    why=$(grep -m1 -E '^error|FAIL' "$OUT/cells/$name.log" || tail -1 "$OUT/cells/$name.log")
    [ $rc != 124 ] && [ $rc != 137 ] || why="stopped after CELL_TIMEOUT=$CELL_TIMEOUT s"
    printf '%s\tfailed\t%ds\texit %d: %s\n' "$cell" $((SECONDS - t0)) $rc "$why" >>"$OUT/cells.tsv.new"
    status="FAILED (exit $rc: $why)"
  fi
  mv "$OUT/cells.tsv.new" "$OUT/cells.tsv"
  echo "$progress $cell: $status, $((SECONDS - t0))s (elapsed $(stamp), $(( ${#cells[@]} - i - 1 )) left)"
done

# One CSV and one JSON Lines file of every cell's rows (those of failed cells
# included: they say FAIL).
shopt -s nullglob
parts=() times=()
for f in "$OUT"/cells/*.csv; do
  if [[ $f == *.iterations.csv ]]; then times+=("$f"); else parts+=("$f"); fi
done
merge() {  # INTO FILE...: one header, every file's rows
  local into=$1; shift
  { head -1 "$1"; for f in "$@"; do tail -n +2 "$f"; done; } >"$into.new" && mv "$into.new" "$into"
}
if [ ${#parts[@]} -gt 0 ]; then
  merge "$OUT/rows.csv" "${parts[@]}"
  cat "$OUT"/cells/*.jsonl >"$OUT/rows.jsonl.new" 2>/dev/null && mv "$OUT/rows.jsonl.new" "$OUT/rows.jsonl"
fi
# Every timed iteration of every rank (--times), for the report's distributions.
[ ${#times[@]} -gt 0 ] && merge "$OUT/iterations.csv" "${times[@]}"
# A job given several nodes whose runs all stayed on one (a launcher that
# ignores the allocation) measured something else: say so, and fail.
if [ "$LAUNCH" = srun ] && [ "${SLURM_JOB_NUM_NODES:-1}" -gt 1 ] && [ -s "$OUT/rows.csv" ]; then
  # (report --column reads the CSV as the report does: a failed row's note
  # may hold a quoted comma, which would shift awk -F,'s fields)
  most=$("$BIN/report" --column nodes "$OUT/rows.csv" | sort -n | tail -1)
  if [ "${most:-0}" -lt 2 ]; then
    echo "error: the job holds $SLURM_JOB_NUM_NODES nodes, but every run had all its ranks on one node (see the '# placement:' lines in $OUT/cells/*.log)" >&2
    failed=$((failed + 1))
  fi
fi
# The links as the programs meet them: a ping-pong between two of the job's
# nodes, one rank on each (half a round trip at 4 B; bandwidth at 4 MiB),
# beside the rate they were given where that is known (COMMLAB_LINK_RATE: the
# emulated cluster's env.sh sets it).
links_line() {
  local csv=$OUT/links.csv
  # shellcheck disable=SC2086
  srun $SRUN_LAUNCH_FLAGS --nodes 2 --ntasks 2 --ntasks-per-node 1 "$BIN/sendrecv" -a pingpong \
    -m 4:4M -f 1024 -i 20 -x 2 --csv "$csv" >"$OUT/links.log" 2>&1 ||
    { echo "ping-pong failed (links.log)"; return; }
  "$BIN/report" --column algorithm,bytes,t_avg_us,algbw_GBps "$csv" |
    awk -F'\t' -v given="${COMMLAB_LINK_RATE:-not known}" \
      -v hosts="$(grep -m1 '^# placement: ' "$OUT/links.log" | cut -d' ' -f3-)" '
    $1 == "pingpong" && $2 == 4 { lat = $3 }
    $1 == "pingpong" && $2 == 4194304 { bw = $4 }
    END { printf "given %s; ping-pong on %s: half round trip %.1f us at 4 B, %.3f GB/s at 4 MiB\n", given, hosts, lat, bw }'
}
# machine.md describes where cells ran: rewritten only when this sweep ran some.
[ "$ran" -gt 0 ] || [ ! -s "$OUT/machine.md" ] && {
  BIN="$BIN" bash bench/machine.sh
  echo "- launched: $launch_line$([ "$LAUNCH" = srun ] && echo "; job ${SLURM_JOB_ID:-?} on ${SLURM_JOB_NODELIST:-?}, exclusive ${EXCLUSIVE_HELD:-unknown}")"
  echo "- settings: $(settings_line)"
  echo "- sweep: PROGRAMS=\"$PROGRAMS\" PS=\"$PS\" SIZES=$SIZES FACTOR=$FACTOR DTYPES=\"$DTYPES\" DEVICES=\"$DEVICES\" ITERS=$ITERS WARMUP=$WARMUP EXTRA=\"$EXTRA\" INTERLEAVE=$INTERLEAVE"
  echo "- cells: $(grep -c '	ok	' "$OUT/cells.tsv") ok, $(grep -c '	failed	' "$OUT/cells.tsv") failed (cells.tsv)"
  if [ "$LAUNCH" = srun ] && [ "${SLURM_JOB_NUM_NODES:-1}" -gt 1 ]; then echo "- links: $(links_line)"; fi
  echo "- placement, as the programs saw it:"
  for log in "$OUT"/cells/*.log; do
    cell_p=$(basename "$log" | sed -E 's/.*_P([0-9]+)_.*/\1/')
    line=$(grep -m1 '^# placement: ' "$log" | cut -d' ' -f3-) && echo "  - P=$cell_p: $line"
  done | sort -t= -k2 -n -u
} >"$OUT/machine.md"

if [ -f "$OUT/rows.csv" ]; then
  echo "== report: $OUT/report.md"
  "$BIN/report" "$OUT" >/dev/null && sed -n '/## Checks/,/## Traffic/p' "$OUT/report.md" | grep -v '^## Traffic'
  plot plot.py "$OUT" || failed=$((failed + 1))
fi
echo "== $OUT: $(grep -c '	ok	' "$OUT/cells.tsv") cells ok, $failed failed in this sweep, $(stamp)"
if [ -n "$final" ]; then
  if [ $failed = 0 ]; then
    rm -rf "$final" && mv "$OUT" "$final" && echo "== wrote $final"
    "$BIN/report" "$final" >/dev/null  # again, so that it names the folder it is in
  else
    echo "== $final left as it was; this sweep's results are in $OUT"
  fi
fi
[ $failed = 0 ]
