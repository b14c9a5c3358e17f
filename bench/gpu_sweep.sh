#!/bin/bash
# The GPU suite (`make gpu-bench`), on a machine with a GPU: every program on
# GPU buffers, hand-written beside MPI (and NCCL where each rank has a GPU of
# its own), through bench/sweep.sh; then the GPU's copy bandwidth beside the
# reduction kernel's. Writes results/$RUN (default results/mine_gpu, which git ignores):
#   rows.csv, cells/, report.md, *.png   as bench/sweep.sh writes them
#   bandwidth.csv                        copy vs reduction kernel, per size
#   machine.md                           with the GPU, driver, CUDA and NCCL
# Settings as for sweep.sh; these defaults differ: PS="1 2 4" (P=1 is where
# NCCL runs on a one-GPU machine), SIZES=4:64M, DEVICES=cuda; BW_SIZES, the
# bandwidth table's sizes (-m), 1M:1G.
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -uo pipefail
cd "$(dirname "$0")/.."
export RUN=${RUN:-mine_gpu}
export OUT=${OUT:-results/$RUN}
export PS=${PS:-"1 2 4"} SIZES=${SIZES:-4:64M} DEVICES=${DEVICES:-cuda}
BIN=${BIN:-build/bin}
[ -x "$BIN/gpu_bandwidth" ] || { echo "error: $BIN/gpu_bandwidth is missing: build with CUDA (nvcc on PATH)" >&2; exit 2; }
probe=$(mktemp)
"$BIN/gpu_bandwidth" -m 1M -i 1 >/dev/null 2>"$probe" || { cat "$probe" >&2; rm -f "$probe"; exit 2; }
rm -f "$probe"
mkdir -p "$(dirname "$OUT")"

# Ranks that share a GPU need the MPS control daemon, or every kernel waits
# for a context switch (docs/gpu.md): started here for the sweep when more
# ranks than GPUs will run and it is not running, and stopped at the end
# (only what this script started). MPS=no leaves it alone.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
most=$(tr ' ' '\n' <<<"$PS" | sort -n | tail -1)
pipe=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}
if [ "${MPS:-yes}" != no ] && [ "${gpus:-0}" -ge 1 ] && [ "$most" -gt "$gpus" ] && [ ! -p "$pipe/control" ] \
   && command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY=$pipe CUDA_MPS_LOG_DIRECTORY=${CUDA_MPS_LOG_DIRECTORY:-/tmp/nvidia-mps-log}
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then
    echo "== MPS control daemon started for the sweep (up to $most ranks on $gpus GPU(s)); stopped at the end"
    trap 'echo quit | nvidia-cuda-mps-control' EXIT
  else
    echo "warning: could not start the MPS control daemon: ranks sharing a GPU take turns" >&2
  fi
fi

FRESH=1 bash bench/sweep.sh
rc=$?
[ -d "$OUT" ] || exit $rc
echo "== copy vs reduction kernel bandwidth: $OUT/bandwidth.csv"
rm -f "$OUT/bandwidth.csv"
"$BIN/gpu_bandwidth" -m "${BW_SIZES:-1M:1G}" -i 20 --csv "$OUT/bandwidth.csv" | tee "$OUT/bandwidth.txt" || rc=1
{
  echo "- gpu, as the programs saw it: $(grep -h -m1 '^# GPU:' "$OUT"/cells/*.log | sed 's/^# GPU: //' | head -1)"
  nccl=$(grep -h -m1 -o 'NCCL [0-9][0-9.]*' "$OUT"/cells/*_P1_*.log | head -1)
  why=$(grep -h -m1 -o 'no NCCL rows: [^;]*' "$OUT"/cells/*.log | head -1)
  echo "- nccl rows at P=1 (one GPU per rank): ${nccl:-none, $why}"
  # (the device's name is quoted and holds commas: the report's CSV reader, not awk -F,)
  largest=$("$BIN/report" --column bytes,copy_GBps,reduce_GBps,ratio "$OUT/bandwidth.csv" | tail -1 |
    awk -F'\t' '{printf "%s bytes: copy %s GB/s, reduction kernel %s GB/s, ratio %s", $1, $2, $3, $4}')
  echo "- bandwidth (bytes read + written per second), largest size: $largest"
} >>"$OUT/machine.md"
exit $rc
