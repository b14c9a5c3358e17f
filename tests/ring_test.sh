#!/bin/bash
# The emulated ring of nodes (TOPOLOGY=ring slurm/cluster_up.sh) at 4 nodes:
# its routes go the shorter way round (half way: to higher numbers), every
# all-reduce algorithm that crosses nodes runs on it with the rows' link
# columns (counted from the messages sent) equal to the model's, and the
# links' own byte counters agree with the model's hop-bytes, TCP/IP's headers
# and acknowledgements aside, as the rows' own reading of them says. The ring sweep itself is a benchmark (make
# ring-bench). Skips (exit 77) where the machine forbids it, as slurm_test.
set -u
SRC=$1 BIN=$2
export PREFIX=/tmp/commlab-ring-test TAG=cmq SUBNET=10.75.0 RING_SUBNET=10.74.0 PORT=6937
SHOW="out up.log"
# shellcheck source=support/cluster_prelude.sh
source "$SRC/tests/support/cluster_prelude.sh"
N=4
if ! NODES=$N NCPUS=1 RATE=100mbit TOPOLOGY=ring bash "$SRC/slurm/cluster_up.sh" >"$TMP/up.log" 2>&1; then
  grep -q "apt-get\|Unable to locate\|Could not resolve" "$TMP/up.log" && skip "cannot install Slurm: $(tail -1 "$TMP/up.log")"
  fail "cluster_up TOPOLOGY=ring"; exit 1
fi
# shellcheck disable=SC1091
source "$PREFIX/env.sh"

# Routes: from node i to node k through the right-hand link (k - i mod N <=
# N/2) or the left-hand one, and one address each.
bad=
for i in $(seq 0 $((N - 1))); do
  for k in $(seq 0 $((N - 1))); do
    [ "$i" = "$k" ] && continue
    up=$(((k - i + N) % N)) want=${TAG}r$i
    [ $((2 * up)) -le $N ] || want=${TAG}l$i
    got=$(ip -n ${TAG}node$i route get "$RING_SUBNET.$((k + 1))" | grep -o "dev [a-z0-9]*" | cut -d' ' -f2)
    [ "$got" = "$want" ] || bad+=" $i->$k:$got(want $want)"
  done
done
[ -z "$bad" ] && ok "routes on the ring of $N: the shorter way, half way round to higher numbers" || { fail "routes:$bad"; }
grep -q "COMMLAB_TOPOLOGY=ring:$N" "$PREFIX/env.sh" && [ "$(wc -w <"$PREFIX/node_order")" = $N ] \
  && ok "env.sh names the network (ring:$N) and the nodes' order" || fail "env.sh: $(cat "$PREFIX/env.sh")"

# The shaping (slurm/ring_shape.sh): node 0's link to node 1 keeps a queue
# for each pair whose route crosses it, 0->1, 0->2 (half way: to higher
# numbers) and 3->1, and no other: classes 1:(16 + 4 s + d), in hex.
pairs=$(tc -n ${TAG}node0 class show dev ${TAG}r0 | grep -o "class htb 1:[0-9a-f]*" | cut -d' ' -f3 | sort | tr '\n' ' ')
[ "$pairs" = "1:1 1:11 1:12 1:1d 1:2 1:3 " ] \
  && ok "node 0's link to node 1: a queue for each pair of nodes routed over it (0->1, 0->2, 3->1)" \
  || fail "the classes on ${TAG}r0: $pairs"

# One small all-reduce of every algorithm that crosses nodes, P = N, one rank
# a node: every row checks out, and its link columns equal the model's.
run() { timeout 300 srun -n $N -N $N --distribution=cyclic "$@" >"$TMP/out" 2>&1; }
again() { run "$@" || { tcp_race "$TMP/out" && run "$@"; }; }
again "$BIN/allreduce" -m 64K:64K -i 2 -x 1 -a all --csv "$TMP/rows.csv" && rc=0 || rc=$?
rows=$("$BIN/report" --column impl,algorithm,network,link_critical_B,model_link_critical_B,hop_B,model_hop_B,check "$TMP/rows.csv")
hand=$(awk -F'\t' '$1 == "hand"' <<<"$rows")
if [ $rc = 0 ] && [ "$(wc -l <<<"$hand")" -ge 8 ] \
   && awk -F'\t' '{ if ($3 != "ring:'$N'" || $4 == "" || $4 != $5 || $6 != $7 || $8 != "ok") bad = 1 } END { exit bad }' <<<"$hand"; then
  ok "every all-reduce algorithm on the ring: checked ok, busiest link and hop-bytes counted = model ($(wc -l <<<"$hand") rows)"
else fail "all-reduce on the ring (exit $rc)"; echo "$rows"; fi

# The links' own counters: the bytes every ring link sent during 10 more
# calls of swing_bandwidth and of MPI_Allreduce beside it at 1 MiB (a run of
# 11 less a run of 1, so the probe and the checks cancel), against 10 x the
# rows' hop-bytes (swing_bandwidth's, equal to its model's; the library's,
# counted by Open MPI's monitoring). TCP/IP's headers and acknowledgements
# come on top: over, never under.
sent() {
  local total=0
  for i in $(seq 0 $((N - 1))); do
    # ip netns exec mounts the namespace's own /sys, where its links are
    for d in r l; do total=$((total + $(ip netns exec ${TAG}node$i cat /sys/class/net/${TAG}$d$i/statistics/tx_bytes))); done
  done
  echo $total
}
links_during() {  # iterations: the ring's bytes during one run of that many
  local before after
  before=$(sent)
  rm -f "$TMP/counters.csv"
  again "$BIN/allreduce" -m 1M:1M -i "$1" -x 0 -a swing_bandwidth --csv "$TMP/counters.csv" || return 1
  after=$(sent)
  echo $((after - before))
}
one=$(links_during 1) && eleven=$(links_during 11) && rc=0 || rc=1
rows_hop_B=$("$BIN/report" --column hop_B "$TMP/counters.csv" | awk '$1 > 0 { n++; s += $1 } END { if (n == 2) print s }')
if [ $rc = 0 ] && [ -n "$rows_hop_B" ]; then
  ratio=$(awk -v m="$rows_hop_B" -v a="$one" -v b="$eleven" 'BEGIN { printf "%.3f", (b - a) / (10 * m) }')
  echo "# the ring's links sent $((eleven - one)) B in 10 calls of each row; the rows' hop-bytes x 10: $((10 * rows_hop_B)) B; ratio $ratio"
  awk -v r="$ratio" 'BEGIN { exit !(r >= 1.0 && r <= 1.1) }' \
    && ok "the links' own counters: $ratio x the rows' hop-bytes (headers and acknowledgements on top)" \
    || fail "the links' counters: $ratio x the rows' hop-bytes"
else fail "the links' counters (exit $rc)"; fi
# The rows read the same counters themselves (links_sent_B, a call of the
# timed loop, by each node's first rank): the last run's two rows, summed,
# against what the links sent in its 10 extra calls of each, read from outside.
rows_links_B=$("$BIN/report" --column links_sent_B "$TMP/counters.csv" | awk '$1 > 0 { n++; s += $1 } END { if (n == 2) print s }')
if [ $rc = 0 ] && [ -n "$rows_links_B" ]; then
  ratio=$(awk -v m="$rows_links_B" -v a="$one" -v b="$eleven" 'BEGIN { printf "%.3f", m * 10 / (b - a) }')
  awk -v r="$ratio" 'BEGIN { exit !(r >= 0.95 && r <= 1.05) }' \
    && ok "the rows' links_sent_B: $ratio x what the links' counters said from outside" \
    || fail "the rows' links_sent_B: $ratio x the links' counters from outside"
else fail "the rows' links_sent_B (exit $rc; $("$BIN/report" --column algorithm,links_sent_B "$TMP/counters.csv" 2>&1 | xargs))"; fi

# The links' timeline (slurm/link_timeline.sh) around a run on nodes 0 and 1:
# what moved, moved on 0's link to 1 and 1's link to 0 (r0 and l1), and
# nowhere else.
if INTERVAL=0.2 bash "$SRC/slurm/link_timeline.sh" timeout 300 srun -n 2 -N 2 "$BIN/allreduce" -a ring -m 1M:1M -i 1 -x 0 \
     >"$TMP/timeline" 2>"$TMP/out" \
   && grep -q "^ *t_s | *r0 *r1 *r2 *r3 | *l0 *l1 *l2 *l3 |" "$TMP/timeline" \
   && awk '$1 ~ /^[0-9.]+$/ && $2 == "|" { n++; if ($3 != ".") moved = 1; if ($4 $5 $6 $8 $10 $11 != "......") bad = 1 }
           END { exit !(n > 0 && moved && !bad) }' "$TMP/timeline"; then
  ok "link_timeline: a run on nodes 0 and 1 moved bytes on r0 and l1 only ($(grep -c '^ *[0-9.]* |' "$TMP/timeline") busy samples)"
else fail "link_timeline"; cat "$TMP/timeline"; fi

echo "$passes passed, $fails failed"
[ $fails = 0 ]
