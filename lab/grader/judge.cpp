// Marking one answer: right; wrong, with the likely mistake where one
// matches (the slips); or in the wrong form, which is said as such, so that
// "3 MiB" for a number or "None" for "none" is not taken for a wrong idea.
#include "judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>

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
                                "critical path", "half the critical path",
                                "msgs",          "steps",
                                "none"};
  for (const Slip& slip : e.slips)
    if (slip.word == *s) return {Mark::wrong, slip.says};
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
  return {Mark::format, fmt::format("\"{}\" is not a field: use sent_max_B, recv_max_B, "
                                    "sent_total_B, \"sent_total_B / P\", \"critical path\", "
                                    "\"half the critical path\", msgs, steps or \"none\", "
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

// What a wrong number is, where a slip says: the slips that match it, if
// they agree; if two mistakes give the same number, the grader cannot tell
// which was made, and the question's hint (where to look) is better than a guess.
std::string slip_said(const Expected& e, const std::vector<double>& got) {
  std::string said;
  for (const Slip& slip : e.slips) {
    if (slip.numbers.size() != got.size()) continue;
    bool all = true;
    for (size_t i = 0; all && i < got.size(); ++i) {
      const double v = slip.numbers[i];
      if (e.any || e.range) {  // a measurement: as near as the answer must be
        all = e.range ? got[i] > 0 && v > 0 &&
                            std::fabs(std::log(got[i] / v)) <=
                                std::log(std::sqrt(1 / (1 - e.rel_tolerance)))
                      : e.near(got[i], v);
      } else {
        all = near(got[i], v, std::min(std::max(e.rel_tolerance, 1e-6), 0.005));
      }
    }
    if (!all) continue;
    if (!said.empty() && said != slip.says) return "";
    said = slip.says;
  }
  return said;
}

// A number that is not of the kind asked: not a power of two where a
// crossover is, not one of the table's sizes where a measured size is.
std::string kind_said(const Expected& e, double got) {
  if (e.power_of_two && got != 0 &&
      (got < 1 || got != std::floor(got) || (int64_t(got) & (int64_t(got) - 1)) != 0))
    return "that is not a power of two: the question asks the smallest power of two at which "
           "the first algorithm's time is below the other's";
  if (!e.sizes.empty() && got != 0 &&
      std::none_of(e.sizes.begin(), e.sizes.end(), [&](double s) { return s == got; }))
    return "that is not one of your table's sizes: give a size in bytes as your table lists "
           "them, or 0";
  return "";
}

}  // namespace

Marked judge(const Expected& e, const toml::node& answer, const std::string& typed) {
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
  if (!e.unchecked.empty()) return {Mark::unchecked, e.unchecked};
  if (const int has = e.figures && !e.list ? significant_figures(typed) : -1;
      has >= 0 && has < e.figures)
    return {Mark::format,
            fmt::format("{} has {} significant figure{}: the question asks for {}, trailing "
                        "zeros included (1.30, not 1.3, for 3)",
                        typed, has, has == 1 ? "" : "s", e.figures)};
  if (e.accepts(answer)) return {Mark::right, ""};
  // A slip names the mistake (64 for 65536: KiB); the kind only says the
  // number cannot be right, so it comes second.
  if (std::string said = slip_said(e, *got); !said.empty() || e.list) return {Mark::wrong, said};
  return {Mark::wrong, kind_said(e, got->front())};
}

// The slips of one number W in its unit: a unit taken for another. The
// question's own slips (questions/*.cpp, and [[question.slip]]) name the
// mistakes of its reasoning; a number's factor alone names none (twice the
// answer may be both phases, both directions, or a round trip), so none is
// guessed from a factor.
std::vector<Slip> number_slips(double W, const std::string& unit, const std::string& text) {
  std::vector<Slip> s;
  auto add = [&](double v, std::string says) {
    if (v != W && std::isfinite(v)) s.push_back({{v}, "", std::move(says)});
  };
  if (W == 0) return s;
  if (unit == "B") {
    add(8 * W, "that looks like bits: the question counts bytes");
    add(W / 1048576, "that looks like MiB: give the number of bytes");
    add(W / 1024, "that looks like KiB: give the number of bytes");
    add(W / 1e6, "that looks like MB: give the number of bytes");
    if (W == std::floor(W / 4) * 4)
      add(W / 4, "that looks like float32 elements: the question asks bytes");
    if (text.find("MiB") != std::string::npos)
      add(W * 1e6 / 1048576, "you took 1 MiB as 10^6 bytes: a MiB is 1048576 bytes");
  }
  if (unit == "us") {
    add(W * 1000, "that looks like ns: the answer is in us");
    add(W / 1000, "that looks like ms: the answer is in us");
    add(W / 1e6, "that looks like seconds: the answer is in us");
  }
  if (unit == "GB/s") {
    add(W * 8, "that looks like Gbit/s: the answer is in GB/s, bytes");
    add(W * 1000, "that looks like MB/s: the answer is in GB/s");
    add(W * 1e9 / 1073741824, "that looks like GiB/s: here 1 GB is 10^9 bytes");
    add(1 / (1000 * W),
        "that looks like beta, a time per byte in us: the question asks the "
        "bandwidth, 1/beta");
    add(1 / W,
        "that looks like beta, a time per byte in ns: the question asks the bandwidth, "
        "1/beta");
  }
  return s;
}

}  // namespace commlab::lab
