#!/bin/bash
# What each link of the emulated ring did while a command ran: every ring
# link's bytes sent, read from its counters in its namespace every INTERVAL
# seconds, printed as MB/s a link (a dot: under 0.5 MB/s), one line a sample,
# quiet samples left out. The rows count what each link carried in all;
# this shows when, e.g. whether a step's flows shared their links evenly.
#
#   source /tmp/commlab-cluster/env.sh
#   INTERVAL=0.3 bash slurm/link_timeline.sh srun --ntasks 8 build/bin/allreduce -a ring -m 16M -i 1
#
# The command's own output goes to stderr; the timeline to stdout.
source "$(dirname "$0")/../bench/args.sh" && answer_help "$0" "$@"
set -uo pipefail
PREFIX=${PREFIX:-/tmp/commlab-cluster}
INTERVAL=${INTERVAL:-0.3}
die() { echo "error: $*" >&2; exit 2; }
[ $# -gt 0 ] || die "usage: link_timeline.sh COMMAND [ARGS...] (on a ring brought up by cluster_up.sh TOPOLOGY=ring)"
[[ $1 != -* ]] || die "link_timeline.sh takes a command to run, not the option '$1' (link_timeline.sh --help)"
[[ $INTERVAL =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v s="$INTERVAL" 'BEGIN { exit !(s > 0) }' \
  || die "INTERVAL must be seconds above 0, like 0.3, not '$INTERVAL'"
read -r nodes tag topology 2>/dev/null <"$PREFIX/nodes" || die "no cluster is up in $PREFIX (slurm/cluster_up.sh)"
[ "$topology" = ring ] || die "the cluster in $PREFIX is a $topology, not a ring (TOPOLOGY=ring slurm/cluster_up.sh)"
for i in $(seq 0 $((nodes - 1))); do
  nsenter --net="/run/netns/${tag}node$i" true 2>/dev/null \
    || die "cannot read node $i's links (${tag}node$i): the links' counters need root"
done

# Every link's bytes sent so far, each node's with the time it was read
# (reading the nodes one after another takes a while): t r0 l0 t r1 l1 ...
# mawk's printf %d stops at 2^31, so %.0f.
sample() {
  for i in $(seq 0 $((nodes - 1))); do
    nsenter --net="/run/netns/${tag}node$i" awk -v r="${tag}r$i:" -v l="${tag}l$i:" -v t="$(date +%s.%N)" \
      '$1 == r { a = $10 } $1 == l { b = $10 } END { printf "%s %.0f %.0f ", t, a, b }' /proc/net/dev
  done
  echo
}

samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
sample >"$samples"
"$@" >&2 &
cmd=$!
trap 'kill "$cmd" 2>/dev/null; rm -f "$samples"; exit 130' INT TERM
while kill -0 "$cmd" 2>/dev/null; do
  sleep "$INTERVAL"
  sample >>"$samples"
done
wait "$cmd"
rc=$?
sample >>"$samples"
awk -v n="$nodes" '
  NR == 1 {
    t0 = $1
    print "# MB/s sent on each ring link: r<i> from node i to i+1, l<i> from node i to i-1"
    head = sprintf("%8s |", "t_s"); for (i = 0; i < n; i++) head = head sprintf(" %6s", "r" i)
    head = head " |"; for (i = 0; i < n; i++) head = head sprintf(" %6s", "l" i)
    print head " |"
  }
  NR > 1 {
    line = sprintf("%8.2f |", last[1] - t0); busy = 0
    for (side = 0; side < 2; side++) {
      for (i = 0; i < n; i++) {
        k = 3 * i + 2 + side; dt = $(3 * i + 1) - last[3 * i + 1]
        MBps = dt > 0 ? ($k - last[k]) / dt / 1e6 : 0
        line = line (MBps >= 0.5 ? sprintf(" %6.1f", MBps) : "      .")
        if (MBps >= 0.5) busy = 1
      }
      line = line " |"
    }
    if (busy) print line
  }
  { for (k = 1; k <= NF; k++) last[k] = $k }
' "$samples"
exit $rc
