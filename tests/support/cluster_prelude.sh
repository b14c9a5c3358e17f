# Shared by the tests that bring up a local cluster of their own
# (slurm_test.sh, ring_test.sh; SRC, PREFIX and TAG set first): a scratch
# folder, the cluster stopped on exit, pass or fail; a skip (exit 77) where
# the machine forbids it (not root, no network namespaces); ok and fail,
# which shows the files named in SHOW (default: the cluster's start-up log).
TMP=$(mktemp -d)
cleanup() { bash "$SRC/slurm/cluster_down.sh" >/dev/null 2>&1; rm -rf "$TMP"; }
trap cleanup EXIT
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "the local cluster needs root"
ip netns add "${TAG}probe" 2>/dev/null && ip netns del "${TAG}probe" || skip "this machine does not allow network namespaces"
fails=0 passes=0
ok()   { passes=$((passes + 1)); echo "ok   $1"; }
fail() {
  fails=$((fails + 1)); echo "FAIL $1"
  for f in ${SHOW:-up.log}; do [ -f "$TMP/$f" ] && sed 's/^/     | /' "$TMP/$f" | tail -12; done
}
# tcp_race FILE...: the launch lost Open MPI 4.1.4's TCP connect race at
# start-up, which its ranks meet when the emulated nodes starve for CPU
# (open-mpi/ompi#10734, #11508): a rank's connect() fails ("Operation now in
# progress (115)", then a rank dies), or none fails and the first collective
# never ends, which the programs' start-up watchdog reports ("the ranks did
# not connect within 120 s": seen once at P = 6 of the array sweep).
# A third form, seen once at P = 8 of multinode.sbatch (exit 139, 1 s in,
# no message: a rank died of a signal before Open MPI could say why) is
# matched in the sweep's cells.tsv: a cell killed by a signal (exit 134 to
# 139) in its first 9 seconds. A crash that repeats fails: each test runs
# the launch again once only, and shows the failed cells' logs first.
tcp_race() {
  grep -rqsE "Operation now in progress \(115\)|did not connect within" "$@" \
    || grep -rqsE --include=cells.tsv $'\tfailed\t[0-9]s\texit 13[4-9]: ' "$@"
}
# failed_cells FOLDER...: the last lines of each failed cell's log, so that a
# failure says why (a crash's backtrace: Open MPI prints one).
failed_cells() {
  local tsv prog pp t d log
  for tsv in $(find "$@" -name cells.tsv 2>/dev/null); do
    awk -F'\t' '$2 == "failed" { print $1 }' "$tsv" | while read -r prog pp t d; do
      log=$(dirname "$tsv")/cells/${prog}_P${pp#P=}_${t}_${d}.log
      echo "     | == $log, its last lines:"
      tail -n 20 "$log" 2>/dev/null | sed 's/^/     | /'
    done
  done
}
