#!/bin/bash
# The ring of cluster_up.sh TOPOLOGY=ring: NODES namespaces ${TAG}node0.. (made
# already, on the bridge for Slurm), each linked only to its two neighbours.
#
#   node i:  ${TAG}r<i> -> node i+1     ${TAG}l<i> -> node i-1     (mod NODES)
#            address RING.(i+1)/24 on ${TAG}a<i>, one end of a veth pair kept
#            inside the node (the kernel here has no dummy interfaces)
#
# Every other node's address is routed through the neighbour on the shorter
# way round; exactly half way round, through node i+1 (as --topology ring:K
# routes, core/comm/topology.hpp), the nodes between forwarding. Each ring link
# is capped at RATE on its sending end, so a link that two
# routes share gives each a part: hop distance shows as shared bandwidth
# (this kernel has no netem to add latency): ring_shape.sh shapes them, each
# pair of nodes with a queue of its own on each link. Safe to run again.
#
#   ring_links.sh NODES TAG RING RATE BURST   (cluster_up.sh calls it; RATE may be empty)
source "$(dirname "$0")/../bench/args.sh" && answer_help "$0" "$@"
set -euo pipefail
die() { echo "error: $*" >&2; exit 2; }
[ $# = 5 ] || die "usage: ring_links.sh NODES TAG RING RATE BURST (cluster_up.sh calls it)"
NODES=$1 TAG=$2 RING=$3 RATE=$4 BURST=$5
# shellcheck source=ring_route.sh
source "$(dirname "$0")/ring_route.sh"
ns() { echo "${TAG}node$1"; }
in_ns() { local n=$1; shift; nsenter --net=/run/netns/"$(ns "$n")" "$@"; }
for i in $(seq 0 $((NODES - 1))); do
  j=$(((i + 1) % NODES))
  if ! ip -n "$(ns "$i")" link show "${TAG}r$i" >/dev/null 2>&1; then
    ip link add "${TAG}r$i" netns "$(ns "$i")" type veth peer name "${TAG}l$j" netns "$(ns "$j")"
  fi
  if ! ip -n "$(ns "$i")" link show "${TAG}a$i" >/dev/null 2>&1; then
    ip -n "$(ns "$i")" link add "${TAG}a$i" type veth peer name "${TAG}b$i"
  fi
done
for i in $(seq 0 $((NODES - 1))); do
  n=$(ns "$i")
  in_ns "$i" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
  ip -n "$n" addr replace "$RING.$((i + 1))/24" dev "${TAG}a$i"
  for dev in "${TAG}a$i" "${TAG}b$i" "${TAG}r$i" "${TAG}l$i"; do
    ip -n "$n" link set "$dev" up
    in_ns "$i" sysctl -qw "net.ipv4.conf.$dev.rp_filter=0"
  done
  for dev in "${TAG}r$i" "${TAG}l$i"; do tc -n "$n" qdisc del dev "$dev" root 2>/dev/null || true; done
  right=$(((i + 1) % NODES)) left=$(((i - 1 + NODES) % NODES))
  for k in $(seq 0 $((NODES - 1))); do
    [ "$k" = "$i" ] && continue
    if [ "$(ring_side "$NODES" "$i" "$k")" = r ]; then dev=${TAG}r$i hop=$right; else dev=${TAG}l$i hop=$left; fi
    ip -n "$n" route replace "$RING.$((k + 1))/32" via "$RING.$((hop + 1))" dev "$dev" onlink src "$RING.$((i + 1))"
  done
done
# Every ring link capped at RATE, a queue per pair of nodes (ring_shape.sh says why).
[ -z "$RATE" ] || bash "$(dirname "$0")/ring_shape.sh" "$NODES" "$TAG" "$RING" "$RATE" "$BURST"
