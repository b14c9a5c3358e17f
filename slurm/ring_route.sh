# shellcheck shell=bash
# The emulated ring's one routing rule, sourced by ring_links.sh (the routes)
# and ring_shape.sh (a queue on every link of each route): from node S of
# NODES to node D the shorter way round, and exactly half way round to higher
# numbers, as --topology ring:K routes (core/comm/topology.hpp). tests/ring_test.sh
# states the rule again on its own, to check the routes the kernel got.
#
#   ring_side NODES S D   prints r (leave S towards S+1) or l (towards S-1)
ring_side() {
  local up=$((($3 - $2 + $1) % $1))
  if [ $((2 * up)) -le "$1" ]; then echo r; else echo l; fi
}
