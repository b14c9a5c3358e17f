#!/bin/bash
# The ring's links, shaped (ring_links.sh calls this): every ring link capped
# at RATE by an HTB class on its sending end, with a queue of its own for
# every pair of nodes whose route crosses the link, served in turn (a
# quantum of 64 KiB each), and small packets (TCP's acks, MPI's rendezvous
# handshakes) served first.
#
# Why not one queue a link (a bare token bucket, as the switch's ports had):
# on the ring of 8, small messages (a step's rendezvous handshakes, TCP's
# acks) then waited behind other pairs' data: for seconds in a queue deep
# enough not to drop, and with 50 ms of queue TCP lost packets there and
# waited out retransmissions. A real machine's link does not make a small
# message wait behind a large one (credits, virtual lanes); a queue per pair
# comes closer, and the link still carries RATE in all. What kept the
# exchanging algorithms from the model was MPI's transport, not the queues
# (cluster_up.sh, Open MPI's TCP transport; docs/algorithms.md).
#
#   ring_shape.sh NODES TAG RING RATE BURST
source "$(dirname "$0")/../bench/args.sh" && answer_help "$0" "$@"
set -euo pipefail
die() { echo "error: $*" >&2; exit 2; }
[ $# = 5 ] || die "usage: ring_shape.sh NODES TAG RING RATE BURST (ring_links.sh calls it)"
NODES=$1 TAG=$2 RING=$3 RATE=$4 BURST=$5
[[ $NODES =~ ^[1-9][0-9]?$ ]] || die "NODES must be 3 to 99, not '$NODES'"
[[ $RATE =~ ^[0-9]+(bit|kbit|mbit|gbit)$ ]] || die "RATE must look like 100mbit, not '$RATE'"
[[ $BURST =~ ^[0-9]+(b|kb|k|mb|m)$ ]] || die "BURST must look like 256kb, not '$BURST'"
# shellcheck source=ring_route.sh
source "$(dirname "$0")/ring_route.sh"
ns() { echo "${TAG}node$1"; }
# Every leaf guarantees only 8 kbit/s and borrows the rest from the link's
# class in turn: HTB lets a leaf under its own rate send even when the link
# is at RATE, so the leaves' rates must add up to next to nothing for the
# link to carry RATE in all.
declare -A batch  # "node dev" -> tc commands for that link
for i in $(seq 0 $((NODES - 1))); do
  for dev in "${TAG}r$i" "${TAG}l$i"; do
    batch["$i $dev"]="qdisc replace dev $dev root handle 1: htb default 3 r2q 200
class add dev $dev parent 1: classid 1:1 htb rate $RATE burst $BURST
class add dev $dev parent 1:1 classid 1:2 htb rate 8kbit ceil $RATE burst $BURST prio 0 quantum 65536
class add dev $dev parent 1:1 classid 1:3 htb rate 8kbit ceil $RATE burst $BURST prio 1 quantum 65536
filter add dev $dev parent 1: protocol ip prio 1 u32 match u16 0x0000 0xff00 at 2 flowid 1:2
"
  done
done
# A queue for each pair (s, d) on each link of its route (ring_route.sh).
for s in $(seq 0 $((NODES - 1))); do
  for d in $(seq 0 $((NODES - 1))); do
    [ "$s" = "$d" ] && continue
    side=$(ring_side "$NODES" "$s" "$d") step=1
    [ "$side" = r ] || step=$((NODES - 1))
    class=$(printf '1:%x' $((16 + s * NODES + d)))
    for ((x = s; x != d; x = (x + step) % NODES)); do
      dev=${TAG}$side$x
      batch["$x $dev"]+="class add dev $dev parent 1:1 classid $class htb rate 8kbit ceil $RATE burst $BURST prio 1 quantum 65536
qdisc add dev $dev parent $class bfifo limit 1mb
filter add dev $dev parent 1: protocol ip prio 2 u32 match ip src $RING.$((s + 1))/32 match ip dst $RING.$((d + 1))/32 flowid $class
"
    done
  done
done
for key in "${!batch[@]}"; do
  read -r x dev <<<"$key"
  tc -n "$(ns "$x")" qdisc del dev "$dev" root 2>/dev/null || true
  tc -n "$(ns "$x")" -batch - <<<"${batch[$key]}"
done
