#!/bin/bash
# The code's layers point only down (README.md, "What is here"): a folder
# includes only folders above it in this order, never one below, so nothing
# an algorithm uses depends on how the harness runs it. And the README's
# table names every folder of the repository, and no folder that is gone.
#   layers_test.sh SOURCE_DIR
SRC=$1
source "$(dirname "$0")/support/check_lib.sh"
cd "$SRC" || exit 1
LAYERS=(core collectives allreduce_algos operations harness analysis ps_sim training lab)
rank() { for i in "${!LAYERS[@]}"; do [ "${LAYERS[$i]}" = "$1" ] && echo "$i" && return; done; echo -1; }
for i in "${!LAYERS[@]}"; do
  layer=${LAYERS[$i]}
  up=""
  while IFS= read -r line; do
    file=${line%%:*} target=$(sed -n 's/.*#include "\([a-z_]*\)\/.*/\1/p' <<<"$line")
    [ -n "$target" ] && [ "$(rank "$target")" -gt "$i" ] && up+="$file -> $target; "
  done < <(grep -rn '#include "[a-z_]*/' "$layer" --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.def')
  [ -z "$up" ] && ok "$layer/ includes only the layers above it" || fail "$layer/ includes a layer below it: $up"
done
# Inside core/, the rooms point only down in the same way.
ROOMS=(vocabulary device comm transports)
room_rank() { for i in "${!ROOMS[@]}"; do [ "${ROOMS[$i]}" = "$1" ] && echo "$i" && return; done; echo 99; }
for i in "${!ROOMS[@]}"; do
  room=${ROOMS[$i]} up=""
  while IFS= read -r line; do
    file=${line%%:*} target=$(sed -n 's/.*#include "core\/\([a-z_]*\)\/.*/\1/p' <<<"$line")
    [ -n "$target" ] && [ "$(room_rank "$target")" -gt "$i" ] && up+="$file -> core/$target; "
  done < <(grep -rn '#include "core/' "core/$room")
  [ -z "$up" ] && ok "core/$room/ includes only the rooms before it" \
    || fail "core/$room/ includes a room after it: $up"
done
loose=$(find core -maxdepth 1 -type f | tr '\n' ' ')
[ -z "$loose" ] && ok "core/ holds only its rooms" || fail "files directly in core/: $loose"
# No include cycle anywhere between rooms (a room: a .cpp and its .hpp):
# every "A includes B" as an edge, and tsort finds any loop.
edges=$(git ls-files -co --exclude-standard '*.cpp' '*.hpp' '*.cu' '*.def' | while IFS= read -r f; do
  [ -f "$f" ] || continue
  dir=$(dirname "$f")
  sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while IFS= read -r inc; do
    if [ -f "$dir/$inc" ]; then to=$dir/$inc; elif [ -f "$inc" ]; then to=$inc; else continue; fi
    to=$(realpath -m --relative-to=. "$to")
    [ "${f%.*}" != "${to%.*}" ] && echo "${f%.*} ${to%.*}"
  done
done)
loop=$(tsort <<<"$edges" 2>&1 >/dev/null | grep -v "input contains a loop" | sed 's/^tsort: //' | tr '\n' ' ')
[ -z "$loop" ] && ok "no include cycle between rooms ($(wc -l <<<"$edges") includes)" \
  || fail "an include cycle between rooms: $loop"
# Every folder of the tree in the README's table, and every folder it names there.
table=$(sed -n '/^## What is here/,/^## /p' README.md | sed -n 's/^| `\([^`]*\)\/` |.*/\1/p' | sort)
tree=$(git ls-files | sed -n 's|^\([^/]*\)/.*|\1|p' | sort -u)
[ "$table" = "$tree" ] && ok "README's layout names every folder of the tree: $(echo $tree)" \
  || fail "README's layout and the tree differ: $(diff <(echo "$table") <(echo "$tree") | grep '^[<>]' | tr '\n' ' ')"
finish
