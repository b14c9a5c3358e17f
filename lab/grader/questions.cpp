#include "questions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>

#include "core/vocabulary/names.hpp"
#include "questions/buffer.hpp"
#include "questions/common.hpp"
#include "questions/crossover.hpp"
#include "questions/measured.hpp"
#include "questions/overlap.hpp"
#include "questions/predict.hpp"
#include "questions/ps_bytes.hpp"
#include "questions/range.hpp"
#include "questions/taught.hpp"
#include "questions/traffic.hpp"

namespace commlab::lab {

namespace {

// The kinds of question, by the name a questions file gives in `ask`; each
// is computed in its own file (questions/), compute() below sends it there.
const Names<Ask> kAsks = {
    {Ask::traffic, "traffic"}, {Ask::buffer, "buffer"},       {Ask::taught, "taught"},
    {Ask::predict, "predict"}, {Ask::crossover, "crossover"}, {Ask::ps_bytes, "ps_bytes"},
    {Ask::range, "range"},     {Ask::measured, "measured"},   {Ask::overlap, "overlap"}};

// ---- Slips a question declares ([[question.slip]]), and the check of all ---

Expected compute(const Question& q, const Context& c);

// Each is the question asked again with some parameters changed (another
// field, another algorithm, a x alpha + b x N x beta, another row), its
// result times `scale`; or a taught question's wrong `word`.
std::vector<Slip> declared_slips(const Question& q, const Context& c) {
  std::vector<Slip> slips;
  const toml::array* all = q.spec["slip"].as_array();
  if (!all) return slips;
  for (const toml::node& node : *all) {
    const toml::table* t = node.as_table();
    const auto says = t ? (*t)["says"].value<std::string>() : std::nullopt;
    if (!says) throw bad(q, "a [[question.slip]] without 'says'");
    if (auto word = (*t)["word"].value<std::string>()) {
      slips.push_back({{}, *word, *says});
      continue;
    }
    Question variant = q;
    variant.spec.erase("slip");
    for (const auto& [key, value] : *t)
      if (key.str() != "says" && key.str() != "scale") variant.spec.insert_or_assign(key, value);
    const Expected v = compute(variant, c);
    if (!v.unchecked.empty()) continue;
    const double scale = (*t)["scale"].value_or(1.0);
    if (v.list) {
      slips.push_back({v.numbers, "", *says});
      continue;
    }
    for (double n : v.numbers) slips.push_back({{n * scale}, "", *says});
  }
  return slips;
}

bool same_numbers(const std::vector<double>& a, const std::vector<double>& b) { return a == b; }

// The slips a judge can tell from a right answer, the question's own
// first: one of the number's that the question's declares too is dropped.
// A computed answer's slip that lands within kSlipMargin tolerances of it
// is refused: a student who made it would be marked right, or could not be
// told apart from one who rounded, so the question's numbers must change.
void settle(const Question& q, Expected& e, std::vector<Slip> declared) {
  std::vector<Slip> kept;
  auto too_near = [&](const Slip& s) {
    if (e.list || s.numbers.size() != 1) return same_numbers(s.numbers, e.numbers);
    for (double answer : e.numbers) {
      // A measurement's slip that a right answer would be taken for; a
      // computed one's that a rounded right answer could be told from.
      if (e.any ? e.near(s.numbers.front(), answer)
                : std::fabs(s.numbers.front() - answer) <=
                      std::max(kSlipMargin * e.rel_tolerance * std::fabs(answer), 1e-9))
        return true;
    }
    return false;
  };
  for (const Slip& s : declared) {
    if (!s.word.empty()) {
      if (std::find(e.words.begin(), e.words.end(), s.word) != e.words.end())
        throw bad(q, fmt::format("the slip word \"{}\" is a right answer: drop the slip", s.word));
      kept.push_back(s);
    } else if (too_near(s)) {
      if (!e.any)
        throw bad(q, fmt::format("the slip '{}' lands within {} times the tolerance of the "
                                 "answer: change the question's numbers, or drop the slip",
                                 s.says, kSlipMargin));
    } else {
      kept.push_back(s);
    }
  }
  for (const Slip& s : e.slips) {
    if (s.numbers.empty() || std::any_of(declared.begin(), declared.end(), [&](const Slip& d) {
          return same_numbers(d.numbers, s.numbers);
        }))
      continue;
    const bool equal = e.list ? same_numbers(s.numbers, e.numbers)
                              : std::find(e.numbers.begin(), e.numbers.end(), s.numbers.front()) !=
                                    e.numbers.end();
    if (equal || (e.any && too_near(s))) continue;  // the answer itself, or a run's figure
    if (too_near(s) && !e.range)
      throw bad(q, fmt::format("the slip '{}' lands within {} times the tolerance of the answer: "
                               "change the question's numbers until it shows",
                               s.says, kSlipMargin));
    if (std::none_of(kept.begin(), kept.end(), [&](const Slip& k) {
          return same_numbers(k.numbers, s.numbers) && k.says == s.says;
        }))
      kept.push_back(s);
  }
  e.slips = kept;
}

Expected compute(const Question& q, const Context& c) {
  switch (q.ask) {
    case Ask::traffic:
      return traffic(q);
    case Ask::buffer:
      return buffer(q);
    case Ask::taught:
      return taught(q);
    case Ask::predict:
      return predict(q);
    case Ask::crossover:
      return crossover(q);
    case Ask::ps_bytes:
      return ps_bytes(q);
    case Ask::range:
      return plausible(q, c.answers);
    case Ask::measured:
      return measured(q, c);
    case Ask::overlap:
      return overlap(q);
  }
  throw std::logic_error("an ask without a case");
}

}  // namespace

toml::table read_toml(const std::string& path, const std::string& hint) {
  if (!std::ifstream(path)) throw UsageError(path + ": cannot be read");
  try {
    return toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw UsageError(fmt::format("{}:{}: {}{}", path, e.source().begin.line, e.description(),
                                 hint.empty() ? "" : " (" + hint + ")"));
  }
}

QuestionSet read_questions(const std::string& path) {
  const toml::table doc = read_toml(path);
  QuestionSet set{doc["title"].value_or(std::string(path)), 0, {}};
  const auto version = doc["version"].value<int64_t>();
  if (!version || doc["version"].is_boolean() || *version < 1)
    throw UsageError(path +
                     ": no version: write 'version = 1' at the top, and raise it whenever a "
                     "question's meaning changes");
  set.version = *version;
  const toml::array* all = doc["question"].as_array();
  if (!all || all->empty()) throw UsageError(path + ": no [[question]] tables");
  for (const toml::node& node : *all) {
    const toml::table* t = node.as_table();
    Question q{(*t)["id"].value_or(std::string()), (*t)["text"].value_or(std::string()),
               (*t)["hint"].value_or(std::string()), Ask::range, *t};
    if (q.id.empty()) throw UsageError(path + ": a question without an id");
    if (q.id == "version") throw UsageError(path + ": 'version' is not a question's id");
    try {
      q.ask = parse_in(kAsks, need<std::string>(q, "ask"), "ask");
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: question {}: {}", path, q.id, e.what()));
    }
    set.questions.push_back(std::move(q));
  }
  return set;
}

Expected expected(const Question& q, const Context& c) {
  Expected e = compute(q, c);
  std::smatch m;  // "... to 3 significant figures"
  if (std::regex_search(q.text, m, std::regex(R"(to (\d) significant figures)")))
    e.figures = m[1].str()[0] - '0';
  if (e.unchecked.empty()) settle(q, e, declared_slips(q, c));
  return e;
}

std::vector<std::string> escapes(const Question& q, const Context& c) {
  return careless_readings(q, c);
}

std::vector<Expected> expected_all(const QuestionSet& set, const Context& c) {
  std::vector<Expected> all;
  for (const Question& q : set.questions) all.push_back(expected(q, c));
  // An answer copied from another measurement's row.
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = 0; j < all.size(); ++j) {
      const Question &qi = set.questions[i], &qj = set.questions[j];
      if (i == j || !all[i].any || !all[j].any || all[i].unit != all[j].unit ||
          qi.spec["column"].value_or(std::string()) != qj.spec["column"].value_or(std::string()))
        continue;
      for (double v : all[j].numbers) {
        Slip s{{v},
               "",
               fmt::format("that is the figure {} asks for: which one does this question "
                           "ask?",
                           set.questions[j].id)};
        const bool near_answer = std::any_of(all[i].numbers.begin(), all[i].numbers.end(),
                                             [&](double a) { return all[i].near(v, a); });
        const bool said = std::any_of(all[i].slips.begin(), all[i].slips.end(), [&](const Slip& o) {
          return o.numbers.size() == 1 && all[i].near(v, o.numbers.front());
        });
        if (!near_answer && !said) all[i].slips.push_back(s);
      }
    }
  return all;
}

}  // namespace commlab::lab
