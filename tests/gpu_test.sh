#!/bin/bash
# -d cuda, on a machine with a GPU (BIN = build/bin) or on the emulated one
# (BIN = build/emulated, tests/support/emulated_gpu.cpp): every program on GPU
# buffers at 1, 2 and 3 ranks (several share a GPU), over awkward counts and
# one that crosses the staged transport's 4 MiB pieces, every dtype and op,
# in and out of place; NCCL rows where each rank has a GPU and the reason
# where not; the transport refused with one line when forced onto an MPI
# that cannot do it; the direct transport with the ranks sharing a GPU and,
# on a node of several, with a GPU each, every dtype and op of its reading
# kernels, and its refusal where GPUs cannot read each other (emulated:
# COMMLAB_EMULATED_PEER_FAULT); and, on a real GPU, compute-sanitizer
# memcheck over each program's GPU path, and memcheck, racecheck and
# synccheck over direct access, when it is on PATH. Exits 77 (ctest:
# skipped) without a GPU or a CUDA build; a GPU the build cannot run on fails.
. "$(dirname "$0")/support/check_lib.sh"
BIN=${1:-build/bin}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
# The report reads the CSVs: built into build/bin, beside the emulated programs' folder.
REPORT=$BIN/report
[ -x "$REPORT" ] || REPORT=$(dirname "$BIN")/bin/report
if [ ! -x "$BIN/gpu_bandwidth" ]; then echo "skipped: built without CUDA"; exit 77; fi
# Every operation, as the build lists them (allreduce runs all its algorithms).
PROGRAMS=${PROGRAMS:-$(cat "$BIN/programs.txt")}
# Skipped only where there is no GPU to use; any other failure of the probe
# (a kernel built for another GPU: "no kernel image is available") fails.
if ! "$BIN/gpu_bandwidth" -m 1M -i 1 >"$TMP/probe" 2>&1; then
  if grep -qE 'no usable GPU|no GPU on this machine|has no CUDA' "$TMP/probe"; then
    echo "skipped: $(tail -1 "$TMP/probe")"
    exit 77
  fi
  echo "FAIL gpu_bandwidth on this GPU:"; sed 's/^/     | /' "$TMP/probe"
  exit 1
fi
if grep -q "^# emulated GPU" "$TMP/probe"; then
  emulated=1 gpus=1
else
  emulated=0 gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
fi
echo "# $(head -1 "$TMP/probe" | sed 's/^# //'), $gpus GPU(s)"

fail() { fails=$((fails + 1)); echo "FAIL $1"; grep -h -m5 -E 'FAIL|error|ERROR' "$TMP/out" "$TMP/err" | sed 's/^/     | /'; }
# ran_right NP PROGRAM FLAGS...: ran, and every row right; its rows added to $rows.
ran_right() {
  run "$@" && ! grep -q FAIL "$TMP/out" && rows=$((rows + $(grep -cE ' (ok|off) *$' "$TMP/out")))
}
# Where the program reduces, the count that crosses the pieces runs with one
# op: where a piece ends does not depend on the op, which the smaller counts
# run in full (the op does nothing elsewhere). The large count runs at one
# dtype of each element size that crosses a piece there (4 and 8 bytes:
# 1500007 two-byte elements fit one piece); where nothing is reduced, the
# dtype is only its size (2, 4 and 8 bytes).
for prog in $PROGRAMS; do
  for variant in P1_out P2_out P2_in P3_out P3_in; do
    P=${variant:1:1} place=${variant#*_}
    flags=(-d cuda -i 1 -x 0 -r $((P - 1)))
    counts="0,1,$((P + 1)),100003" large=1500007
    if [ "$place" = in ]; then
      case $prog in sendrecv | barrier) continue ;; esac
      flags+=(--in-place)
      # In-place all-to-all needs counts divisible by P.
      [ "$prog" = alltoall ] && counts="0,$P,$((3 * P))" large=$((500002 * P))
    fi
    rows=0
    # The large count at P = 2 alone, in and out of place (CI's budget): at
    # P = 1 nothing travels, and P = 3's chunks no longer cross a piece
    # (docs/building-and-testing.md, "CI's budget").
    [ "$P" = 2 ] || large=""
    case $prog in
      allreduce | reduce | reduce_scatter)
        split=("-n $counts -T all -o all")
        [ -n "$large" ] && split+=("-n $large -T float32,float64 -o sum") ;;
      *) split=("-n $counts${large:+,$large} -T float16,float32,float64") ;;
    esac
    # shellcheck disable=SC2086
    if ran_right "$P" "$BIN/$prog" "${flags[@]}" ${split[0]} \
       && { [ ${#split[@]} = 1 ] || ran_right "$P" "$BIN/$prog" "${flags[@]}" ${split[1]}; }; then
      ok "$prog $variant: $rows rows ok, transport $(grep -o 'transport [a-z-]*' "$TMP/out" | head -1 | cut -d' ' -f2)"
    else
      fail "$prog $variant (exit $?)"
    fi
  done
done

# NCCL: rows at one rank per GPU, the reason when ranks share one (the
# emulated GPU is built without NCCL: the reason, and no row).
run 1 "$BIN/allreduce_ring" -d cuda -n 1000 -i 1 -x 0
if [ $emulated = 1 ]; then
  if grep -q "no NCCL rows: not built" "$TMP/out" && ! grep -q ncclAllReduce "$TMP/out"; then
    ok "no NCCL rows in a build without NCCL, with the reason"
  else
    fail "NCCL in a build without it"
  fi
elif grep -q "ncclAllReduce .* ok" "$TMP/out"; then ok "NCCL row at one rank"; else fail "no NCCL row at one rank"; fi
if [ $emulated = 0 ] && [ "$gpus" -lt 2 ]; then
  run 2 "$BIN/allreduce_ring" -d cuda -n 1000 -i 1 -x 0
  if grep -q "no NCCL rows: 2 ranks share 1 GPU" "$TMP/out" && ! grep -q ncclAllReduce "$TMP/out"; then
    ok "NCCL skipped with its reason when 2 ranks share a GPU"
  else
    fail "NCCL at 2 ranks on one GPU"
  fi
fi
# A transport the MPI cannot do: one line, exit 2, on every rank.
if run 2 "$BIN/allreduce_ring" -d cuda --transport cuda-aware -n 10; then
  grep -q "transport cuda-aware" "$TMP/out" && ok "--transport cuda-aware on a CUDA-aware MPI" || fail "--transport cuda-aware"
else
  refused $? "--transport cuda-aware" "not CUDA-aware"
fi

# The direct transport on GPU buffers (docs/direct.md): every rank maps the
# others' regions by CUDA IPC (the emulated GPU: a memfd opened through
# /proc), at P = 1, 3 and 4; every hand-written algorithm's result right and
# its reads from peers its model's. First with the ranks sharing one GPU
# (CUDA_VISIBLE_DEVICES=0: no peer access needed), then, on a node of
# several GPUs, with a GPU each, reading over peer access, or refused in one
# line where the GPUs cannot read each other.
direct_runs() {  # WHAT
  for P in 1 3 4; do
    extra=(); [ "$P" = 4 ] && extra=(--in-place); [ "$P" = 3 ] && extra=(--registered)
    run "$P" "$BIN/allreduce" -d cuda --transport direct -n 1,$((P + 1)),100003 -T float32,int64,float16 \
      -o sum,max -i 1 -x 0 "${extra[@]}"; rc=$?
    # A refusal is right only where the driver says some pair of GPUs has no
    # peer reads (nvidia-smi's NS, "not supported"); elsewhere it is a bug.
    if [ $rc = 2 ] && [ "$1" = "a GPU each" ] && grep -q "peer access between these GPUs does not work\|cannot map" "$TMP/err" \
       && nvidia-smi topo -p2p r 2>/dev/null | grep -qw 'NS\|CNS\|TNS'; then
      refused $rc "allreduce over direct access, $1, P=$P" "--transport direct"
    elif [ $rc = 0 ] && ! grep -q FAIL "$TMP/out" && grep -q "^# transport direct" "$TMP/out" \
       && grep -q "two_shot .* ok" "$TMP/out"; then
      ok "allreduce over direct access, $1, P=$P ${extra[*]}: $(grep -cE ' ok *$' "$TMP/out") rows ok"
    else
      fail "allreduce direct, $1, P=$P (exit $rc)"
    fi
  done
}
# Ranks sharing a GPU run the direct part under MPS where it can be started
# (a real GPU, the daemon not running, nvidia-cuda-mps-control on PATH);
# stopped again after it, and only what this script started.
mps_started=0
if [ $emulated = 0 ] && [ ! -p "${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}/control" ] \
   && command -v nvidia-cuda-mps-control >/dev/null && nvidia-cuda-mps-control -d; then
  mps_started=1
  echo "# MPS control daemon started for the direct part"
fi
CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} direct_runs "sharing one GPU"
[ "$gpus" -gt 1 ] && direct_runs "a GPU each"
# Every dtype and op the reading kernels take, at P = 4 on one GPU.
if CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} run 4 "$BIN/allreduce" -d cuda --transport direct \
     -a one_shot,two_shot,ring -n 1,5,100003 -T all -o all -i 1 -x 0 && ! grep -q FAIL "$TMP/out"; then
  ok "one_shot, two_shot and the ring over direct access, every dtype and op: $(grep -cE ' ok *$' "$TMP/out") rows ok"
else
  fail "every dtype and op over direct access"
fi
# What a call asks of the GPU over direct access (the rows' gpu_launches and
# gpu_host_waits, the busiest rank's), at 6 MB, where a message cut in
# pieces would take dozens. With the device's signals (the default where
# ranks' kernels run at once: MPS, a GPU each, the emulated GPU) a call is
# one device program (core/device/program.hpp): one launch and one host wait.
# With the host's (COMMLAB_DIRECT_SIGNAL=host) each message is one launch
# (no more launches than messages and a few: the input's copy, one_shot's
# fences) and the host waits at most twice a step.
for signals in device host; do
  for P in 2 4; do
    rm -f "$TMP/costs.csv"
    if COMMLAB_DIRECT_SIGNAL=$signals CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} run "$P" \
         "$BIN/allreduce" -d cuda --transport direct --registered -n 1500007 -i 1 -x 0 --csv "$TMP/costs.csv" \
       && grep -q "signals: $signals" "$TMP/out"; then
      bad=$("$REPORT" --column impl,algorithm,steps,gpu_launches,gpu_host_waits,msgs_total "$TMP/costs.csv" |
        awk -F'\t' -v s="$signals" '$1 == "hand" {
          ++n
          ok = s == "device" ? $4 == 1 && $5 == 1 : $4 != "" && $4 <= $6 + 4 && $5 <= 2 * $3 + 1
          if (!ok) printf "%s: %s launches, %s waits in %s steps; ", $2, $4, $5, $3 }
          END { if (n < 11) printf "%d hand-written rows, not 11", n }')
      [ -z "$bad" ] && ok "direct, $signals signals, P=$P: $([ $signals = device ] && echo "one launch and one host wait a call" || echo "a launch per message, host waits as they should be")" \
        || fail "direct, $signals signals, P=$P: $bad"
    else
      fail "direct, $signals signals, P=$P (exit $?)"
    fi
  done
done
# Every operation over direct access with the device's signals: right, and
# each hand-written algorithm's call one launch and one host wait; at P = 3
# on private buffers (copied in and out inside the same program), root 1,
# and at P = 8 on registered ones.
for case in "3 -r 1" "8 --registered"; do
  P=${case%% *} flags=(${case#* })
  rm -f "$TMP/ops.csv"
  for prog in $PROGRAMS; do
    [ "$prog" = barrier ] && continue  # no buffers: its check times the ranks, not the stream
    CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} run "$P" "$BIN/$prog" -d cuda --transport direct \
      "${flags[@]}" -n 1,100003 -i 1 -x 0 --csv "$TMP/ops.csv" && ! grep -q FAIL "$TMP/out" \
      || fail "$prog over direct access on the GPU, P=$P ${flags[*]}"
  done
  summary=$("$REPORT" --column program,impl,gpu_launches,gpu_host_waits "$TMP/ops.csv" |
    awk -F'\t' '$2 == "hand" { ++n; if ($3 != 1 || $4 != 1) bad = bad $1 ": " $3 "/" $4 "; " }
      END { print n + 0, bad }')
  [ "${summary#* }" = "" ] && [ "${summary%% *}" -ge 60 ] \
    && ok "every operation over direct, P=$P ${flags[*]}: ${summary%% *} hand-written rows, one launch and one host wait each" \
    || fail "every operation over direct, P=$P ${flags[*]}: ${summary%% *} rows; launches/waits: ${summary#* }"
done
[ $mps_started = 1 ] && echo quit | nvidia-cuda-mps-control
# GPUs that cannot read each other (emulated: COMMLAB_EMULATED_PEER_FAULT):
# one line naming the rank and both GPUs, exit 2 on every rank.
if [ $emulated = 1 ]; then
  COMMLAB_EMULATED_PEER_FAULT=open:1 run 3 "$BIN/allreduce" -d cuda --transport direct -n 100 -i 1 -x 0
  refused $? "a GPU that cannot map its peers' memory" "^error: rank 1: --transport direct: GPU emulated: emulated GPU: no peer access"
  COMMLAB_EMULATED_PEER_FAULT=read:2 run 3 "$BIN/allreduce" -d cuda --transport direct -n 100 -i 1 -x 0
  refused $? "a GPU that reads wrong bytes from its peers" \
    "^error: rank 2: --transport direct: reading rank 0's memory (GPU emulated) from GPU emulated by a copy gave wrong bytes"
  # A device program that fails on one rank (as a kernel whose wait timed
  # out: it raises the ranks' shared failed word): that rank says why in one
  # line, and every rank stops at once (not after its own 60 s deadline:
  # those that see the word first say "another rank failed first"), with
  # no hang and no crash.
  start=$SECONDS
  COMMLAB_EMULATED_PEER_FAULT=fail:1 run 3 "$BIN/allreduce" -d cuda --transport direct -a ring -n 100 -i 1 -x 0
  rc=$?
  if [ $rc != 0 ] && [ $((SECONDS - start)) -lt 30 ] && ! grep -q "terminate called" "$TMP/err" \
     && grep -q "^error: rank 1: a failure injected into its device program" "$TMP/out" "$TMP/err"; then
    ok "a device program that fails on rank 1: it says why, every rank stops (exit $rc, $((SECONDS - start)) s)"
  else
    fail "a device program that fails on one rank (exit $rc, $((SECONDS - start)) s)"
  fi
fi

# More than the GPU holds: one line, exit 2, before anything is allocated.
gpu_mib=1024  # the emulated GPU's
[ $emulated = 0 ] && gpu_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | sort -n | head -1)
run 1 "$BIN/allreduce_ring" -d cuda -m $((gpu_mib / 4))M -i 1 -x 0
refused $? "buffers larger than the GPU" "of GPU memory"

# compute-sanitizer: no invalid access, leak-free allocation API use, at 2 ranks (staged).
if [ $emulated = 1 ]; then
  :  # the emulated GPU is its own memory checker: device memory the host cannot touch
elif command -v compute-sanitizer >/dev/null; then
  for prog in $PROGRAMS; do
    if timeout "$RUN_TIMEOUT" mpirun -q --oversubscribe -np 2 compute-sanitizer --tool memcheck \
      --error-exitcode 9 "$BIN/$prog" -d cuda -n 1,100003,1500007 -T float32,int64,float16 -i 1 -x 0 \
      >"$TMP/out" 2>"$TMP/err" && grep -q "ERROR SUMMARY: 0 errors" "$TMP/out" "$TMP/err"; then
      ok "memcheck $prog: $(grep -h -m1 -o 'ERROR SUMMARY: [0-9]* errors' "$TMP/out" "$TMP/err")"
    else
      fail "memcheck $prog"
    fi
  done
  # The kernels that read peers' memory: memcheck, racecheck, synccheck over
  # direct access, with the host signalling (the sanitizer's own serialising
  # of kernels would hold up kernels that wait for each other), and memcheck
  # once with the device's signal kernels. The exit status decides
  # (--error-exitcode); each tool's summary line is quoted: memcheck and
  # synccheck print "ERROR SUMMARY: 0 errors", racecheck "RACECHECK SUMMARY:
  # 0 hazards displayed (0 errors, 0 warnings)".
  summary='(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors)'
  for case in "memcheck host" "racecheck host" "synccheck host" "memcheck device"; do
    set -- $case
    if COMMLAB_DIRECT_SIGNAL=$2 timeout "$RUN_TIMEOUT" mpirun -q --oversubscribe -np 2 \
      compute-sanitizer --tool "$1" --error-exitcode 9 "$BIN/allreduce" -d cuda --transport direct \
      -a one_shot,two_shot,ring,recursive_doubling -n 1,100003,1500007 -T float32,float16 -i 1 \
      -x 0 >"$TMP/out" 2>"$TMP/err" && grep -Eq "$summary" "$TMP/out" "$TMP/err"; then
      ok "$1, direct access, $2 signals: $(grep -Eho "$summary" "$TMP/out" "$TMP/err" | head -1)"
    else
      fail "$1, direct access, $2 signals"
    fi
  done
else
  echo "note: compute-sanitizer is not on PATH; memcheck not run"
fi
finish
