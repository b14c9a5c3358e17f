// grade: the lab's grader. `grade QUESTIONS ANSWERS` marks each answer right
// or wrong, saying the mistake where it can tell which (judge.cpp), the
// question's hint otherwise, and a form problem as such; a measurement is
// checked against the student's own run, which the lab's commands wrote into
// lab-out/ (--outputs). `grade --key QUESTIONS` writes the answer key,
// computed, never typed in; `--template` a blank answers file for the
// student, carrying the version of the questions it answers; `--hints` every
// message a wrong answer can get; `--escapes` the measured answers that a
// careless reading of the rows (the worst call's, the mean's, another
// size's) would land on. The formats are in lab/README.md. Exit
// status: 0 all right, 1 some wrong or missing, 2 bad input (one line).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "core/comm/errors.hpp"
#include "harness/host.hpp"
#include "harness/version.hpp"
#include "questions.hpp"

using namespace commlab;
using namespace commlab::lab;

namespace {

// Every answer, or a UsageError that names the questions file.
std::vector<Expected> answers_of(const std::string& path, const QuestionSet& set,
                                 const Context& c) {
  try {
    return expected_all(set, c);
  } catch (const UsageError& e) {
    throw UsageError(path + ": " + e.what());
  }
}

void print_key(const std::string& path, const QuestionSet& set, const Context& c) {
  fmt::print("# The answer key of {}: {}\n", path, set.title);
  fmt::print("# written by build/bin/grade --key (commlab {}), from the tool's own runs;\n",
             commlab_version());
  fmt::print("# measurements from {}/.\nversion = {}\n", c.outputs, set.version);
  // A range like another answer is keyed from that answer's key: every
  // answer once, then those again.
  std::vector<Expected> keys = answers_of(path, set, c);
  toml::table keyed;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i].words.empty() && !keys[i].list && keys[i].unchecked.empty())
      keyed.insert(set.questions[i].id, keys[i].key_number());
  Context with_keys = c;
  with_keys.answers = &keyed;
  const std::vector<Expected> again = answers_of(path, set, with_keys);
  for (size_t i = 0; i < set.questions.size(); ++i) {
    const Question& q = set.questions[i];
    const Expected& k = q.spec.contains("like") ? again[i] : keys[i];
    fmt::print("\n# {}\n", q.text);
    if (!k.unchecked.empty())
      fmt::print("# {} = ?  (unchecked: {})\n", q.id, k.unchecked);
    else
      fmt::print("{} = {}\n", q.id, k.key_value());
  }
}

// A blank answers file: the version of the questions, then each question's
// text and its id to fill in.
void print_template(const QuestionSet& set) {
  fmt::print(
      "# {}: your answers. Write each after its '=' (a number, [a list], or \"a word\"),\n"
      "# and remove the '#' in front of it. Leave the version as it is: it says which\n"
      "# questions these answers are for.\n"
      "version = {}\n",
      set.title, set.version);
  for (const Question& q : set.questions) fmt::print("\n# {}\n# {} =\n", q.text, q.id);
}

// Every message a wrong answer to each question can get, tab-separated: its
// hint, and each slip with the answer that gets it (the tests hold every
// one to naming a mistake, never a ratio to the right answer).
void print_hints(const std::string& path, const QuestionSet& set, const Context& c) {
  const std::vector<Expected> all = answers_of(path, set, c);
  for (size_t i = 0; i < all.size(); ++i) {
    const Question& q = set.questions[i];
    fmt::print("{}\thint\t\t{}\n", q.id, q.hint);
    // What an answer of the wrong kind is told: not a power of two, not a size of the table.
    const Expected& e = all[i];
    if (e.power_of_two || !e.sizes.empty())
      fmt::print("{}\tkind\t\t{}\n", q.id,
                 judge(e, toml::value<double>(e.power_of_two ? 3.0 : e.sizes.front() + 1)).why);
    for (const Slip& s : all[i].slips) {
      std::string got = s.word.empty() ? "" : "\"" + s.word + "\"";
      for (size_t k = 0; k < s.numbers.size(); ++k)
        got += fmt::format("{}{:.10g}", k ? ", " : "", s.numbers[k]);
      fmt::print("{}\tslip\t{}\t{}\n", q.id, s.numbers.size() > 1 ? "[" + got + "]" : got, s.says);
    }
  }
}

// An answers file for these questions, as they are now: one line, exit 2, if not.
void check_version(const toml::table& answers, const std::string& answers_path,
                   const std::string& path, const QuestionSet& set) {
  const std::string start = fmt::format(
      "start from the current template (build/bin/grade --template {}) and copy your answers "
      "into it",
      path);
  const toml::node* v = answers.get("version");
  if (!v)
    throw UsageError(fmt::format("{}: no version line: these questions are version {}; {}",
                                 answers_path, set.version, start));
  const auto n = v->value<int64_t>();
  if (!n || v->is_boolean() || !v->is_integer())
    throw UsageError(fmt::format("{}: the version must be a whole number, version = {}; {}",
                                 answers_path, set.version, start));
  if (*n != set.version)
    throw UsageError(
        fmt::format("{}: answers to version {} of these questions, which are "
                    "version {} now (a question's meaning changed); {}",
                    answers_path, *n, set.version, start));
}

// A number as the student typed it (1.30 where TOML reads 1.3); "" for a
// list, a word or a place not found.
std::string typed(const std::vector<std::string>& lines, const toml::node& answer) {
  if (!answer.is_number()) return "";
  const toml::source_position at = answer.source().begin;
  if (at.line < 1 || at.line > lines.size()) return "";
  const std::string& line = lines[at.line - 1];
  if (at.column < 1 || at.column > line.size()) return "";
  const std::string from = line.substr(at.column - 1);
  return from.substr(0, from.find_first_of(" \t,]#\r"));
}

// grade --escapes: 1 if a careless reading lands on an answer, 2 if a
// measured question could not be read (its file missing: nothing checked).
int print_escapes(const QuestionSet& set, const Context& c) {
  bool any = false, unread = false;
  for (const Question& q : set.questions) {
    if (q.ask != Ask::measured) continue;
    if (const Expected e = expected(q, c); !e.unchecked.empty()) {
      fmt::print(stderr, "{}: not checked: {}\n", q.id, e.unchecked);
      unread = true;
      continue;
    }
    for (const std::string& line : escapes(q, c)) fmt::print("{}\n", line), any = true;
  }
  return unread ? 2 : any ? 1 : 0;
}

// Right, wrong or missing, one line each; true when all are right.
bool mark(const std::string& path, const std::string& answers_path, const QuestionSet& set,
          Context c) {
  const toml::table answers =
      read_toml(answers_path, "answers are TOML: id = 42, id = [1, 2] with commas, id = \"word\"");
  check_version(answers, answers_path, path, set);
  for (const auto& [id, value] : answers) {
    bool known = id.str() == "version";
    for (const Question& q : set.questions) known |= q.id == id.str();
    if (!known)
      throw UsageError(fmt::format("{}: no question '{}' in this lab", answers_path, id.str()));
  }
  c.answers = &answers;
  const std::vector<Expected> all = answers_of(path, set, c);
  std::vector<std::string> lines;  // the answers as typed, for their figures
  std::ifstream in(answers_path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  fmt::print("{}\n", set.title);
  int right = 0;
  for (size_t i = 0; i < set.questions.size(); ++i) {
    const Question& q = set.questions[i];
    const toml::node* answer = answers.get(q.id);
    if (!answer) {
      fmt::print("  {:<6} missing   {}\n", q.id, q.text);
      continue;
    }
    const Marked m = judge(all[i], *answer, typed(lines, *answer));
    if (m.mark == Mark::right) {
      ++right;
      fmt::print("  {:<6} right\n", q.id);
    } else if (m.mark == Mark::format) {
      fmt::print("  {:<6} wrong     format: {}\n", q.id, m.why);
    } else if (m.mark == Mark::unchecked) {
      fmt::print("  {:<6} unchecked {}\n", q.id, m.why);
    } else {
      fmt::print("  {:<6} wrong     hint: {}\n", q.id,
                 !m.why.empty()    ? m.why
                 : !q.hint.empty() ? q.hint
                                   : q.text);
    }
  }
  fmt::print("{} of {} right\n", right, set.questions.size());
  return right == int(set.questions.size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Marks a lab's answers, or writes its answer key", "grade");
  std::string questions, answers;
  bool key = false, blank = false, hints = false, careless = false;
  Context c;
  app.add_option("questions", questions, "the lab's questions (lab/NN-name/questions.toml)")
      ->required();
  app.add_option("answers", answers, "your answers (TOML: version = N, then id = value)");
  app.add_flag("--key", key, "write the answer key instead");
  app.add_flag("--template", blank, "write a blank answers file instead");
  app.add_flag("--hints", hints, "list every message a wrong answer can get instead");
  app.add_flag("--escapes", careless,
               "list the measured answers a careless reading of the rows lands on (the worst "
               "call's, the mean's, another size's) instead; exit 1 if any");
  app.add_option("--outputs", c.outputs,
                 "the folder the lab's commands wrote your measurements into (default lab-out)");
  app.set_version_flag("--version", version_text("grade"));
  try {
    app.parse(argc, argv);
    if (int(key) + int(blank) + int(hints) + int(careless) + int(!answers.empty()) != 1)
      throw UsageError("give ANSWERS to mark, or --key, --template, --hints or --escapes");
    const QuestionSet set = read_questions(questions);
    if (blank) {
      print_template(set);
      return 0;
    }
    if (careless) return print_escapes(set, c);
    if (key || hints) {
      key ? print_key(questions, set, c) : print_hints(questions, set, c);
      return 0;
    }
    return mark(questions, answers, set, c) ? 0 : 1;
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return 0;
  } catch (const CLI::CallForVersion& e) {
    fmt::print("{}\n", e.what());
    return 0;
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
  } catch (const UsageError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
  } catch (const std::exception& e) {  // a question the algorithms cannot run: a bug of ours
    fmt::print(stderr, "error: {}: {}\n", questions, e.what());
  }
  return kExitUsage;
}
