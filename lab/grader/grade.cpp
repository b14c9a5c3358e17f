// grade: the lab's grader. `grade QUESTIONS ANSWERS` marks each answer right
// or wrong, saying the likely mistake where it knows one (judge.cpp), the
// question's hint otherwise, and a form problem as such; `grade --key
// QUESTIONS` writes the answer key, computed, never typed in; `--template`
// a blank answers file for the student. The formats are
// in lab/README.md. Exit status: 0 all right, 1 some wrong or missing, 2 bad
// input (one line).
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "core/errors.hpp"
#include "harness/host.hpp"
#include "questions.hpp"

using namespace commlab;
using namespace commlab::lab;

namespace {

// The right answer, or a UsageError that names the questions file.
Expected answer_of(const std::string& path, const Question& q,
                   const toml::table* answers = nullptr) {
  try {
    return expected(q, answers);
  } catch (const UsageError& e) {
    throw UsageError(path + ": " + e.what());
  }
}

void print_key(const std::string& path, const QuestionSet& set) {
  fmt::print("# The answer key of {}: {}\n", path, set.title);
  fmt::print("# written by build/bin/grade --key (commlab {}), from the tool's own runs.\n",
             commlab_version());
  // A measurement like another answer is keyed from that answer's key:
  // every answer once, then those again.
  toml::table keyed;
  std::vector<Expected> keys;
  for (const Question& q : set.questions) {
    keys.push_back(answer_of(path, q));
    if (keys.back().words.empty() && !keys.back().list)
      keyed.insert(q.id, keys.back().key_number());
  }
  for (size_t i = 0; i < set.questions.size(); ++i) {
    const Question& q = set.questions[i];
    if (q.spec.contains("like")) keys[i] = answer_of(path, q, &keyed);
    fmt::print("\n# {}\n", q.text);
    fmt::print("{} = {}\n", q.id, keys[i].key_value());
  }
}

// A blank answers file: each question's text, and its id to fill in.
void print_template(const QuestionSet& set) {
  fmt::print(
      "# {}: your answers. Write each after its '=' (a number, [a list], or \"a word\"),\n"
      "# and remove the '#' in front of it.\n",
      set.title);
  for (const Question& q : set.questions) fmt::print("\n# {}\n# {} =\n", q.text, q.id);
}

// Right, wrong or missing, one line each; true when all are right.
bool mark(const std::string& path, const std::string& answers_path, const QuestionSet& set) {
  const toml::table answers =
      read_toml(answers_path, "answers are TOML: id = 42, id = [1, 2] with commas, id = \"word\"");
  for (const auto& [id, value] : answers) {
    bool known = false;
    for (const Question& q : set.questions) known |= q.id == id.str();
    if (!known)
      throw UsageError(fmt::format("{}: no question '{}' in this lab", answers_path, id.str()));
  }
  fmt::print("{}\n", set.title);
  int right = 0;
  for (const Question& q : set.questions) {
    const toml::node* answer = answers.get(q.id);
    if (!answer) {
      fmt::print("  {:<6} missing   {}\n", q.id, q.text);
      continue;
    }
    const Marked m = judge(answer_of(path, q, &answers), *answer);
    if (m.mark == Mark::right) {
      ++right;
      fmt::print("  {:<6} right\n", q.id);
    } else if (m.mark == Mark::format) {
      fmt::print("  {:<6} wrong     format: {}\n", q.id, m.why);
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
  bool key = false, blank = false;
  app.add_option("questions", questions, "the lab's questions (lab/NN-name/questions.toml)")
      ->required();
  app.add_option("answers", answers, "your answers (TOML: id = value)");
  app.add_flag("--key", key, "write the answer key instead");
  app.add_flag("--template", blank, "write a blank answers file instead");
  try {
    app.parse(argc, argv);
    if (int(key) + int(blank) + int(!answers.empty()) != 1)
      throw UsageError("give ANSWERS to mark, or --key, or --template");
    const QuestionSet set = read_questions(questions);
    if (blank) {
      print_template(set);
      return 0;
    }
    if (key) {
      print_key(questions, set);
      return 0;
    }
    return mark(questions, answers, set) ? 0 : 1;
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
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
