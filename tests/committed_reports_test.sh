#!/bin/bash
# Every committed results folder's report.md and model.csv are what the
# current report writes from its rows (report --check), so that a change to
# the report that alters committed output fails until they are regenerated
# (docs/sweeps.md says how). A folder of rows.csv is reported alone; one of
# runs (make auto-bench: run1/, run2/, ...) over its runs' rows, as
# bench/auto_bench.sh reports it; one with sources.txt (bench/mpi_tuning.sh)
# over the rows it lists.
#   committed_reports_test.sh SOURCE_DIR BIN_DIR
source "$(dirname "$0")/support/check_lib.sh"
SRC=$1 BIN=$2
for dir in "$SRC"/results/*/ "$SRC"/results/*/*/; do
  dir=${dir%/} runs=("$dir"/run*/rows.csv)
  if [ -f "$dir/rows.csv" ]; then
    files=()
  elif [ -f "$dir/sources.txt" ]; then  # bench/mpi_tuning.sh: the rows it reported, listed
    mapfile -t files < <(sed "s|^|$dir/|" "$dir/sources.txt")
  elif [ -f "$dir/report.md" ] && [ -f "${runs[0]}" ]; then
    files=("${runs[@]}")
  else
    continue
  fi
  "$BIN/report" --check "$dir" "${files[@]}" >"$TMP/out" 2>"$TMP/err" \
    && ok "${dir#"$SRC"/}: report.md and model.csv as report writes them" || fail "${dir#"$SRC"/}"
done

# Figures a page quotes from a committed report, in one pass over the pages:
# - every table row between <!-- quoted from FILE --> and <!-- end of quote -->
#   is in FILE, in a table under the same ### heading;
# - a line <!-- within 15%: FILE K of M --> says that K of the M algorithms
#   in FILE's "Do the formulas hold?" table are within 15% at every row;
# - a line <!-- median: ROWS P=8 bytes=N A/B 1.50 --> gives the hand-written
#   A's t_median_us over B's in the rows file ROWS at that P and size, as
#   written (its decimals); "A 0.72 s" or "A 140 ms" gives A's own.
python3 - "$SRC" >"$TMP/out" 2>&1 <<'PY'
import csv, functools, glob, os, re, sys
src, bad, quoted, counts = sys.argv[1], 0, 0, 0
@functools.cache  # each rows file read once, however many medians a page quotes from it
def hand_rows(rows):
    return [r for r in csv.DictReader(open(os.path.join(src, rows))) if r["impl"] == "hand"]
def median_us(rows, P, size, algorithm):
    t = [float(r["t_median_us"]) for r in hand_rows(rows)
         if r["P"] == P and r["bytes"] == size and r["algorithm"] == algorithm]
    return t[0] if len(t) == 1 else None
def report(path):
    return open(os.path.join(src, path)).read()
for page in sorted(glob.glob(src + "/docs/*.md")) + [src + "/README.md"]:
    text, where = open(page).read(), os.path.relpath(page, src)
    for m in re.finditer(r"<!-- quoted from (\S+) -->\n(.*?)<!-- end of quote -->", text, re.S):
        sections = report(m.group(1)).split("\n### ")
        heading = None
        for line in m.group(2).splitlines():
            if line.startswith("### "):
                heading = line[4:]
            elif line.startswith("| ") and not line.startswith("| N |"):
                quoted += 1
                tables = [t.splitlines() for t in sections if t.splitlines()[0] == heading]
                if not any(line in t for t in tables):
                    bad += 1
                    print(f"{where}: not in {m.group(1)} under {heading}: {line}")
    for m in re.finditer(r"<!-- within 15%: (\S+) (\d+) of (\d+) -->", text):
        counts += 1
        screen = report(m.group(1)).split("## Do the formulas hold?")[1]
        table = screen.split("\n| algorithm | P | model within")[1].split("\n\n")[0]
        rows = [l for l in table.splitlines() if l.startswith("| ")]
        yes = sum("**yes**" in l for l in rows)
        if (yes, len(rows)) != (int(m.group(2)), int(m.group(3))):
            bad += 1
            print(f"{where}: {m.group(1)} has {yes} of {len(rows)}, the page says "
                  f"{m.group(2)} of {m.group(3)}")
    for m in re.finditer(r"<!-- median: (\S+) P=(\d+) bytes=(\d+) (\S+) ([0-9.]+)( s| ms)? -->", text):
        counts += 1
        rows, P, size, what, given, unit = m.groups()
        t = [median_us(rows, P, size, a) for a in what.split("/")]
        scale = {" s": 1e-6, " ms": 1e-3}.get(unit, 1)
        value = None if None in t else t[0] / t[1] if len(t) == 2 else t[0] * scale
        decimals = len(given.split(".")[1]) if "." in given else 0
        if value is None or f"{value:.{decimals}f}" != given:
            bad += 1
            print(f"{where}: {m.group(0)}: the rows give {value}")
print(f"{quoted} quoted rows, {counts} first-screen counts and medians")
sys.exit(1 if bad or not quoted or not counts else 0)
PY
[ $? = 0 ] && ok "the report rows and counts the docs quote are in the committed reports ($(tail -1 "$TMP/out"))" \
  || { fail "docs quote report rows or counts that are not there"; cat "$TMP/out"; }
# The CI budget's table (docs/building-and-testing.md): every test's seconds
# as its committed log has them.
python3 - "$SRC" >"$TMP/out" 2>&1 <<'PY'
import re, sys
src, bad, n = sys.argv[1], 0, 0
text = open(src + "/docs/building-and-testing.md").read()
m = re.search(r"<!-- ci times: ([^>]*?) -->\n(.*?)<!-- end of ci times -->", text, re.S)
logs = []
for path in m.group(1).split():
    t = {}
    for line in open(src + "/" + path):
        g = re.match(r" *\d+/\d+ Test +#\d+: (.*?[^ .]) \.+.*? ([0-9.]+) sec$", line.rstrip())
        if g:
            t[g.group(1)] = float(g.group(2))
    logs.append(t)
for row in m.group(2).splitlines()[2:]:
    cells = [c.strip() for c in row.strip("|").split("|")]
    # A test and its seconds for each log, in turn, after the property.
    if len(cells) != 1 + 2 * len(logs):
        bad += 1
        print(f"{cells[0]}: {len(cells) - 1} cells, not a test and its seconds for each of {len(logs)} logs")
    for name, secs, log in zip(cells[1::2], cells[2::2], logs):
        n += 1
        if name not in log or abs(log[name] - float(secs)) > 0.051:
            bad += 1
            print(f"{name}: {secs} s in the table, {log.get(name)} in the log")
print(f"{n} figures")
sys.exit(1 if bad or not n else 0)
PY
[ $? = 0 ] && ok "the CI budget's table is its logs' ($(tail -1 "$TMP/out"))" \
  || { fail "the CI budget's table and its logs differ"; cat "$TMP/out"; }
finish
