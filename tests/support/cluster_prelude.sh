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
