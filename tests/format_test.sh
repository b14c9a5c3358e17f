#!/bin/bash
# Every C++ and CUDA source is as the repository's .clang-format (Google, 100
# columns) writes it, with Debian 12's clang-format 14: another major version
# formats some constructs otherwise, so it skips (77) rather than fail code
# that is right. The .def lists are not C++ a formatter understands and are
# left out; a table of data inside a source is kept by
# `// clang-format off` ... `// clang-format on` around it.
#   format_test.sh SOURCE_DIR
SRC=$1
cd "$SRC" || exit 1
if ! command -v clang-format >/dev/null; then
  echo "FAIL: no clang-format (apt-get install clang-format; make deps does)"
  exit 1
fi
major=$(clang-format --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$major" != 14 ]; then
  echo "skipped: clang-format $major, not 14 (Debian 12's), formats otherwise"
  exit 77
fi
if [ -d .git ]; then
  files=$(git ls-files --cached --others --exclude-standard '*.cpp' '*.hpp' '*.cu' '*.h')
else
  files=$(find . -path ./build -prune -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.h' \) -print)
fi
bad=0
for f in $files; do
  if ! clang-format "$f" | cmp -s - "$f"; then
    echo "not formatted: $f (clang-format -i $f)"
    bad=$((bad + 1))
  fi
done
n=$(wc -w <<<"$files")
[ "$bad" = 0 ] && echo "ok   $n files formatted" && exit 0
echo "$bad of $n files differ from .clang-format"
exit 1
