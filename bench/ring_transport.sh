#!/bin/bash
# Open MPI's TCP transport on the emulated ring, both ways it can send a large
# message, one after the other for each algorithm in one run, P = NODES, one
# rank a node:
#   put   Open MPI's default: after a first fragment, the rest of the message
#         in one "put", two connections a pair (as the ring ran before)
#   send  what cluster_up.sh sets: 128 KiB fragments, one connection a pair
# Writes $OUT/transport.md (each algorithm's median call both ways, and their
# ratio) and $OUT/transport_put.csv, transport_send.csv (the rows). About 13
# minutes with the defaults on a 2-core VM. docs/time-model.md says why.
#
#   OUT=results/ring-8x100mbit bash bench/ring_transport.sh
set -uo pipefail
export LC_ALL=C # join needs sort's order
cd "$(dirname "$0")/.." || exit 2
NODES=${NODES:-8}
RATE=${RATE:-100mbit}
OUT=${OUT:-results/mine_ring}
ALGOS=${ALGOS:-"ring swing_bandwidth rabenseifner recursive_doubling"}
SIZE=${SIZE:-16M}
ITERS=${ITERS:-3}
BIN=${BIN:-build/bin}
die() { echo "error: $*" >&2; exit 2; }
[[ $NODES =~ ^[3-9]$|^[1-9][0-9]$ ]] || die "NODES must be 3 to 99, not '$NODES'"
[[ $ITERS =~ ^[1-9][0-9]?$ ]] || die "ITERS must be 1 to 99, not '$ITERS'"
[ -x "$BIN/allreduce" ] || die "no $BIN/allreduce: run make build first"
mkdir -p "$OUT" || die "cannot make $OUT"
export PREFIX=${PREFIX:-/tmp/commlab-cluster}
trap 'rm -f "$OUT"/.transport_*' EXIT
NODES=$NODES NCPUS=1 RATE=$RATE TOPOLOGY=ring bash slurm/cluster_up.sh >/dev/null || exit 1
trap 'bash slurm/cluster_down.sh >/dev/null 2>&1; rm -f "$OUT"/.transport_*' EXIT
# shellcheck disable=SC1091
source "$PREFIX/env.sh"
declare -A flags=([put]="send,put,inplace,need-ack,need-csum,hetero-rdma" [send]=$OMPI_MCA_btl_tcp_flags)
declare -A links=([put]=2 [send]=$OMPI_MCA_btl_tcp_links)
rm -f "$OUT"/.transport_*.csv
for algo in $ALGOS; do
  for way in put send; do
    echo "$algo, $way" >&2
    OMPI_MCA_btl_tcp_flags=${flags[$way]} OMPI_MCA_btl_tcp_links=${links[$way]} \
      timeout 900 srun --ntasks "$NODES" --nodes "$NODES" --distribution=cyclic --exclusive \
      "$BIN/allreduce" -a "$algo" -m "$SIZE" -i "$ITERS" -x 1 --csv "$OUT/.transport_$way.csv" \
      >"$PREFIX/transport.log" 2>&1 || { tail -3 "$PREFIX/transport.log" >&2; die "$algo ($way) failed"; }
  done
done
# Each way's medians, one line an algorithm, or no table at all.
for way in put send; do
  "$BIN/report" --column algorithm,t_median_us "$OUT/.transport_$way.csv" | grep -v '^MPI_Allreduce' |
    sort >"$OUT/.transport_$way.txt" || die "cannot read $OUT/.transport_$way.csv"
  [ "$(wc -l <"$OUT/.transport_$way.txt")" = "$(wc -w <<<"$ALGOS")" ] || die "$way: not a row for each of $ALGOS"
done
{
  echo "# Open MPI's TCP transport on the emulated ring: put or 128 KiB fragments"
  echo
  echo "P = $NODES, one rank a node, $SIZE, each algorithm's median call of $ITERS;"
  echo "the two ways one after the other for each algorithm, in one run (bench/ring_transport.sh)."
  echo
  echo "- put: btl_tcp_flags=${flags[put]}, btl_tcp_links=${links[put]} (Open MPI's default flags; two connections, as the switch's env.sh)"
  echo "- send: btl_tcp_flags=${flags[send]}, btl_tcp_links=${links[send]} (slurm/cluster_up.sh)"
  echo
  echo "### Median call at P = $NODES, $SIZE"
  echo
  echo "| algorithm | put: median s | send: median s | put / send |"
  echo "|---|---|---|---|"
  join -t $'\t' "$OUT/.transport_put.txt" "$OUT/.transport_send.txt" |
    awk -F'\t' '{ printf "| %s | %.2f | %.2f | %.2f |\n", $1, $2 / 1e6, $3 / 1e6, $2 / $3 }'
} >"$OUT/.transport_md" || die "cannot write $OUT/transport.md"
for f in transport_put.csv transport_send.csv; do mv "$OUT/.$f" "$OUT/$f" || die "cannot write $OUT/$f"; done
mv "$OUT/.transport_md" "$OUT/transport.md" || die "cannot write $OUT/transport.md"
cat "$OUT/transport.md"
