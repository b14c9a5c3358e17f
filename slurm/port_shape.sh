#!/bin/bash
# A switch node's port, shaped (cluster_up.sh calls this; so does
# bench/ring_transport.sh COMPARE=port): capped at RATE by an HTB class,
# small packets (TCP's acks, MPI's rendezvous handshakes: IP packets under
# 256 bytes) served before data, the data in a 1 MB queue, as each of the
# ring's links is (ring_shape.sh).
#
# Why not a bare token bucket (tbf, 50 ms of queue, the old port): in an
# exchange both directions of a pair run at once, and each side's acks for
# the other's data waited behind its own data in its port's queue. At
# 1 Gbit/s and P = 4 recursive doubling's 4 MiB all-reduce took 97 ms in
# place of the 70 ms its bytes need; with acks first, 74 ms (by hand; the
# comparison at 1 and 16 MiB: docs/time-model.md, "the switch's ports").
#
#   port_shape.sh NS DEV RATE BURST [prio|tbf]
#
# NS "host": DEV is in this machine's own namespace (the bridge's side of a
# node's cable, which shapes what the switch sends the node: its ingress).
source "$(dirname "$0")/../bench/args.sh" && answer_help "$0" "$@"
set -euo pipefail
die() { echo "error: $*" >&2; exit 2; }
[ $# = 4 ] || [ $# = 5 ] || die "usage: port_shape.sh NS DEV RATE BURST [prio|tbf] (cluster_up.sh calls it)"
NS=$1 DEV=$2 RATE=$3 BURST=$4 WAY=${5:-prio}
[[ $RATE =~ ^[0-9]+(bit|kbit|mbit|gbit)$ ]] || die "RATE must look like 1gbit, not '$RATE'"
[[ $BURST =~ ^[0-9]+(b|kb|k|mb|m)$ ]] || die "BURST must look like 256kb, not '$BURST'"
# tc in the node's namespace, or in this one's for NS=host.
tcn() { if [ "$NS" = host ]; then tc "$@"; else tc -n "$NS" "$@"; fi; }
tcn qdisc del dev "$DEV" root 2>/dev/null || true
case $WAY in
  tbf) tcn qdisc add dev "$DEV" root tbf rate "$RATE" burst "$BURST" latency 50ms ;;
  # The small packets' leaf and the data's guarantee only 8 kbit/s and borrow
  # the rest in turn, small packets first (prio 0): ring_shape.sh says why.
  prio) tcn -b - <<TC ;;
qdisc add dev $DEV root handle 1: htb default 3 r2q 200
class add dev $DEV parent 1: classid 1:1 htb rate $RATE burst $BURST quantum 65536
class add dev $DEV parent 1:1 classid 1:2 htb rate 8kbit ceil $RATE burst $BURST prio 0 quantum 65536
class add dev $DEV parent 1:1 classid 1:3 htb rate 8kbit ceil $RATE burst $BURST prio 1 quantum 65536
qdisc add dev $DEV parent 1:3 bfifo limit 1mb
filter add dev $DEV parent 1: protocol ip prio 1 u32 match u16 0x0000 0xff00 at 2 flowid 1:2
TC
  *) die "the port's shaping must be prio or tbf, not '$WAY'" ;;
esac
