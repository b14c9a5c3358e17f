#!/bin/bash
# The parameter-server sweep: ps_sim over P and S, beside colocated servers,
# the hand ring and MPI_Allreduce, then a straggler under each consistency.
# Writes OUT (default results/mine_ps, which git ignores): ps.csv (one row per run), loss.csv
# (loss per iteration), machine.md and plots. Measures into a scratch folder
# and replaces OUT only when every run passed its checks.
#
#   MODEL (8M) BATCH (4) ITERS (12) PS ("1 2 3 4 6 8") SERVERS ("1 2 4")
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=${OUT:-results/mine_ps}
MODEL=${MODEL:-8M} BATCH=${BATCH:-4} ITERS=${ITERS:-12}
PS=${PS:-1 2 3 4 6 8} SERVERS=${SERVERS:-1 2 4}
BIN=${BIN:-build/bin}
source bench/settings.sh  # SITE_SETUP, BIND, PY (docs/slurm.md)
[ -x "$BIN/ps_sim" ] || die "$BIN/ps_sim not built (run make build)"
# Bad settings stop the sweep before anything is launched: ps_sim's own
# parser reads MODEL and BATCH alike; the SSP runs' --tau 3 needs 3 iterations.
[[ $ITERS =~ ^[0-9]+$ ]] && [ "$ITERS" -ge 3 ] || die "ITERS must be 3 or more (the SSP runs' tau goes to 3), not '$ITERS'"
for p in $PS; do [[ $p =~ ^[1-9][0-9]*$ ]] || die "PS must list process counts, not '$p'"; done
for s in $SERVERS; do [[ $s =~ ^[1-9][0-9]*$ ]] || die "SERVERS must list server counts, not '$s'"; done
check_mpi_library "$BIN"
find_python

mkdir -p "$(dirname "$OUT")"
work=$(mktemp -d "$(dirname "$OUT")/.sweep-ps.XXXX")  # ignored by git while it runs
trap 'rm -rf "$work"' EXIT
failed=0 runs=0
one() {  # ranks, then ps_sim's flags
  local np=$1; shift
  runs=$((runs + 1))
  printf '%-60s' "np=$np $*"
  # shellcheck disable=SC2086
  if timeout 600 mpirun --oversubscribe $MPIRUN_FLAGS -np "$np" "$BIN/ps_sim" -M "$MODEL" -b "$BATCH" \
       -i "$ITERS" --csv "$work/ps.csv" --loss-csv "$work/loss.csv" "$@" >"$work/last.log" 2>&1; then
    tail -n +5 "$work/last.log" | head -1 | awk '{printf "%9s us/iter  %s\n", $6, $NF}'
  else
    failed=$((failed + 1)); echo "FAILED"; sed 's/^/   | /' "$work/last.log" | tail -5
  fi
}

for P in $PS; do
  for S in $SERVERS; do
    [ "$S" -le "$P" ] && one $((P + S)) --mode ps -s "$S"
  done
  for mode in colocated ring mpi; do one "$P" --mode "$mode"; done
done
# One slow worker (4x) at P = 4: BSP waits for it, SSP a bounded while, async not at all.
for c in "--consistency bsp" "--consistency ssp --tau 1" "--consistency ssp --tau 3" \
         "--consistency async"; do
  one 5 --mode ps -s 1 $c --straggler 0:4
done

rm -f "$work/last.log"
bash bench/machine.sh > "$work/machine.md"
plot ps_plot.py "$work" || failed=$((failed + 1))
if [ "$failed" != 0 ]; then
  echo "error: $failed of $runs runs failed; $OUT left as it was" >&2
  exit 1
fi
rm -rf "$OUT" && mv "$work" "$OUT" && trap - EXIT && echo "== wrote $OUT ($runs runs)"
