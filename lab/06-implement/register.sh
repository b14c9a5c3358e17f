#!/bin/bash
# Lab 06: adds an all-reduce to allreduce_algos/algorithms.def, the list the
# build reads, among the message-passing algorithms: before the comment that
# opens the ones that run only where ranks map each other's memory. Run twice,
# it changes nothing the second time (a second line would give CMake two
# targets of one name); --remove takes the line out again.
#   bash lab/06-implement/register.sh reverse_ring          (make lab-register NAME=reverse_ring)
#   bash lab/06-implement/register.sh --remove reverse_ring
# Exit status: 0 done (or nothing to do), 2 bad input (one line).
set -u
cd "$(dirname "$0")/../.." || exit 2
def=allreduce_algos/algorithms.def
marker="// Only where ranks map each other's memory"
remove=0
[ "${1:-}" = --remove ] && { remove=1; shift; }
name=${1:-}
fail() { echo "error: $*" >&2; exit 2; }
[ $# -eq 1 ] || fail "usage: bash lab/06-implement/register.sh [--remove] NAME (e.g. reverse_ring)"
# The build's own pattern for a name (CMakeLists.txt reads algorithms.def with it).
[[ $name =~ ^[a-z0-9_]+$ ]] || fail "'$name' is not an algorithm's name: lower-case letters, digits and _"
[ -f "$def" ] || fail "$def is missing: run this from a commlab checkout"
line="COMMLAB_ALLREDUCE($name)"
if [ $remove = 1 ]; then
  grep -qxF "$line" "$def" || { echo "$name is not in $def: nothing to remove"; exit 0; }
  grep -vxF "$line" "$def" > "$def.new" && mv "$def.new" "$def" && echo "removed $name from $def"
  exit
fi
[ -f "allreduce_algos/$name.cpp" ] ||
  fail "allreduce_algos/$name.cpp is missing: copy lab/06-implement/$name.cpp there first"
if grep -qxF "$line" "$def"; then
  echo "$name is in $def already: nothing to do"
  exit 0
fi
grep -qF "$marker" "$def" || fail "$def has no line '$marker': add $line by hand, after the last COMMLAB_ALLREDUCE of the message-passing algorithms"
# Before the marker: the message-passing algorithms end there.
awk -v line="$line" -v marker="$marker" \
  'index($0, marker) == 1 && !done {print line; done = 1} {print}' "$def" > "$def.new" \
  && mv "$def.new" "$def" && echo "added $name to $def"
