#!/bin/bash
# The GPU check: every GPU target of the direct transport, built and measured
# in one call of under 8 minutes on a lent GPU machine (docs/gpu.md, "The GPU
# check"). Not yet run on a GPU.
#
# Where: an NVIDIA H100 or H200 (16 cores, root, no network), in a copy of the
# project tree with .gpu/debs carried beside it (bench/gpu_check_prepare.sh
# fills it here, on Debian 12), and nvcc, CMake and g++ on the machine:
#   bash bench/gpu_check.sh       (on the GPU machine; allow it 480 s)
# Nothing is downloaded there: the Debian packages are unpacked into /tmp.
# What it writes, into $OUT (default /tmp/gpu-check-out; at most 7 files):
#   summary.md       each target against its threshold (read this first)
#   machine.md       bench/machine.sh's lines, the GPU's, and its copy bandwidth
#   log.txt          what ran, when, with which exit status; the programs' headings
#   report.md        the project's report (build/bin/report) on the sweep's rows:
#                    its GPU fit, and "The fastest all-reduce ... the model's pick"
#   gpu_test.log     tests/gpu_test.sh (PROGRAMS=barrier: its direct part), as far as it got
#   bandwidth.csv    gpu_bandwidth: the copy beside the reduction kernel
#   results.tar.gz   every CSV and every program's output
# Order, the most needed first; each step under `timeout`, skipped when too
# little of BUDGET is left (RESERVE is kept for the report and the summary):
#   1 Debian's Open MPI, fmt, CLI11, ALGLIB, toml++, fccp, nlohmann-json and
#     BLAS unpacked from DEBS into /tmp (dpkg -x, nothing installed in /);
#     the image's nvcc, CMake, g++; NCCL from the image's Python package if any
#   2 build: sm_90 only, the programs the check runs (1-2 min on 16 cores)
#   3 gpu_bandwidth; the GPU's clock (%globaltimer, which the signal kernels
#     time their waits by) against the host's: its offset, and its rate
#   4 MPS on (its own pipe folder), P = 4: the staged ring (the 30x target's
#     denominator); --registered over direct
#   5 MPS: bench/gpu_sweep.sh, PROGRAMS=allreduce PS="4 2 8", 4 KiB to 64 MiB,
#     every algorithm and auto over direct (device signals); then
#     COMMLAB_DIRECT_SIGNAL=host at P = 4, and at P = 8 for ring, one_shot, two_shot
#   6 MPS off (an empty pipe folder): P = 4 (host signals, the default
#     there); P = 2 with device signals forced
#   7 tests/gpu_test.sh with PROGRAMS=barrier (its direct part, under the MPS
#     it starts itself; compute-sanitizer after, without), for the time left
#   8 machine.md, the report on the sweep's rows, and the summary
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
BUDGET=${BUDGET:-460}    # seconds for all of it, the summary included
RESERVE=${RESERVE:-30}   # of those, kept for the report, the summary and the packing
PROJ=${PROJ:-$(cd "$(dirname "$0")/.." && pwd)}  # the project tree
DEBS=${DEBS:-$PROJ/.gpu/debs}                     # the .deb files bench/gpu_check_prepare.sh fetched
WORK=${WORK:-/tmp/gpu-check}                      # scratch: the build, the runs (emptied first)
left() { echo $((BUDGET - RESERVE - $(el))); }
# cap WANT: min(WANT, the time left), at least 1 (timeout 0 would never stop it)
cap() { local l; l=$(left); [ "$l" -lt 1 ] && l=1; [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }

[[ $BUDGET =~ ^[1-9][0-9]*$ && $RESERVE =~ ^[0-9]+$ ]] \
  || { echo "error: BUDGET and RESERVE must be whole seconds, not '$BUDGET' and '$RESERVE'" >&2; exit 2; }
DOUT=${OUT:-/tmp/gpu-check-out}  # where the results go ($OUT on a lent machine)
unset OUT  # bench/sweep.sh and gpu_sweep.sh take OUT as their results folder
mkdir -p "$DOUT"
W=$WORK
case $W in /* ) [ "$W" != / ] ;; *) false ;; esac || { echo "error: WORK must be an absolute folder other than /, not '$W'" >&2; exit 2; }
# Emptied only where the check made it (its marker inside), never a folder
# of the user's that WORK happens to name.
if [ -e "$W" ] && [ ! -e "$W/.commlab-gpu-check" ]; then
  echo "error: WORK=$W exists and was not made by this check: name a new folder" >&2; exit 2
fi
rm -rf "$W" && mkdir -p "$W" && touch "$W/.commlab-gpu-check" || { echo "error: cannot make WORK=$W" >&2; exit 2; }
mkdir -p "$W/out" "$W/res/fit" "$W/nomps_pipe"
S=$W/out/log.txt
log() { echo "== $(el)s $*" | tee -a "$S"; }
note() { echo "$*" | tee -a "$S"; }
pack() {
  cp "$S" "$DOUT/log.txt" 2>/dev/null
  local f
  for f in out/bandwidth.csv out/gpu_test.log res/fit/report.md res/fit/machine.md out/summary.md; do
    [ -f "$W/$f" ] && cp "$W/$f" "$DOUT/"
  done
  tar -C "$W" -czf "$DOUT/results.tar.gz" out res 2>/dev/null
}
fail_early() { note "STOPPED: $*"; echo "# GPU check stopped early: $*" >"$W/out/summary.md"; pack; exit 3; }
cd "$PROJ" || fail_early "no project tree at $PROJ"
[ -f CMakeLists.txt ] && [ -f core/transports/direct_transport.cpp ] && [ -f tests/gpu_test.sh ] \
  || fail_early "$PROJ is not the commlab tree"

# ---- 1. tools and packages ---------------------------------------------------------------
log "machine"
{
  timeout 20 nvidia-smi -L
  timeout 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,compute_mode --format=csv
  timeout 20 nvidia-smi topo -m 2>/dev/null | head -5
  echo "cores: $(nproc); kernel: $(uname -r)"
  git -C "$PROJ" describe --always --dirty 2>/dev/null || echo "commit: no .git here"
} 2>&1 | tee -a "$S"
export PATH=/usr/local/cuda/bin:$PATH
for t in nvcc cmake g++ nvidia-cuda-mps-control python3; do
  note "$t: $(command -v $t || echo MISSING) $(timeout 10 $t --version 2>/dev/null | grep -m1 -oE '[0-9]+\.[0-9]+(\.[0-9]+)?')"
done
command -v nvcc >/dev/null && command -v cmake >/dev/null && command -v g++ >/dev/null \
  || fail_early "nvcc, cmake or g++ missing on this image"
command -v python3 >/dev/null || note "WARNING: no python3: no summary.md (the CSVs and report.md still come back)"
GEN="-G Ninja"; command -v ninja >/dev/null || GEN=""

R=$W/root
if ls "$DEBS"/*.deb >/dev/null 2>&1; then
  mkdir -p "$R"
  for d in "$DEBS"/*.deb; do timeout 60 dpkg -x "$d" "$R" || fail_early "dpkg -x $d"; done
  L=$R/usr/lib/x86_64-linux-gnu
  # Debian names these through alternatives, which dpkg -x does not set up.
  ln -sf mpirun.openmpi "$R/usr/bin/mpirun"; ln -sf mpiexec.openmpi "$R/usr/bin/mpiexec"
  ln -sf mpicxx.openmpi "$R/usr/bin/mpicxx"
  [ -e "$L/blas/libblas.so" ] && ln -sf blas/libblas.so "$L/libblas.so"
  [ -e "$L/blas/libblas.so.3" ] && ln -sf blas/libblas.so.3 "$L/libblas.so.3"
  export OPAL_PREFIX=$R/usr PATH=$R/usr/bin:$PATH
  export LD_LIBRARY_PATH=$L:$L/openmpi/lib:$L/blas:$R/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PMIX_MCA_mca_base_component_path=$L/pmix2/lib/pmix OMPI_MCA_mca_base_component_path=$L/openmpi/lib/openmpi3
  export PMIX_MCA_pcompress=^zlib PMIX_MCA_pcompress_base_silence_warning=1
  export CPATH=$R/usr/include${CPATH:+:$CPATH} LIBRARY_PATH=$L${LIBRARY_PATH:+:$LIBRARY_PATH}
  MPI_FLAGS=(-DCMAKE_PREFIX_PATH="$R/usr" -DMPI_CXX_COMPILER="$R/usr/bin/mpicxx.openmpi"
             -DMPIEXEC_EXECUTABLE="$R/usr/bin/mpirun.openmpi")
  note "Debian packages: $(ls "$DEBS"/*.deb | wc -l) unpacked into $R; mpirun: $(timeout 20 mpirun --version 2>&1 | head -1)"
else
  command -v mpicxx >/dev/null || fail_early "no .deb files in $DEBS and no MPI on this machine (run bench/gpu_check_prepare.sh where apt works, and carry .gpu/)"
  MPI_FLAGS=()
  note "WARNING: no Debian packages in $DEBS; this machine's MPI and libraries: $(timeout 20 mpirun --version 2>&1 | head -1)"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated \
       OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
# NCCL (library rows at one rank per GPU; gpu_test.sh expects one): the image's pip package, if any.
NCCL_FLAGS=()
ndir=$(timeout 20 python3 -c 'import nvidia.nccl, os; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null)
if [ -n "$ndir" ] && [ -f "$ndir/include/nccl.h" ] && ls "$ndir"/lib/libnccl.so* >/dev/null 2>&1; then
  mkdir -p "$W/nccl/lib"; ln -sf "$ndir/include" "$W/nccl/include"
  for f in "$ndir"/lib/libnccl.so*; do ln -sf "$f" "$W/nccl/lib/"; done
  [ -e "$W/nccl/lib/libnccl.so" ] || ln -sf "$(ls "$ndir"/lib/libnccl.so* | head -1)" "$W/nccl/lib/libnccl.so"
  NCCL_FLAGS=(-DNCCL_ROOT="$W/nccl"); export LD_LIBRARY_PATH=$W/nccl/lib:$LD_LIBRARY_PATH
  note "NCCL from $ndir"
fi

# ---- 2. build ------------------------------------------------------------------------------
B=$W/build/bin
log "build (cmake, sm_90, -j $(nproc))"
# What the check runs: the sweep needs report and predict; gpu_test.sh
# allreduce_ring, barrier, bcast, gather, alltoall and reduce_scatter.
TARGETS="allreduce allreduce_ring barrier bcast gather alltoall reduce_scatter gpu_bandwidth report predict"
# shellcheck disable=SC2086
if timeout "$(cap 60)" cmake -S "$PROJ" -B "$W/build" $GEN -DCMAKE_BUILD_TYPE=Release -DCOMMLAB_CUDA=ON \
     -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF "${MPI_FLAGS[@]}" "${NCCL_FLAGS[@]}" \
     >"$W/out/cmake.log" 2>&1 \
   && timeout "$(cap 260)" cmake --build "$W/build" -j "$(nproc)" --target $TARGETS >"$W/out/build.log" 2>&1; then
  note "build ok ($(grep -m1 -o 'commlab: NCCL [A-Z]*' "$W/out/cmake.log"); $(cat "$B/version.txt" 2>/dev/null))"
else
  tail -30 "$W/out/cmake.log" "$W/out/build.log" 2>/dev/null | tee -a "$S"
  fail_early "build failed or ran out of time at $(el)s (out/cmake.log, out/build.log)"
fi

# ---- 3. probes -------------------------------------------------------------------------------
log "gpu_bandwidth"
timeout "$(cap 60)" "$B/gpu_bandwidth" -m 4M:1G -i 10 --csv "$W/out/bandwidth.csv" 2>&1 | tee -a "$S"
log "%globaltimer against CLOCK_REALTIME"
# The signal kernels' deadline counts from a wait's first poll on the GPU's
# clock (core/device/device_cuda.cu, now_ns): its offset from the host's
# clock does not matter, its rate does. Both, printed.
cat >"$W/gtimer.cu" <<'CU'
#include <cstdio>
#include <ctime>
#include <unistd.h>
__global__ void k(unsigned long long* o) { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); *o = t; }
static long long host_ns() { timespec a; clock_gettime(CLOCK_REALTIME, &a); return a.tv_sec * 1000000000LL + a.tv_nsec; }
static long long gpu_ns(unsigned long long* d, long long* host_mid) {
  unsigned long long h = 0; long long a = host_ns(); k<<<1, 1>>>(d);
  cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost); long long b = host_ns();
  *host_mid = (a + b) / 2; return (long long)h;
}
int main() {
  unsigned long long* d; cudaMalloc(&d, 8); k<<<1, 1>>>(d); cudaDeviceSynchronize();
  long long h0, h1, g0 = gpu_ns(d, &h0);
  for (int i = 0; i < 3; ++i) {
    long long h, g = gpu_ns(d, &h);
    printf("globaltimer - CLOCK_REALTIME: %+.3f ms\n", (g - h) / 1e6);
  }
  usleep(500000);
  long long g1 = gpu_ns(d, &h1);
  printf("globaltimer rate: %.6f of the host clock's over %.3f s\n", double(g1 - g0) / double(h1 - h0), (h1 - h0) / 1e9);
  return 0;
}
CU
timeout "$(cap 60)" nvcc -arch=sm_90 -o "$W/gtimer" "$W/gtimer.cu" >>"$S" 2>&1 && timeout "$(cap 20)" "$W/gtimer" 2>&1 | tee -a "$S"

# ---- helpers for the runs ----------------------------------------------------------------------
# bounded SECONDS CMD...: CMD, and past SECONDS every process it started, ended (the project's
# scripts run their programs under timeouts of their own, in process groups of their own, which
# a plain `timeout` around the script would not reach); the tree is walked by parent ids.
tree() { local c; for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do tree "$c"; echo "$c"; done; }
bounded() {
  local t=$1 pid end; shift
  "$@" &
  pid=$!
  end=$(($(date +%s) + t))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$(date +%s)" -ge "$end" ]; then
      note "   cut off after ${t}s"
      # shellcheck disable=SC2046
      kill -TERM $(tree "$pid") "$pid" 2>/dev/null; sleep 3
      # shellcheck disable=SC2046
      kill -KILL $(tree "$pid") "$pid" 2>/dev/null
      break
    fi
    sleep 1
  done
  wait "$pid"
}
# ar TAG P SECONDS FLAGS...: allreduce on GPU buffers, CSV into out/TAG.csv, output into out/TAG.txt
ar() {
  local tag=$1 P=$2 want=$3; shift 3
  local t; t=$(cap "$want")
  if [ "$t" -lt 15 ]; then note "-- skipped $tag (no time left)"; return; fi
  log "$tag: P=$P ${COMMLAB_DIRECT_SIGNAL:+COMMLAB_DIRECT_SIGNAL=$COMMLAB_DIRECT_SIGNAL }$* (at most ${t}s)"
  timeout -k 5 "$t" mpirun -q --bind-to none -np "$P" "$B/allreduce" -d cuda "$@" \
    --csv "$W/out/$tag.csv" >"$W/out/$tag.txt" 2>&1
  note "   exit $?; $(grep -m1 '^# GPU:' "$W/out/$tag.txt" | cut -c1-220)"
  case $tag in mps_*) ! grep -q '^# GPU:.*MPS not running' "$W/out/$tag.txt" \
                        || note "   WARNING: the programs did not find MPS running: $tag is NOT under MPS" ;; esac
  grep -m2 -E '^# (transport direct|time model)|^# warning' "$W/out/$tag.txt" | cut -c1-220 | sed 's/^/   /' | tee -a "$S" >/dev/null
  grep -m3 -E '^error|FAIL' "$W/out/$tag.txt" | sed 's/^/   /' | tee -a "$S"
}
# MPS counts as running where the GPU says so for every rank's context (the
# "# GPU:" line says "MPS running"), not where a pipe is there.
mps_on() {
  export CUDA_MPS_PIPE_DIRECTORY=$W/mps_pipe CUDA_MPS_LOG_DIRECTORY=$W/mps_log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  timeout 20 nvidia-cuda-mps-control -d >>"$S" 2>&1 && sleep 1
  [ -p "$CUDA_MPS_PIPE_DIRECTORY/control" ] && note "MPS control daemon running ($CUDA_MPS_PIPE_DIRECTORY)" \
    || note "WARNING: MPS did not start: the 'mps_' rows below are NOT under MPS"
}
mps_quit() {  # DIR (default: the check's own)
  local dir=${1:-$W/mps_pipe}
  [ -p "$dir/control" ] || return 0
  echo quit | CUDA_MPS_PIPE_DIRECTORY=$dir timeout 5 nvidia-cuda-mps-control >/dev/null 2>&1
}
mps_off() {
  mps_quit
  sleep 2
  export CUDA_MPS_PIPE_DIRECTORY=$W/nomps_pipe  # empty: no daemon for the programs, nor for CUDA
  note "MPS stopped (control pipe left behind: $([ -p "$W/mps_pipe/control" ] && echo yes || echo no))"
}
SIZES4="1024,262144,4194304,16777216"  # float32 elements: 4 KiB, 1 MiB, 16 MiB, 64 MiB

# ---- 4. MPS: the staged ring (denominator of the 30x target) and --registered, short and first --
log "MPS on"
mps_on
ar mps_staged_P4 4 60 --transport staged -a ring -n "$SIZES4" -i 10 -x 2
ar mps_registered_P4 4 80 --transport direct --registered -n "$SIZES4" -i 20 -x 3
pack

# ---- 5. MPS, device signals: the project's sweep over direct, P = 4, 2, 8 ----------------------
# (INTERLEAVE=no: over direct the programs time a row at a time anyway.)
t=$(cap 190)
if [ "$t" -ge 40 ]; then
  log "bench/gpu_sweep.sh PROGRAMS=allreduce PS='4 2 8' SIZES=4K:64M FACTOR=4 EXTRA='--transport direct' (at most ${t}s)"
  RUN=gpu_direct OUT=$W/res/gpu_direct PROGRAMS=allreduce PS="4 2 8" SIZES=4K:64M FACTOR=4 ITERS=20 \
    WARMUP=3 EXTRA="--transport direct" INTERLEAVE=no BW_SIZES=1G CELL_TIMEOUT=110 PY=none BIN=$B \
    MPS=no LAUNCH=mpirun bounded "$t" bash bench/gpu_sweep.sh >"$W/out/gpu_sweep.log" 2>&1
  note "   exit $?"; grep -E '^\[|^== |error' "$W/out/gpu_sweep.log" | cut -c1-200 | sed 's/^/   /' | tee -a "$S" >/dev/null
  tail -3 "$S"
fi
pack

# ---- 5b. MPS: host signals beside the device's ---------------------------------------------------
COMMLAB_DIRECT_SIGNAL=host ar mps_host_P4 4 80 --transport direct -n "$SIZES4" -i 20 -x 3
COMMLAB_DIRECT_SIGNAL=host ar mps_host_P8 8 50 --transport direct -a ring,one_shot,two_shot -n "$SIZES4" -i 10 -x 2
pack

# ---- 6. without MPS ----------------------------------------------------------------------------
if [ "$(left)" -ge 40 ]; then
  mps_off
  ar nomps_P4 4 60 --transport direct -a ring,one_shot,two_shot -n 1024,4194304,16777216 -i 10 -x 2
  COMMLAB_DIRECT_SIGNAL=device ar nomps_device_P2 2 35 --transport direct -a one_shot,ring -n 1024 -i 5 -x 1
fi
mps_quit
pack

# ---- 7. the project's GPU test, its direct part (PROGRAMS=barrier skips the long
#         every-program, every-dtype-and-op loop over the staged transport). It starts MPS
#         for its direct part and stops it before compute-sanitizer, as it does anywhere:
#         given a pipe folder of its own, with no daemon in it. ------------------------------------
t=$(cap 200)
if [ "$t" -ge 45 ]; then
  export CUDA_MPS_PIPE_DIRECTORY=$W/mps_pipe_test CUDA_MPS_LOG_DIRECTORY=$W/mps_log_test
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  log "tests/gpu_test.sh PROGRAMS=barrier (at most ${t}s; cut off where time ends)"
  PROGRAMS=barrier RUN_TIMEOUT=60 bounded "$t" bash tests/gpu_test.sh "$B" >"$W/out/gpu_test.log" 2>&1
  note "   exit $? (143 or 137: cut off); $(grep -c '^ok' "$W/out/gpu_test.log") ok, $(grep -c '^FAIL' "$W/out/gpu_test.log") FAIL"
  grep '^FAIL' "$W/out/gpu_test.log" | cut -c1-200 | sed 's/^/   /' | tee -a "$S"
  mps_quit "$CUDA_MPS_PIPE_DIRECTORY"  # a test cut off mid-way leaves its daemon running
fi

# ---- 8. machine.md, the project's report on the sweep's rows, and the summary ------------------
log "machine.md, report and summary"
# The copy figure the report's GPU fit and the summary's bounds are set beside: the largest size's.
# (report --column reads the CSV as the report does: the device's name is quoted and holds commas.)
largest=$(timeout 5 "$B/report" --column bytes,copy_GBps,reduce_GBps,ratio "$W/out/bandwidth.csv" 2>/dev/null | tail -1 |
  awk -F'\t' '{printf "%s bytes: copy %s GB/s, reduction kernel %s GB/s, ratio %s", $1, $2, $3, $4}')
{
  BIN=$B timeout 5 bash bench/machine.sh
  echo "- gpu, as the programs saw it: $(grep -h -m1 '^# GPU:' "$W"/out/mps_registered_P4.txt 2>/dev/null | sed 's/^# GPU: //')"
  echo "- bandwidth (bytes read + written per second), largest size: ${largest:-not measured}"
  echo "- check: bench/gpu_check.sh, BUDGET=$BUDGET s; MPS for the mps_ rows (its own pipe folder), none for the nomps_ rows"
} >"$W/res/fit/machine.md" 2>>"$S"
mapfile -t sweep_csv < <(ls "$W"/res/gpu_direct/cells/allreduce_P*_cuda.csv "$W"/res/.sweep-*/cells/allreduce_P*_cuda.csv 2>/dev/null | grep -v iterations)
if [ ${#sweep_csv[@]} -gt 0 ]; then
  timeout 10 "$B/report" "$W/res/fit" "${sweep_csv[@]}" >/dev/null 2>"$W/out/report.err" || note "report failed: $(head -1 "$W/out/report.err")"
fi
timeout 10 python3 - "$W" "$W/out/summary.md" <<'PY' 2>>"$S" || note "summary failed (see log)"
import csv, glob, os, re, sys
W, dst = sys.argv[1], sys.argv[2]
KiB, MiB = 1024, 1 << 20
def load(path):
    try:
        with open(path, newline='') as f:
            return list(csv.DictReader(f))
    except OSError:
        return []
def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None
def size(b):
    b = int(b)
    return f"{b // MiB} MiB" if b >= MiB else (f"{b // KiB} KiB" if b >= KiB else f"{b} B")
out = []
p = out.append
bw = load(f"{W}/out/bandwidth.csv")
copy = copy64 = None
for r in bw:
    b, c = int(float(r["bytes"])), num(r["copy_GBps"])
    if copy is None or b >= copy[0]:
        copy = (b, c)
    if b == 64 * MiB:
        copy64 = c
gpu = next((r.get("device", "") for r in bw), "GPU not measured")
cp = copy[1] if copy else None
# Every row, with the condition it ran under (the file it came from), and
# each condition's heading lines (how the ranks shared the GPU, who signalled).
rows, heads = [], {}
def heading(cond, path):
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return
    g = re.search(r"^# GPU: .*?(\d+ ranks share a GPU, MPS (?:not )?running|a GPU per rank)", text, re.M)
    s = re.search(r"signals: (host|device)", text)
    heads.setdefault(cond, set()).add(f"{g.group(1) if g else '?'}; signals: {s.group(1) if s else '?'}")
sweep = sorted(set(glob.glob(f"{W}/res/gpu_direct/cells/allreduce_P*_cuda.csv") + glob.glob(f"{W}/res/.sweep-*/cells/allreduce_P*_cuda.csv")))
for f in sweep:
    if "iterations" not in f:
        rows += [dict(r, cond="mps_device") for r in load(f)]
        heading("mps_device", f[:-4] + ".log")
for f in sorted(glob.glob(f"{W}/out/*.csv")):
    tag = os.path.basename(f)[:-4]
    if tag == "bandwidth":
        continue
    cond = re.sub(r"_P\d+$", "", tag)
    rows += [dict(r, cond=cond) for r in load(f)]
    heading(cond, f[:-4] + ".txt")
def get(cond, P, alg, b, impl="hand"):
    for r in rows:
        if r["cond"] == cond and r["P"] == str(P) and r["algorithm"] == alg and r["bytes"] == str(b) and r["impl"] == impl:
            return r
    return None
def t(r):
    return num(r["t_median_us"]) if r else None
def bound(r):
    m = num(r.get("memory_moved_B")) if r else None
    return m / (cp * 1e3) if (m and cp) else None
def fmt(x, d=1):
    return "-" if x is None else f"{x:.{d}f}"
def verdict(ok):
    return "-" if ok is None else ("MET" if ok else "MISSED")
def le(x, limit):
    return None if x is None else x <= limit
def ge(x, limit):
    return None if x is None else x >= limit
p("# commlab GPU check: the direct transport's targets\n")
p(f"{gpu}. Copy bandwidth {fmt(cp, 0)} GB/s at {size(copy[0]) if copy else '-'} (64 MiB: {fmt(copy64, 0)}); "
  f"the memory bound of a row is memory_moved_B / that copy figure. Times are medians (us), "
  f"each call's slowest rank. Conditions: mps_device = bench/gpu_sweep.sh under MPS (device signals, "
  f"private buffers); mps_registered (--registered), mps_host (COMMLAB_DIRECT_SIGNAL=host), mps_staged "
  f"(--transport staged); nomps (MPS off: the default, host signals), nomps_device (device signals forced).\n")
p("Each condition as its programs' headings said it ran:\n")
for cond in sorted(heads):
    p(f"- {cond}: {' | '.join(sorted(heads[cond]))}")
p("")
bad = [r for r in rows if r.get("check") not in ("ok", "off", "", None) or r.get("traffic") == "DIFFERS"]
p(f"Rows: {len(rows)}; every result right (check) and every counted byte its model's (traffic): {'yes' if not bad else 'NO'}")
for r in bad[:10]:
    p(f"- {r['cond']} P={r['P']} {r['algorithm']} {size(r['bytes'])}: check {r['check']}, traffic {r.get('traffic', '')} {r.get('note', '')[:120]}")
p("")
# 1. every hand-written algorithm against the memory bound
p("## 1. Every hand-written algorithm over direct, time / memory bound (<= 1.3 at 16 MiB, <= 1.1 at 64 MiB; P = 4, 2, 8)\n")
for cond in ("mps_device", "mps_registered", "mps_host"):
    for P in (4, 2, 8):
        algs = sorted({r["algorithm"] for r in rows if r["cond"] == cond and r["P"] == str(P) and r["impl"] == "hand" and r["algorithm"] != "auto"})
        if not algs:
            continue
        p(f"### {cond}, P = {P}\n\n| algorithm | 16 MiB us | x bound | 64 MiB us | x bound | memory_GBps/copy at 64 MiB |\n|---|---|---|---|---|---|")
        met = total = 0
        for a in algs:
            r16, r64 = get(cond, P, a, 16 * MiB), get(cond, P, a, 64 * MiB)
            x16 = t(r16) / bound(r16) if r16 and bound(r16) else None
            x64 = t(r64) / bound(r64) if r64 and bound(r64) else None
            g = num(r64.get("memory_GBps")) / cp if r64 and num(r64.get("memory_GBps")) and cp else None
            if x16 is not None and x64 is not None:
                total += 1
                met += x16 <= 1.3 and x64 <= 1.1
            p(f"| {a} | {fmt(t(r16))} | {fmt(x16, 2)} | {fmt(t(r64))} | {fmt(x64, 2)} | {fmt(g, 2)} |")
        p(f"\n{met} of {total} algorithms within both bounds -> {verdict(met == total if total else None)}\n")
# 2. the ring against the staged ring
p("## 2. Ring over direct at 64 MiB, P = 4: >= 30x the staged ring, memory_GBps >= 0.9 of the copy\n")
st = get("mps_staged", 4, "ring", 64 * MiB)
for cond in ("mps_device", "mps_registered", "mps_host"):
    r = get(cond, 4, "ring", 64 * MiB)
    if not r:
        continue
    sp = t(st) / t(r) if st and t(r) else None
    g = num(r.get("memory_GBps")) / cp if num(r.get("memory_GBps")) and cp else None
    p(f"- {cond}: {fmt(t(r))} us; staged ring {fmt(t(st))} us: {fmt(sp)}x -> {verdict(ge(sp, 30))}; "
      f"memory_GBps {fmt(num(r.get('memory_GBps')), 0)} = {fmt(g, 2)} of copy -> {verdict(ge(g, 0.9))}")
p("")
# 3, 4. small messages
p("## 3-4. Small messages at 4 KiB, P = 4 (one_shot <= 12 us registered, <= 16 us private; ring <= 25 us)\n")
p("| condition | one_shot us | ring us | two_shot us | auto us (ran) | MPI_Allreduce us |\n|---|---|---|---|---|---|")
for cond in ("mps_device", "mps_registered", "mps_host", "nomps"):
    P = 4
    o, rg, tw, au = (get(cond, P, a, 4 * KiB) for a in ("one_shot", "ring", "two_shot", "auto"))
    lib = get(cond, P, "MPI_Allreduce", 4 * KiB, impl="mpi")
    if not (o or rg):
        continue
    p(f"| {cond} | {fmt(t(o))} | {fmt(t(rg))} | {fmt(t(tw))} | {fmt(t(au))} ({au['chose'] if au else '-'}) | {fmt(t(lib))} |")
o_reg, o_prv = get("mps_registered", 4, "one_shot", 4 * KiB), get("mps_device", 4, "one_shot", 4 * KiB)
r_prv, r_reg = get("mps_device", 4, "ring", 4 * KiB), get("mps_registered", 4, "ring", 4 * KiB)
p(f"\n- one_shot registered {fmt(t(o_reg))} us <= 12: {verdict(le(t(o_reg), 12))}; "
  f"private {fmt(t(o_prv))} us <= 16: {verdict(le(t(o_prv), 16))}")
p(f"- ring private {fmt(t(r_prv))} us <= 25: {verdict(le(t(r_prv), 25))}; "
  f"registered {fmt(t(r_reg))} us <= 25: {verdict(le(t(r_reg), 25))}\n")
# 5. auto
p("## 5. auto within 10% of the fastest hand-written algorithm at every size (mps_device)\n")
p("| P | size | auto ran | auto us | fastest | its us | auto / fastest |\n|---|---|---|---|---|---|---|")
worst = []
for P in (2, 4, 8):
    for b in sorted({int(r["bytes"]) for r in rows if r["cond"] == "mps_device" and r["P"] == str(P)}):
        hands = [r for r in rows if r["cond"] == "mps_device" and r["P"] == str(P) and r["bytes"] == str(b) and r["impl"] == "hand" and r["algorithm"] != "auto" and t(r)]
        au = get("mps_device", P, "auto", b)
        if not hands or not au or not t(au):
            continue
        best = min(hands, key=t)
        q = t(au) / t(best)
        worst.append(q)
        p(f"| {P} | {size(b)} | {au['chose']} | {fmt(t(au))} | {best['algorithm']} | {fmt(t(best))} | {q:.2f}{' **' if q > 1.1 else ''} |")
if worst:
    p(f"\n{sum(q <= 1.1 for q in worst)} of {len(worst)} cells within 10% -> {verdict(all(q <= 1.1 for q in worst))}\n")
# 6. the time model
p("## 6. The GPU time model within 15% at 1 MiB and more (mps_device)\n")
# The project's own verdict first: report.md's "Do the formulas hold?" table
# (column "model within 15%, N >= 1 MiB": **yes** (k of n), no, or cannot tell).
try:
    rep = open(f"{W}/res/fit/report.md").read()
    sec = rep.split("## Do the formulas hold?", 1)[1].split("\n## ", 1)[0]
    fits = [l for l in sec.splitlines() if l.startswith("- **")]
    verdicts = [l for l in sec.splitlines() if re.match(r"\| [a-z_]+.* \| (\*\*yes\*\*|no|cannot tell) \(\d+ of \d+\) \|", l)]
    yes = sum("**yes**" in l for l in verdicts)
    p("report.md's fit (t = a step's cost x steps + memory_moved_B / the memory's bandwidth, every rank's bytes):\n")
    for l in fits:
        p(l)
    p(f"\n{yes} of {len(verdicts)} rows of its verdict table within 15% at every row of 1 MiB and more -> "
      f"{verdict(yes == len(verdicts) if verdicts else None)}\n")
except (OSError, IndexError):
    p("report.md has no \"Do the formulas hold?\" section (no sweep rows, or the report failed: out/report.err).\n")
big = [r for r in rows if r["cond"] == "mps_device" and r["impl"] == "hand" and r["algorithm"] != "auto" and int(r["bytes"]) >= MiB and t(r)
       and num(r.get("model_steps")) is not None and num(r.get("memory_moved_B"))]
miss = {}
for r in big:
    m = num(r.get("t_model_us"))
    if m:
        miss.setdefault(r["algorithm"], []).append(m / t(r) - 1)
if miss:
    p("The probe's model (t_model_us, what auto chose by): worst miss per algorithm, (model - measured) / measured:\n")
    p(", ".join(f"{a} {max(v, key=abs):+.0%}" for a, v in sorted(miss.items())) + "\n")
# The same two-term model fitted here by plain least squares (no intercept), as a cross-check.
X = [(num(r["model_steps"]), num(r["memory_moved_B"]), t(r)) for r in big]
if len(X) >= 3:
    s11 = sum(x * x for x, _, _ in X); s12 = sum(x * y for x, y, _ in X); s22 = sum(y * y for _, y, _ in X)
    b1 = sum(x * z for x, _, z in X); b2 = sum(y * z for _, y, z in X)
    det = s11 * s22 - s12 * s12
    if det:
        a_, c_ = (b1 * s22 - b2 * s12) / det, (s11 * b2 - s12 * b1) / det
        fit = {}
        for r in big:
            pred = a_ * num(r["model_steps"]) + c_ * num(r["memory_moved_B"])
            fit.setdefault(r["algorithm"], []).append(pred / t(r) - 1)
        within = sum(all(abs(e) <= 0.15 for e in v) for v in fit.values())
        p(f"Cross-check, least squares here over every row of 1 MiB and more: step {a_:.2f} us, "
          f"bandwidth {1e-3 / c_ if c_ > 0 else float('nan'):.0f} GB/s (copy {fmt(cp, 0)}); worst miss per algorithm:\n")
        p(", ".join(f"{a} {max(v, key=abs):+.0%}" for a, v in sorted(fit.items())))
        p(f"\n{within} of {len(fit)} algorithms within 15% at every such row.\n")
# launches and host waits, against what tests/gpu_test.sh holds registered rows to
p("## What a call asked of the GPU (gpu_launches / gpu_host_waits, the busiest rank)\n")
p("tests/gpu_test.sh holds rows to: with device signals one launch (the call's device program) and one "
  "host wait; with host signals launches <= messages (msgs_total) + 4 and at most 2 x steps + 1 host waits "
  "(private buffers add their copies in and out).\n")
p("| condition | P | algorithm | 4 KiB launches/waits | 64 MiB launches/waits | msgs_total, steps (64 MiB) |\n|---|---|---|---|---|---|")
for cond in ("mps_device", "mps_registered", "mps_host", "nomps"):
    for P in (4, 8):
        for a in ("ring", "one_shot", "two_shot", "rabenseifner"):
            r4, r64 = get(cond, P, a, 4 * KiB), get(cond, P, a, 64 * MiB)
            if r4 or r64:
                c = lambda r: f"{r.get('gpu_launches') or '-'}/{r.get('gpu_host_waits') or '-'}" if r else "-"
                ms = f"{r64.get('msgs_total') or '-'}, {r64.get('steps') or '-'}" if r64 else "-"
                p(f"| {cond} | {P} | {a} | {c(r4)} | {c(r64)} | {ms} |")
p("")
# host against device signals
p("## Host against device signals, P = 4, MPS (median us; host / device)\n")
p("| algorithm | 4 KiB | 1 MiB | 16 MiB | 64 MiB |\n|---|---|---|---|---|")
for a in ("ring", "rabenseifner", "recursive_doubling", "one_shot", "two_shot", "auto"):
    cells = []
    for b in (4 * KiB, MiB, 16 * MiB, 64 * MiB):
        d, h = t(get("mps_device", 4, a, b)), t(get("mps_host", 4, a, b))
        cells.append(f"{fmt(h)} / {fmt(d)}" + (f" ({h / d:.2f})" if h and d else ""))
    p(f"| {a} | " + " | ".join(cells) + " |")
p("")
# without MPS
p("## Without MPS (median us)\n")
for cond in ("nomps", "nomps_device"):
    for r in rows:
        if r["cond"] == cond and r["impl"] in ("hand", "mpi"):
            p(f"- {cond} P={r['P']} {r['algorithm']} {size(r['bytes'])}: {fmt(t(r))} us, launches/waits {r.get('gpu_launches') or '-'}/{r.get('gpu_host_waits') or '-'}, check {r.get('check')}")
p("")
# the clocks, MPS, warnings and stops, from the log
try:
    log = open(f"{W}/out/log.txt").read()
    p("## From the log\n")
    for line in log.splitlines():
        if re.search(r"globaltimer|signals:|MPS|warning|WARNING|STOPPED|cut off|exit [1-9]|FAIL", line):
            p("    " + line[:200])
except OSError:
    pass
open(dst, "w").write("\n".join(out) + "\n")
print("\n".join(out[:60]))
PY
log "done"
pack
