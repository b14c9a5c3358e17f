#!/bin/bash
# The rooms stay small: no source file over 600 lines outside tests/ and
# results/, and no function over 60 lines of body (the column table that
# lists every column's cell, harness/results.cpp's cells(), aside: one line
# a column). Functions are found as clang-format writes them: a definition
# starts at column 0 and its body ends at the next "}" alone at column 0;
# members defined inside a class and lambdas are not measured.
#   sizes_test.sh SOURCE_DIR
source "$(dirname "$0")/support/check_lib.sh"
cd "$1" || exit 2
python3 - >"$TMP/out" 2>&1 <<'PY'
import re, subprocess
files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                        "*.cpp", "*.hpp", "*.cu", "*.h"], capture_output=True, text=True).stdout.split()
exempt = {("harness/results.cpp", "cells")}  # the column table
bad = 0
for f in files:
    if f.startswith(("tests/", "results/")):
        continue
    lines = open(f).read().split("\n")
    if len(lines) - 1 > 600:
        bad += 1
        print(f"{f}: {len(lines) - 1} lines, more than 600")
    i = 0
    while i < len(lines):
        head = lines[i]
        if re.match(r"[A-Za-z_]", head) and not re.match(
                r"(namespace|struct|class|enum|union|extern|using|typedef|template\s*<[^>]*>\s*(struct|class))\b", head):
            k = i
            while k < len(lines) and not lines[k].rstrip().endswith(("{", ";", "}")):
                k += 1
            signature = " ".join(lines[i:k + 1])
            if k < len(lines) and lines[k].rstrip().endswith("{") and "(" in signature \
                    and "=" not in head.split("(")[0]:
                j = k + 1
                while j < len(lines) and lines[j] != "}":
                    j += 1
                name = re.findall(r"([A-Za-z_][A-Za-z_0-9:]*)\s*\(", signature)
                name = name[0].split("::")[-1] if name else "?"
                if j - k - 1 > 60 and (f, name) not in exempt:
                    bad += 1
                    print(f"{f}:{i + 1}: {name} has {j - k - 1} lines of body, more than 60")
                i = j
        i += 1
print(f"{len(files)} files")
raise SystemExit(1 if bad else 0)
PY
[ $? = 0 ] && ok "no source over 600 lines, no function over 60 ($(tail -1 "$TMP/out"))" \
  || { fail "sources or functions too long"; cat "$TMP/out"; }
finish
