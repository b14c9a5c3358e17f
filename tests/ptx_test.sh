#!/bin/bash
# The GPU kernels, read as PTX where nvcc is found (no GPU needed): every
# kernel that reduces floats, the device program's (its reducing messages,
# reductions and folds of many terms) among them, loads its terms in 16-byte packs (ld.v4 of 32-bit, ld.v2 of 64-bit
# words), as the copy does. A
# scalar loop there moves a quarter of what the memory can (docs/direct.md).
#   ptx_test.sh SOURCE_DIR NVCC
SRC=$1 NVCC=${2:-}
source "$(dirname "$0")/support/check_lib.sh"
[ -n "$NVCC" ] && [ -x "$NVCC" ] || { echo "skip: no nvcc in this build"; exit 77; }
for file in device_cuda program_cuda; do
  "$NVCC" -ptx -arch=sm_90 -std=c++17 -I "$SRC" "$SRC/core/device/$file.cu" -o "$TMP/$file.ptx" \
    2>"$TMP/err" || { fail "nvcc -ptx $file.cu"; finish; exit; }
done
cat "$TMP/device_cuda.ptx" "$TMP/program_cuda.ptx" >"$TMP/d.ptx"
# Each entry's body, one line each: name, then whether it has a 16-byte load.
awk '/^\.visible \.entry|^\.entry/ { if (name) print name, v4; name = $NF; sub(/\(.*/, "", name); v4 = 0 }
     /ld(\.global)?(\.nc)?\.(v4\.[a-z]32|v2\.[a-z]64)[ \t]/ { v4 = 1 }
     END { if (name) print name, v4 }' "$TMP/d.ptx" >"$TMP/entries"
# float (f), sum (Op 0): the device program's; and the reduction kernel's.
for kind in "program_kernelIfLNS_2OpE0EE" "reduce_kernelIfLNS_2OpE0E"; do
  line=$(grep "$kind" "$TMP/entries" | head -1)
  if [ -z "$line" ]; then
    fail "no kernel $kind in the PTX (renamed? say so here)"
  elif [ "${line##* }" = 1 ]; then
    ok "${kind%%I*} (float, sum): 16-byte loads"
  else
    fail "${kind%%I*} (float, sum) loads no 16-byte packs: $line"
  fi
done
bad=$(awk '$1 ~ /(program|reduce|reduce_many)_kernel/ && $2 == 0' "$TMP/entries" | wc -l)
[ "$bad" = 0 ] && ok "every reducing kernel loads 16-byte packs ($(wc -l <"$TMP/entries") kernels)" \
  || fail "$bad reducing kernels without 16-byte loads: $(awk '$2 == 0 { print $1 }' "$TMP/entries" | head -3 | tr '\n' ' ')"
finish
