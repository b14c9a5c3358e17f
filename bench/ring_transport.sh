#!/bin/bash
# What carries the messages on the emulated ring, two settings side by side,
# one after the other for each algorithm in one run, P = NODES, one rank a
# node. COMPARE picks the pair:
#   transport (default): Open MPI's TCP transport, both ways it can send a
#     large message:
#       put   Open MPI's default: after a first fragment, the rest of the
#             message in one "put", two connections a pair (as the switch)
#       send  what cluster_up.sh sets on a ring: 128 KiB fragments, one
#             connection a pair
#   congestion: the nodes' TCP congestion control, WAYS="bbr reno" by default
#     (reno is what ring_links.sh sets; the other must be in the host's
#     net.ipv4.tcp_allowed_congestion_control)
# Writes $OUT/$COMPARE.md (each algorithm's median call at each size both
# ways, and their ratio) and $OUT/${COMPARE}_WAY.csv (the rows). About 13
# minutes for the transport at 16M, 15 for the congestion control at 1M and
# 16M, on a 2-core VM. docs/time-model.md says why.
#
#   OUT=results/ring-8x100mbit_reno bash bench/ring_transport.sh
#   OUT=results/ring-8x100mbit_reno COMPARE=congestion SIZES=1M:16M \
#     ALGOS="ring swing_bandwidth swing_latency rabenseifner recursive_doubling" bash bench/ring_transport.sh
set -uo pipefail
export LC_ALL=C # join needs sort's order
cd "$(dirname "$0")/.." || exit 2
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
[[ $NODES =~ ^[3-9]$|^[1-9][0-9]$ ]] || die "NODES must be 3 to 99, not '$NODES'"
[[ $ITERS =~ ^[1-9][0-9]?$ ]] || die "ITERS must be 1 to 99, not '$ITERS'"
if ! [[ $FACTOR =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v f="$FACTOR" 'BEGIN { exit !(f > 1) }'; then
  die "FACTOR must be a number above 1, like 16, not '$FACTOR'"
fi
[[ $SIZES =~ ^[0-9]+[KMG]?(:[0-9]+[KMG]?)?$ ]] || die "SIZES must be SIZE or MIN:MAX, like 1M:16M, not '$SIZES'"
case $COMPARE in
  transport) WAYS="put send" ;;
  congestion) WAYS=${WAYS:-"bbr reno"} ;;
  *) die "COMPARE must be transport or congestion, not '$COMPARE'" ;;
esac
read -r way_a way_b rest <<<"$WAYS"
if [ -z "$way_b" ] || [ -n "$rest" ] || [ "$way_a" = "$way_b" ]; then
  die "WAYS must name two different settings, not '$WAYS'"
fi
[ -x "$BIN/allreduce" ] || die "no $BIN/allreduce: run make build first"
mkdir -p "$OUT" || die "cannot make $OUT"
export PREFIX=${PREFIX:-/tmp/commlab-cluster}
tmp=$OUT/.$COMPARE
trap 'rm -f "$tmp"_*' EXIT
# cluster_up.sh keeps a ring already up as asked: that one stays up after.
was_up=0
[ -s "$PREFIX/nodes" ] && was_up=1
NODES=$NODES NCPUS=1 RATE=$RATE TOPOLOGY=ring bash slurm/cluster_up.sh >/dev/null || exit 1
[ $was_up = 1 ] || trap 'bash slurm/cluster_down.sh >/dev/null 2>&1; rm -f "$tmp"_*' EXIT
# shellcheck disable=SC1091
source "$PREFIX/env.sh"
read -r _ tag _ <"$PREFIX/nodes"
declare -A flags=([put]="send,put,inplace,need-ack,need-csum,hetero-rdma" [send]=$OMPI_MCA_btl_tcp_flags)
declare -A links=([put]=2 [send]=$OMPI_MCA_btl_tcp_links)
# Make WAY the setting the next run gets.
set_way() {
  if [ "$COMPARE" = transport ]; then
    export OMPI_MCA_btl_tcp_flags=${flags[$1]} OMPI_MCA_btl_tcp_links=${links[$1]}
    return
  fi
  for i in $(seq 0 $((NODES - 1))); do
    nsenter --net="/run/netns/${tag}node$i" sysctl -qw "net.ipv4.tcp_congestion_control=$1" 2>/dev/null ||
      die "cannot set congestion control '$1' on node $i (net.ipv4.tcp_allowed_congestion_control: $(sysctl -n net.ipv4.tcp_allowed_congestion_control))"
  done
}
describe() {
  if [ "$COMPARE" = transport ]; then
    echo "- put: btl_tcp_flags=${flags[put]}, btl_tcp_links=${links[put]} (Open MPI's default flags; two connections, as the switch's env.sh)"
    echo "- send: btl_tcp_flags=${flags[send]}, btl_tcp_links=${links[send]} (slurm/cluster_up.sh)"
  else
    echo "- $way_a, $way_b: the nodes' net.ipv4.tcp_congestion_control (reno is slurm/ring_links.sh's);"
    echo "  the transport as slurm/cluster_up.sh sets it: btl_tcp_flags=${flags[send]}, btl_tcp_links=${links[send]}"
  fi
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
# A ring left up runs as ring_links.sh set it.
[ "$COMPARE" = transport ] || set_way reno
# Each way's medians, one line an algorithm and size, or no table at all.
for way in $way_a $way_b; do
  "$BIN/report" --column algorithm,bytes,t_median_us "${tmp}_$way".csv | grep -v '^MPI_Allreduce' |
    awk -F'\t' '{ printf "%s %s\t%s\n", $1, $2, $3 }' | sort >"${tmp}_$way.txt" || die "cannot read ${tmp}_$way.csv"
  [ "$(cut -d' ' -f1 "${tmp}_$way".txt | sort -u | wc -l)" = "$(wc -w <<<"$ALGOS")" ] || die "$way: not a row for each of $ALGOS"
done
[ -z "$(join -t $'\t' -v1 -v2 "${tmp}_$way_a".txt "${tmp}_$way_b".txt)" ] || die "the two ways ran different sizes"
{
  if [ "$COMPARE" = transport ]; then
    echo "# Open MPI's TCP transport on the emulated ring: put or 128 KiB fragments"
  else
    echo "# TCP's congestion control on the emulated ring: $way_a or $way_b"
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
