// Marking one answer: right; wrong, with the likely mistake where one
// matches (the slips); or in the wrong form, which is said as such, so that
// "3 MiB" for a number or "None" for "none" is not taken for a wrong idea.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "questions.hpp"

namespace commlab::lab {

namespace {

bool near(double got, double want, double rel) {
  return std::fabs(got - want) <= std::max(rel * std::fabs(want), 1e-9);
}

// Lower case and without blanks: "Sent_total_B/P" as "sent_total_b/p".
std::string lower(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The student's numbers, or none where the answer is not numbers.
std::optional<std::vector<double>> numbers_of(const toml::node& answer) {
  if (const toml::array* a = answer.as_array()) {
    std::vector<double> v;
    for (const toml::node& x : *a)
      if (auto d = x.value<double>(); d && !x.is_boolean())
        v.push_back(*d);
      else
        return std::nullopt;
    return v;
  }
  if (answer.is_boolean()) return std::nullopt;
  if (auto d = answer.value<double>()) return std::vector<double>{*d};
  return std::nullopt;
}

// A word where a word is wanted: which are right, which are a format slip.
Marked judge_word(const Expected& e, const toml::node& answer) {
  const auto s = answer.value<std::string>();
  if (!s)
    return {Mark::format,
            "write a word in quotes: a field's name as the table spells it, "
            "or \"none\""};
  if (std::find(e.words.begin(), e.words.end(), *s) != e.words.end()) return {Mark::right, ""};
  static const char* known[] = {"sent_max_B",    "recv_max_B",
                                "sent_total_B",  "sent_total_B / P",
                                "critical path", "one phase's critical path (half)",
                                "msgs",          "steps",
                                "none"};
  for (const char* k : known) {
    if (*s == k) return {Mark::wrong, ""};
    if (lower(*s) == lower(k))
      return {Mark::format, fmt::format("\"{}\" is written differently (case, blanks): names are "
                                        "spelt as the table spells them",
                                        *s)};
    if (lower(*s) + "_b" == lower(k))
      return {Mark::format, fmt::format("\"{}\" lacks its unit: names of byte counts end in _B, "
                                        "as the table spells them",
                                        *s)};
  }
  return {Mark::format,
          fmt::format("\"{}\" is not a field: use sent_max_B, recv_max_B, "
                      "sent_total_B, \"sent_total_B / P\", \"critical path\", "
                      "\"one phase's critical path (half)\", msgs, steps or \"none\", "
                      "as the report's \"T is\" column spells them",
                      *s)};
}

// A string where numbers are wanted: what form would be right.
std::string number_form(const Expected& e, const std::string& s) {
  const std::string unit = e.unit == "B" ? "bytes" : e.unit.empty() ? "a count" : e.unit;
  const std::string is = e.unit.empty() ? "is " : "is in ";
  if (e.list) return "write the list in brackets, numbers without quotes: [a, b, ...]";
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  if (end != s.c_str() && *end == '\0') return "write the number without quotes";
  if (end != s.c_str())
    return fmt::format("write a number alone, without quotes or a unit: the answer {}{}", is, unit);
  return fmt::format("write a number (in {}), not a word", unit);
}

}  // namespace

Marked judge(const Expected& e, const toml::node& answer) {
  if (!e.words.empty()) return judge_word(e, answer);
  const auto got = numbers_of(answer);
  if (!got) {
    if (auto s = answer.value<std::string>()) return {Mark::format, number_form(e, *s)};
    return {Mark::format, e.list ? "write a list of numbers in brackets: [a, b, ...]"
                                 : "write one number, not a list or a word"};
  }
  if (!e.list && (got->size() != 1 || answer.is_array()))
    return {Mark::format, "write one number, not a list"};
  if (e.list && !answer.is_array()) return {Mark::format, "write a list in brackets: [a, b, ...]"};
  if (std::any_of(got->begin(), got->end(), [](double v) { return !std::isfinite(v); }))
    return {Mark::format, "write a finite number: nan and inf are not answers"};
  if (e.list && got->size() != e.numbers.size())
    return {Mark::format,
            fmt::format("the buffer holds {} element{}; your list has {}", e.numbers.size(),
                        e.numbers.size() == 1 ? "" : "s", got->size())};
  if (e.accepts(answer)) return {Mark::right, ""};
  for (const Slip& slip : e.slips) {
    if (e.range) {  // a measurement: a slip matches within the range's own factor
      const double got1 = got->front(), v = slip.numbers.front(),
                   spread = std::sqrt(1 / (1 - e.rel_tolerance));
      if (got1 > 0 && v > 0 && std::fabs(std::log(got1 / v)) <= std::log(spread))
        return {Mark::wrong, slip.says};
      continue;
    }
    // A slip as close to the answer as the tolerance cannot be told from it.
    if (!e.list && near(slip.numbers.front(), e.numbers.front(), 2 * e.rel_tolerance)) continue;
    bool all = slip.numbers.size() == got->size();
    const double within = std::min(std::max(e.rel_tolerance, 1e-6), 0.005);
    for (size_t i = 0; all && i < got->size(); ++i) all = near((*got)[i], slip.numbers[i], within);
    if (all) return {Mark::wrong, slip.says};
  }
  return {Mark::wrong, ""};
}

// The slips of one number W, for P ranks, in the order they are tried: the
// first to match is the likelier (at P = 2, P x W is also 2 x W).
std::vector<Slip> number_slips(double W, int P, const std::string& unit) {
  std::vector<Slip> s;
  auto add = [&](double v, std::string says) {
    if (v != W && std::isfinite(v)) s.push_back({{v}, std::move(says)});
  };
  if (W == 0) return s;
  if (unit == "B") {
    add(8 * W, "8 times the answer: bits? The tool counts bytes");
    add(W / 1048576, "that looks like MiB: give bytes");
    add(W / 1e6, "that looks like MB: give bytes");
    add(W * 1e6 / 1048576, "10^6 where 2^20 belongs? 1 MiB is 1048576 bytes");
  }
  if (unit == "us") {
    add(W * 1000, "that looks like ns: the answer is in us");
    add(W / 1000, "that looks like ms: the answer is in us");
  }
  if (unit == "GB/s") {
    add(W * 8, "that looks like Gbit/s: the answer is in GB/s, bytes");
    add(W * 1000, "that looks like MB/s: the answer is in GB/s");
  }
  // At P = 2 the P slips are the twice and half ones, which say it better.
  if (P > 2 && !unit.empty()) {  // a count of steps or messages has no N/P
    add(W * P / (P - 1), "P where P-1 belongs? A rank sends nothing to itself");
    add(W * P, "P times the answer: N where N/P belongs, or every rank where one is asked?");
    add(W / P, "1/P of the answer: N/P where N belongs, or one rank where all are asked?");
    add(W * (P - 1) / P, "P-1 where P belongs?");
  }
  add(2 * W,
      "twice the answer: something counted twice (both phases, both directions, a "
      "round trip where one way is asked)?");
  add(W / 2, "half the answer: a phase, a direction, or half a round trip left out?");
  if (unit.empty() && W == std::floor(W)) {
    add(W + 1, "off by one: count the first and the last again");
    add(W - 1, "off by one: count the first and the last again");
  }
  return s;
}

}  // namespace commlab::lab
