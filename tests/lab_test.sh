#!/bin/bash
# The labs (lab/), as make test checks them:
#   lab_test.sh SRC BIN commands   every lab's commands, as lab/run.sh runs them (mpirun)
#   lab_test.sh SRC BIN grading    each lab's generated key marked all right; a copy with
#                                  two deliberate mistakes marked wrong at exactly those two;
#                                  every answer in the wrong form (a number in quotes, a word
#                                  in capitals) told so; the typical wrong answers, each with
#                                  its own message; a malformed answers file refused with one
#                                  line, exit 2
set -u
SRC=$1 BIN=$2 WHAT=$3
# Open MPI refuses root without these (CI runs as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fails=0
ok()   { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

if [ "$WHAT" = commands ]; then
  bash "$SRC/lab/run.sh" all && ok "every lab's commands" || fail "a lab's commands (above)"
  # A figure a page quotes from a tool is marked where it is quoted,
  #   <!-- figure: TEXT <= COMMAND -->
  # and must be in the page's text and in what COMMAND prints (run as lab/run.sh runs it).
  cd "$SRC" || exit 2
  while IFS=$'\t' read -r page figure cmd; do
    cmd=${cmd/mpirun -np /mpirun --oversubscribe -q -np }
    out=$(timeout 120 bash -c "${cmd//build\/bin\//$BIN/}" 2>&1 </dev/null)
    # The figure whole: not part of a longer number ("0" in "0.0001", "5" in "1.5"); a full stop may follow.
    whole="(^|[^0-9.])$(printf '%s' "$figure" | sed 's/[][\.*^$/]/\\&/g')([^0-9.]|\.([^0-9]|$)|$)"
    grep -v "<!-- figure:" "$page" | tr '\n' ' ' | tr -s ' ' | grep -qE -- "$whole" \
      && grep -qE -- "$whole" <<<"$out" \
      && ok "$page quotes '$figure' as '$cmd' prints it" || fail "$page: '$figure' from '$cmd'"
  done < <(grep -o '<!-- figure: [^>]* <= [^>]* -->' lab/*/README.md \
             | sed -E 's/^([^:]*):<!-- figure: (.*) <= (.*) -->$/\1\t\2\t\3/')
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

# Every answer of every lab in the wrong form: a number as a string with its
# unit, a word in capitals, a list cut short. Each must be told its form, not a hint.
cat > "$TMP/form.py" <<'PY'
import re, sys
for line in sys.stdin:
    m = re.match(r"^(q\w*) = (.*?)(  #.*)?$", line.rstrip("\n"))
    if not m:
        continue
    ident, value = m.group(1), m.group(2)
    if value.startswith("["):
        print(ident, "=", value.split(",")[0] + "]" if "," in value else "[]")
    elif value.startswith('"'):
        print(ident, "=", value.upper())
    else:
        print(ident, "=", '"' + value + ' B"')
PY
for questions in "$SRC"/lab/[0-9][0-9]-*/questions.toml; do
  lab=$(basename "$(dirname "$questions")")
  "$BIN/grade" --key "$questions" | python3 "$TMP/form.py" > "$TMP/form.toml"
  n=$(grep -c '^\[\[question\]\]' "$questions")
  "$BIN/grade" "$questions" "$TMP/form.toml" > "$TMP/out"
  [ "$(grep -cE '^  q\w+ +wrong +format: ' "$TMP/out")" = "$n" ] \
    && ok "$lab: every answer in the wrong form told so ($n)" \
    || { fail "$lab: answers in the wrong form"; grep -vE 'format: ' "$TMP/out"; }
done

# lab/README.md's sample of the grader's output is what it prints.
"$BIN/grade" "$SRC/tests/lab_grader_questions.toml" "$SRC/tests/lab_grader_sample.toml" \
  | sed 's/^/    /' > "$TMP/sample"
[ -s "$TMP/sample" ] && grep -qxF -f "$TMP/sample" "$SRC/lab/README.md" \
  && [ "$(grep -cxF -f "$TMP/sample" "$SRC/lab/README.md")" = "$(wc -l < "$TMP/sample")" ] \
  && ok "lab/README.md's sample of the grader's output, as it prints it" \
  || { fail "lab/README.md's sample of the grader's output differs from:"; cat "$TMP/sample"; }

# Lab 06's page quotes what lab_check says about the skeleton and about a
# model without its reduced arrivals: the fixtures print it (tests/CMakeLists.txt).
for fixture in skeleton unreduced; do
  "$BIN/lab_check_$fixture" reverse_ring | sed 's/^/    /' > "$TMP/said"
  [ -s "$TMP/said" ] \
    && [ "$(grep -cxF -f "$TMP/said" "$SRC/lab/06-implement/README.md")" = "$(wc -l < "$TMP/said")" ] \
    && ok "lab 06's page quotes lab_check on the $fixture as it prints it" \
    || { fail "lab 06's page: lab_check on the $fixture says:"; cat "$TMP/said"; }
done

# The typical wrong answers (tests/lab_grader_questions.toml), one at a time
# on an otherwise right answers file, and the message each must get.
mistakes="$SRC/tests/lab_grader_questions.toml"
"$BIN/grade" --key "$mistakes" | grep -E '^q\w* = ' | sed 's/  #.*//' > "$TMP/right.toml"
while IFS='|' read -r answer want; do
  [ -z "$answer" ] && continue
  ids=$(echo "$answer" | grep -oE '(^|; )q[0-9]+' | tr -d '; ')
  { grep -vE "^($(echo $ids | tr ' ' '|')) = " "$TMP/right.toml"; echo "$answer" | tr ';' '\n' | sed 's/^ //'; } > "$TMP/one.toml"
  "$BIN/grade" "$mistakes" "$TMP/one.toml" > "$TMP/out"
  last=$(echo $ids | awk '{print $NF}')
  line=$(grep -E "^  $last +(right|wrong)" "$TMP/out")
  [[ $line =~ $want ]] && ok "'$answer': $want" || fail "'$answer' got '$line', want /$want/"
done <<'CASES'
q1 = 12582912|hint: 8 times the answer: bits
q1 = 3145728|hint: twice the answer: something counted twice \(both phases
q1 = 2097152|hint: P where P-1 belongs
q1 = 6291456|hint: that is sent_total_B
q1 = 1.5|hint: that looks like MiB
q1 = "1.5 MiB"|format: write a number alone, without quotes or a unit: the answer is in bytes
q1 = "1572864"|format: write the number without quotes
q1 = nan|format: write a finite number
q7 = inf|format: write a finite number
q2 = 1048576|hint: that is sent_max_B \(what the busiest sender sends\): the question asks what the busiest receiver receives
q3 = 7|hint: off by one: count the first and the last again
q3 = 5|hint: off by one
q3 = 12|hint: twice the answer
q4 = "Sent_max_B"|format: "Sent_max_B" is written differently \(case, blanks\)
q4 = "sent_total_B/P"|format: "sent_total_B/P" is written differently
q4 = "sent_max"|format: "sent_max" lacks its unit
q4 = "None"|format: "None" is written differently
q4 = "sent_total_B"|hint: the question's own hint
q4 = 1572864|format: write a word in quotes
q5 = [10, 11, 12, 16]|hint: that is the buffer after step 0
q5 = [10, 64, 46, 16]|hint: that is the buffer after step 2
q5 = [30, 21, 22, 39]|hint: that is rank 2's buffer
q5 = [10, 11]|format: the buffer holds 4 elements; your list has 2
q5 = 10|format: write a list in brackets
q6 = 169286|hint: that looks like ns
q6 = 1234|hint: the question's own hint
q7 = 0.5; q8 = 500|hint: that looks like ns: the answer is in us \(compared with your q7\)
q7 = 0.5; q8 = 0.4|right
q9 = 1000; q10 = 33.5|hint: that looks like Gbit/s
q9 = 1000; q10 = 4194|hint: that looks like MB/s
q6 = 157.286|hint: the bytes' time alone: every step also costs alpha
q6 = 12|hint: alpha's time alone
q11 = 8192|hint: one size too small
q11 = 32768|hint: one size too large
q12 = 217.716|hint: twice the answer: something counted twice
q12 = 54.429|hint: half the answer: a phase, a direction, or half a round trip
CASES
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
# An instructor's question with a figure no answer can come from: one line, exit 2.
for spec in "GBps = 0|'GBps' must be a finite number > 0" "GBps = true|'GBps' is missing or not a number" \
            "count = true|'count' is missing or not a number"; do
  set_line=${spec%%|*} said=${spec#*|}
  printf 'title = "t"\n[[question]]\nid = "q1"\ntext = "t"\nhint = "h"\nask = "predict"\nalgorithm = "ring"\nP = 4\ncount = 262144\nalpha_us = 2\nGBps = 10\n' \
    | sed "s/^${set_line%% *} = .*/$set_line/" > "$TMP/q.toml"
  printf 'q1 = 1\n' > "$TMP/a.toml"
  "$BIN/grade" "$TMP/q.toml" "$TMP/a.toml" > /dev/null 2> "$TMP/err"; rc=$?
  [ $rc = 2 ] && [ "$(cat "$TMP/err")" = "error: $TMP/q.toml: question q1: $said" ] \
    && ok "a question with $set_line: refused in one line" || { fail "a question with $set_line (exit $rc)"; cat "$TMP/err"; }
done
exit $fails
