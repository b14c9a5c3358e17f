#!/bin/bash
# What carries the messages on an emulated cluster (the ring of 8 unless
# TOPOLOGY=switch), two settings side by side, one after the other for each
# algorithm in one run, P = NODES, one rank a node. COMPARE picks the pair:
#   transport (default): Open MPI's TCP transport, both ways it can send a
#     large message:
#       put   Open MPI's default: after a first fragment, the rest of the
#             message in one "put", two connections a pair
#       send  what cluster_up.sh sets: 128 KiB fragments, one connection a
#             pair
#   congestion: the nodes' TCP congestion control, WAYS="bbr reno" by default
#     (reno is what cluster_up.sh sets; the other must be in the host's
#     net.ipv4.tcp_allowed_congestion_control), the transport as
#     cluster_up.sh sets it for the topology
#   port (TOPOLOGY=switch only): how a node's port is shaped, WAYS="tbf
#     prio": a bare token bucket with 50 ms of queue, or small packets first
#     (slurm/port_shape.sh; prio is cluster_up.sh's)
# Writes $OUT/$COMPARE.md (each algorithm's median call at each size both
# ways, and their ratio) and $OUT/${COMPARE}_WAY.csv (the rows). About 13
# minutes for the transport at 16M, 15 for the congestion control at 1M and
# 16M, on a 2-core VM. docs/time-model.md says why.
#
#   OUT=results/ring-8x100mbit_reno bash bench/ring_transport.sh
#   OUT=results/cluster-4x1gbit_reno TOPOLOGY=switch NODES=4 NCPUS=2 RATE=1gbit SIZES=1M:16M \
#     COMPARE=congestion bash bench/ring_transport.sh
#   OUT=results/ring-8x100mbit_reno COMPARE=congestion SIZES=1M:16M \
#     ALGOS="ring swing_bandwidth swing_latency rabenseifner recursive_doubling" bash bench/ring_transport.sh
source "$(dirname "$0")/args.sh" && script_args "$0" "$@"
set -uo pipefail
export LC_ALL=C # join needs sort's order
cd "$(dirname "$0")/.." || exit 2
TOPOLOGY=${TOPOLOGY:-ring}
NODES=${NODES:-8}
RATE=${RATE:-100mbit}
OUT=${OUT:-results/mine_ring}
COMPARE=${COMPARE:-transport}
ALGOS=${ALGOS:-"ring swing_bandwidth rabenseifner recursive_doubling"}
SIZES=${SIZES:-${SIZE:-16M}}
FACTOR=${FACTOR:-16}
ITERS=${ITERS:-3}
BIN=${BIN:-build/bin}
die() { echo "error: $*" >&2; exit 2; }
[[ $TOPOLOGY =~ ^(ring|switch)$ ]] || die "TOPOLOGY must be ring or switch, not '$TOPOLOGY'"
[[ $NODES =~ ^[3-9]$|^[1-9][0-9]$ ]] || [[ $TOPOLOGY$NODES == switch2 ]] || die "NODES must be 3 to 99 (2 on a switch), not '$NODES'"
[[ $ITERS =~ ^[1-9][0-9]?$ ]] || die "ITERS must be 1 to 99, not '$ITERS'"
if ! [[ $FACTOR =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v f="$FACTOR" 'BEGIN { exit !(f > 1) }'; then
  die "FACTOR must be a number above 1, like 16, not '$FACTOR'"
fi
[[ $SIZES =~ ^[0-9]+[KMG]?(:[0-9]+[KMG]?)?$ ]] || die "SIZES must be SIZE or MIN:MAX, like 1M:16M, not '$SIZES'"
case $COMPARE in
  transport) WAYS="put send" ;;
  congestion) WAYS=${WAYS:-"bbr reno"} ;;
  port) WAYS="tbf prio" ;;
  *) die "COMPARE must be transport, congestion or port, not '$COMPARE'" ;;
esac
[ "$COMPARE" != port ] || [ "$TOPOLOGY" = switch ] || die "COMPARE=port is for TOPOLOGY=switch (a ring's links are shaped by ring_shape.sh)"
read -r way_a way_b rest <<<"$WAYS"
if [ -z "$way_b" ] || [ -n "$rest" ] || [ "$way_a" = "$way_b" ]; then
  die "WAYS must name two different settings, not '$WAYS'"
fi
[ -x "$BIN/allreduce" ] || die "no $BIN/allreduce: run make build first"
mkdir -p "$OUT" || die "cannot make $OUT"
export PREFIX=${PREFIX:-/tmp/commlab-cluster}
tmp=$OUT/.$COMPARE
trap 'rm -f "$tmp"_*' EXIT
# A cluster found up is used as it is (its rate, burst and congestion
# control), given back as it was found, and stays up; one brought up here
# is taken down again.
read -r up_nodes tag up_topology _ <"$PREFIX/nodes" 2>/dev/null
if [ -n "${up_nodes:-}" ]; then
  [ "$up_nodes $up_topology" = "$NODES $TOPOLOGY" ] ||
    die "a cluster of $up_nodes nodes ($up_topology) is up in $PREFIX: take it down (slurm/cluster_down.sh) or ask for NODES=$up_nodes TOPOLOGY=$up_topology"
else
  NODES=$NODES NCPUS=${NCPUS:-1} RATE=$RATE TOPOLOGY=$TOPOLOGY bash slurm/cluster_up.sh >/dev/null || exit 1
  trap 'bash slurm/cluster_down.sh >/dev/null 2>&1; rm -f "$tmp"_*' EXIT
  read -r _ tag _ <"$PREFIX/nodes"
fi
# shellcheck disable=SC1091
source "$PREFIX/env.sh"
RATE=${COMMLAB_LINK_RATE%% *}
[ -n "$RATE" ] || die "the cluster in $PREFIX has no links' rate (COMMLAB_LINK_RATE): bring it up with RATE"
BURST=$(sed -n 's/.*burst \([0-9a-z]*\).*/\1/p' <<<"$COMMLAB_LINK_RATE")
BURST=${BURST:-256kb}
# The transport as cluster_up.sh sets it, for each topology.
declare -A flags=([put]="send,put,inplace,need-ack,need-csum,hetero-rdma" [send]="send,inplace,need-ack,need-csum")
declare -A links=([put]=2 [send]=1)
congestion=$(nsenter --net="/run/netns/${tag}node0" sysctl -n net.ipv4.tcp_congestion_control 2>/dev/null || echo reno)
# Every node's port shaped WAY, each way (as cluster_up.sh does: the node's
# side and the bridge's); every node tried, false if any failed.
shape_ports() {
  local i bad=0
  for i in $(seq 0 $((NODES - 1))); do
    bash slurm/port_shape.sh "${tag}node$i" "${tag}p$i" "$RATE" "$BURST" "$1" \
      && bash slurm/port_shape.sh host "${tag}v$i" "$RATE" "$BURST" "$1" || bad=1
  done
  return $bad
}
# What a cluster found up is given back, pass or fail.
give_back() {
  case $COMPARE in
    congestion)
      for i in $(seq 0 $((NODES - 1))); do
        nsenter --net="/run/netns/${tag}node$i" sysctl -qw "net.ipv4.tcp_congestion_control=$congestion"
      done ;;
    port)
      shape_ports prio || true ;;
  esac
}
[ -z "${up_nodes:-}" ] || trap 'give_back >/dev/null 2>&1; rm -f "$tmp"_*' EXIT
# Make WAY the setting the next run gets.
set_way() {
  if [ "$COMPARE" = transport ]; then
    export OMPI_MCA_btl_tcp_flags=${flags[$1]} OMPI_MCA_btl_tcp_links=${links[$1]}
    return
  fi
  if [ "$COMPARE" = port ]; then
    shape_ports "$1" || die "cannot shape every node's port $1"
    return
  fi
  for i in $(seq 0 $((NODES - 1))); do
    nsenter --net="/run/netns/${tag}node$i" sysctl -qw "net.ipv4.tcp_congestion_control=$1" 2>/dev/null ||
      die "cannot set congestion control '$1' on node $i (net.ipv4.tcp_allowed_congestion_control: $(sysctl -n net.ipv4.tcp_allowed_congestion_control))"
  done
}
describe() {
  local default="Open MPI's default"
  if [ "$COMPARE" = transport ]; then
    echo "- put: btl_tcp_flags=${flags[put]}, btl_tcp_links=${links[put]} (Open MPI's default flags; two connections a pair)"
    echo "- send: btl_tcp_flags=${flags[send]}, btl_tcp_links=${links[send]} (slurm/cluster_up.sh's setting)"
  elif [ "$COMPARE" = port ]; then
    echo "- tbf: each node's port a bare token bucket with 50 ms of queue; prio: small packets first"
    echo "  (slurm/port_shape.sh, slurm/cluster_up.sh's); the links at $RATE, burst $BURST, the nodes' TCP on $congestion"
  else
    echo "- $way_a, $way_b: the nodes' net.ipv4.tcp_congestion_control (reno is slurm/cluster_up.sh's)"
  fi
  [ "$COMPARE" = transport ] ||
    echo "- the transport as slurm/cluster_up.sh sets it: btl_tcp_flags=${OMPI_MCA_btl_tcp_flags:-$default}, btl_tcp_links=${OMPI_MCA_btl_tcp_links:-1}"
}
rm -f "$tmp"_*.csv
for algo in $ALGOS; do
  for way in $way_a $way_b; do
    echo "$algo, $way" >&2
    set_way "$way"
    timeout 900 srun --ntasks "$NODES" --nodes "$NODES" --distribution=cyclic --exclusive \
      "$BIN/allreduce" -a "$algo" -m "$SIZES" -f "$FACTOR" -i "$ITERS" -x 1 --csv "${tmp}_$way".csv \
      >"$PREFIX/$COMPARE.log" 2>&1 || { tail -3 "$PREFIX/$COMPARE.log" >&2; die "$algo ($way) failed"; }
  done
done
# Each way's medians, one line an algorithm and size, or no table at all.
for way in $way_a $way_b; do
  "$BIN/report" --column algorithm,bytes,t_median_us "${tmp}_$way".csv | grep -v '^MPI_Allreduce' |
    awk -F'\t' '{ printf "%s %s\t%s\n", $1, $2, $3 }' | sort >"${tmp}_$way.txt" || die "cannot read ${tmp}_$way.csv"
  [ "$(cut -d' ' -f1 "${tmp}_$way".txt | sort -u | wc -l)" = "$(wc -w <<<"$ALGOS")" ] || die "$way: not a row for each of $ALGOS"
done
[ -z "$(join -t $'\t' -v1 -v2 "${tmp}_$way_a".txt "${tmp}_$way_b".txt)" ] || die "the two ways ran different sizes"
{
  if [ "$COMPARE" = transport ]; then
    echo "# Open MPI's TCP transport on the emulated $TOPOLOGY: put or 128 KiB fragments"
  elif [ "$COMPARE" = port ]; then
    echo "# The switch's ports: a bare token bucket, or small packets first"
  else
    echo "# TCP's congestion control on the emulated $TOPOLOGY: $way_a or $way_b"
  fi
  echo
  echo "P = $NODES, one rank a node, sizes $SIZES (x$FACTOR), each algorithm's median call of $ITERS;"
  echo "the two ways one after the other for each algorithm, in one run (bench/ring_transport.sh,"
  echo "ALGOS=\"$ALGOS\")."
  echo
  describe
  echo
  echo "### Median call at P = $NODES"
  echo
  echo "| algorithm | bytes | $way_a: median s | $way_b: median s | $way_a / $way_b |"
  echo "|---|---|---|---|---|"
  join -t $'\t' "${tmp}_$way_a".txt "${tmp}_$way_b".txt | tr ' ' '\t' | sort -t $'\t' -k1,1 -k2,2n |
    awk -F'\t' '{ printf "| %s | %s | %.3f | %.3f | %.2f |\n", $1, $2, $3 / 1e6, $4 / 1e6, $3 / $4 }'
} >"${tmp}_md" || die "cannot write $OUT/$COMPARE.md"
for way in $way_a $way_b; do mv "${tmp}_$way".csv "$OUT/${COMPARE}_$way.csv" || die "cannot write $OUT/${COMPARE}_$way.csv"; done
mv "${tmp}_md" "$OUT/$COMPARE.md" || die "cannot write $OUT/$COMPARE.md"
cat "$OUT/$COMPARE.md"
