#!/bin/bash
# Stops the cluster cluster_up.sh started: its jobs, then the daemons named by
# its own PID files (nothing else), then the emulated network. Safe to run again.
source "$(dirname "$0")/../bench/args.sh" && script_args "$0" "$@"
PREFIX=${PREFIX:-/tmp/commlab-cluster}
export SLURM_CONF=$PREFIX/etc/slurm.conf
if [ -f "$SLURM_CONF" ] && [ -s "$PREFIX/run/slurmctld.pid" ]; then
  jobs=$(timeout 10 squeue -h -o %A 2>/dev/null || true)
  [ -z "$jobs" ] || { timeout 10 scancel $jobs; sleep 1; }
fi
pids=()
for f in "$PREFIX"/run/slurmd-*.pid "$PREFIX/run/slurmctld.pid" "$PREFIX/run/munged.pid"; do
  [ -s "$f" ] || continue
  pid=$(cat "$f")
  rm -f "$f"
  kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" && pids+=("$pid")
done
for pid in "${pids[@]}"; do
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
done
nodes=1 tag=
[ -f "$PREFIX/nodes" ] && read -r nodes tag _ <"$PREFIX/nodes"
if [ "${nodes:-1}" -gt 1 ]; then
  for i in $(seq 0 $((nodes - 1))); do
    ip link del "${tag}v$i" 2>/dev/null
    ip netns del "${tag}node$i" 2>/dev/null
  done
  ip link del "${tag}br0" 2>/dev/null
fi
rm -f "$PREFIX/nodes"
echo "cluster down (${#pids[@]} daemon(s) stopped)"
exit 0
