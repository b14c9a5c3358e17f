#!/bin/bash
# make gpu-bench's script end to end, on the emulated GPU (a real one is not
# needed to test the script): a tiny sweep on device buffers, the bandwidth
# table and the machine.md lines; and its one-line refusal where -d cuda
# cannot run (build/bin on a machine without a GPU).
#   gpu_sweep_test.sh SOURCE_DIR BUILD_DIR
. "$(dirname "$0")/support/check_lib.sh"
SRC=$1 BUILD=$2
# The emulated programs, with the report and predict (which checks SIZES)
# beside them, as sweep.sh expects.
mkdir "$TMP/bin"
ln -s "$BUILD"/emulated/* "$TMP/bin/"
ln -s "$BUILD/bin/report" "$TMP/bin/report"
ln -s "$BUILD/bin/predict" "$TMP/bin/predict"
OUT_DIR=$TMP/gpu
if BIN=$TMP/bin OUT=$OUT_DIR PROGRAMS="allreduce_ring reduce_scatter" PS="1 3" SIZES=4:64K \
  DTYPES=float16 ITERS=2 WARMUP=0 BW_SIZES=1M:4M bash "$SRC/bench/gpu_sweep.sh" >"$TMP/out" 2>"$TMP/err"; then
  ok "gpu_sweep.sh on the emulated GPU: $(grep -c . "$OUT_DIR/cells.tsv") cells"
else
  fail "gpu_sweep.sh on the emulated GPU (exit $?)"
fi
transports=$("$BUILD/bin/report" --column transport "$OUT_DIR/rows.csv" | sort -u | tr '\n' ' ')
[ "$transports" = "staged " ] && ok "every row says transport staged" || fail "transports: $transports"
rows=$(($(wc -l <"$OUT_DIR/rows.csv") - 1))
checked=$("$BUILD/bin/report" --column check "$OUT_DIR/rows.csv" | grep -c '^ok$')
[ "$rows" -gt 0 ] && [ "$rows" = "$checked" ] && ok "$rows float16 rows, all checked ok" || fail "rows $rows, ok $checked"
[ "$(wc -l <"$OUT_DIR/bandwidth.csv")" = 4 ] && head -1 "$OUT_DIR/bandwidth.csv" | grep -q "copy_GBps,reduce_GBps,ratio" \
  && ok "bandwidth.csv: 3 sizes, copy and reduction beside their ratio" || fail "bandwidth.csv"
for line in "gpu, as the programs saw it: emulated GPU" "nccl rows at P=1 (one GPU per rank): none, no NCCL rows: not built" \
  "largest size: 4194304 bytes: copy"; do
  grep -qF -- "$line" "$OUT_DIR/machine.md" && ok "machine.md: $line" || fail "machine.md lacks: $line"
done
for png in traffic_vs_P time_vs_size busbw_vs_size time_vs_P; do
  [ -s "$OUT_DIR/$png.png" ] || fail "no $png.png"
done

# Without a GPU, the real build's script stops with one line.
if [ -x "$BUILD/bin/gpu_bandwidth" ] && ! nvidia-smi -L >/dev/null 2>&1; then
  BIN=$BUILD/bin OUT=$TMP/none bash "$SRC/bench/gpu_sweep.sh" >"$TMP/out" 2>"$TMP/err"
  refused $? "gpu_sweep.sh without a GPU" "^error: -d cuda"
  [ -e "$TMP/none" ] && fail "gpu_sweep.sh without a GPU left $TMP/none behind"
fi
finish
