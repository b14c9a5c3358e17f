#!/bin/bash
# The layers as the linker sees them (layers_test.sh sees only the
# includes): every symbol a library needs from another library is defined in
# one below it in this list, never above. A static library alone enforces
# nothing (an undefined symbol waits for whatever comes later on the link
# line), so this reads each archive's symbols with nm: what a library
# defines (strongly: weak inline and template copies are everyone's) and
# what it leaves undefined.
#   link_layers_test.sh BUILD_DIR
BUILD=$1
source "$(dirname "$0")/support/check_lib.sh"
LIBS=(vocabulary device comm transports collectives allreduce operations tuned harness ps analysis)
for lib in "${LIBS[@]}"; do
  archive=$BUILD/libcommlab_$lib.a
  [ -f "$archive" ] || { fail "$archive is missing (build first)"; finish; }
  nm -P -g --defined-only "$archive" 2>/dev/null | awk '$2 ~ /^[TDBR]$/ { print $1 }' \
    | sort -u >"$TMP/$lib.defined"
  nm -P -g -u "$archive" 2>/dev/null | awk '{ print $1 }' | sort -u \
    | comm -23 - "$TMP/$lib.defined" >"$TMP/$lib.needed"
done
for i in "${!LIBS[@]}"; do
  lib=${LIBS[$i]} up=""
  for ((j = i + 1; j < ${#LIBS[@]}; j++)); do
    above=${LIBS[$j]}
    while IFS= read -r symbol; do
      up+="$(c++filt <<<"$symbol") (in $above); "
    done < <(comm -12 "$TMP/$lib.needed" "$TMP/$above.defined" | head -3)
  done
  [ -z "$up" ] && ok "libcommlab_$lib.a needs only the libraries below it" \
    || fail "libcommlab_$lib.a needs symbols from a library above it: $up"
done
finish
