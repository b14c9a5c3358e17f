#!/bin/bash
# The labs (lab/), as make test checks them:
#   lab_test.sh SRC BIN commands   every lab's commands, as lab/run.sh runs them (mpirun)
#   lab_test.sh SRC BIN grading    each lab's generated key marked all right; a copy with
#                                  two deliberate mistakes marked wrong at exactly those two;
#                                  a malformed answers file refused with one line, exit 2
set -u
SRC=$1 BIN=$2 WHAT=$3
fails=0
ok()   { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

if [ "$WHAT" = commands ]; then
  bash "$SRC/lab/run.sh" all && ok "every lab's commands" || fail "a lab's commands (above)"
  exit $fails
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for questions in "$SRC"/lab/[0-9][0-9]-*/questions.toml; do
  lab=$(basename "$(dirname "$questions")")
  n=$(grep -c '^\[\[question\]\]' "$questions")
  "$BIN/grade" --key "$questions" > "$TMP/key.toml" || { fail "$lab: --key"; continue; }
  "$BIN/grade" "$questions" "$TMP/key.toml" > "$TMP/out" && grep -q "^$n of $n right$" "$TMP/out" \
    && ok "$lab: the generated key, $n of $n right" || { fail "$lab: the key"; cat "$TMP/out"; }
  # Two mistakes: the first answer that is a number x becomes 2x + 1; the first
  # list (or, failing that, the last answer) is replaced by a word.
  python3 - "$TMP/key.toml" > "$TMP/wrong.toml" 2> "$TMP/ids" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
answers = [i for i, l in enumerate(lines) if re.match(r'^q\w* = ', l)]
# (a plain number: not a range's, which carries a comment, and changed well past any tolerance)
num = next(i for i in answers if re.match(r'^\w+ = -?\d+(\.\d+)?$', lines[i]))
other = next((i for i in answers if ' = [' in lines[i]), answers[-1] if answers[-1] != num else answers[0])
ident, value = lines[num].split(' = ', 1)
lines[num] = f"{ident} = {2 * float(value) + 1}"
lines[other] = lines[other].split(' = ')[0] + ' = "nonsense"'
print("\n".join(lines))
print(lines[num].split(' = ')[0], lines[other].split(' = ')[0], file=sys.stderr)
PY
  read -r a b < "$TMP/ids"
  "$BIN/grade" "$questions" "$TMP/wrong.toml" > "$TMP/out"; rc=$?
  wrong=$(grep -E '^  q\w+ +wrong ' "$TMP/out" | awk '{print $1}' | sort | tr '\n' ' ')
  want=$(printf '%s\n%s\n' "$a" "$b" | sort | tr '\n' ' ')
  [ $rc = 1 ] && [ "$wrong" = "$want" ] && grep -q "^$((n - 2)) of $n right$" "$TMP/out" \
    && ok "$lab: two mistakes ($want) marked wrong with a hint, the rest right" \
    || { fail "$lab: mistakes (exit $rc, wrong: $wrong, want: $want)"; cat "$TMP/out"; }
done

printf 'q1 = \n' > "$TMP/bad.toml"
"$BIN/grade" "$SRC/lab/03-allreduce-traffic/questions.toml" "$TMP/bad.toml" > "$TMP/out" 2>&1; rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$TMP/out")" = 1 ] && grep -q "^error: .*bad.toml:1:" "$TMP/out" \
  && ok "a malformed answers file: one line naming the file and line, exit 2" || { fail "malformed answers (exit $rc)"; cat "$TMP/out"; }
"$BIN/grade" "$SRC/lab/03-allreduce-traffic/questions.toml" "$TMP/none.toml" > "$TMP/out" 2>&1; rc=$?
[ $rc = 2 ] && [ "$(cat "$TMP/out")" = "error: $TMP/none.toml: cannot be read" ] \
  && ok "an answers file that is not there: one line, exit 2" || { fail "missing answers (exit $rc)"; cat "$TMP/out"; }
printf 'q99 = 1\n' > "$TMP/bad.toml"
"$BIN/grade" "$SRC/lab/03-allreduce-traffic/questions.toml" "$TMP/bad.toml" > "$TMP/out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q "^error: .*no question 'q99'" "$TMP/out" \
  && ok "an answer to no question: refused" || { fail "unknown id (exit $rc)"; cat "$TMP/out"; }
exit $fails
