#include "question.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

namespace commlab::lab {

std::string format_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9e15) return fmt::format("{}", int64_t(v));
  return fmt::format("{:.6g}", v);
}

int significant_figures(const std::string& typed) {
  for (const char* base : {"0x", "0o", "0b"})
    if (typed.find(base) != std::string::npos) return -1;  // an integer in another base
  std::string mantissa = typed.substr(0, typed.find_first_of("eE"));
  const bool point = mantissa.find('.') != std::string::npos;
  if (!point && mantissa.size() == typed.size()) return -1;  // an integer
  mantissa.erase(
      std::remove_if(mantissa.begin(), mantissa.end(),
                     [](char ch) { return !std::isdigit(static_cast<unsigned char>(ch)); }),
      mantissa.end());
  const size_t first = mantissa.find_first_not_of('0');
  return first == std::string::npos ? -1 : int(mantissa.size() - first);  // 0.00: as written
}

bool Expected::near(double got, double want) const {
  return std::fabs(got - want) <= std::max({rel_tolerance * std::fabs(want), abs_tolerance, 1e-9});
}

bool Expected::accepts(const toml::node& answer) const {
  if (!words.empty()) {
    auto s = answer.value<std::string>();
    return s && std::find(words.begin(), words.end(), *s) != words.end();
  }
  if (list) {
    const toml::array* a = answer.as_array();
    if (!a || a->size() != numbers.size()) return false;
    for (size_t i = 0; i < numbers.size(); ++i) {
      auto v = (*a)[i].value<double>();
      if (!v || !near(*v, numbers[i])) return false;
    }
    return true;
  }
  auto v = answer.value<double>();
  if (!v || !std::isfinite(*v)) return false;
  if (range) return *v >= range->first && *v <= range->second;
  return std::any_of(numbers.begin(), numbers.end(), [&](double n) { return near(*v, n); });
}

double Expected::key_number() const {
  if (!range) return numbers.empty() ? 0 : numbers.back();
  return range->first > 0 ? std::sqrt(range->first * range->second)
                          : (range->first + range->second) / 2;
}

std::string Expected::key_value() const {
  // As many figures as the question asks: 1.50, not 1.5 (judge's format slip).
  auto shown = [&](double v) {
    const std::string plain = format_number(v);
    const int has = significant_figures(plain);
    return has >= 0 && has < figures ? fmt::format("{:#.{}g}", v, figures) : plain;
  };
  if (!words.empty()) return fmt::format("\"{}\"", words.front());
  if (range)
    return fmt::format("{:.3g}  # plausible: any value from {} to {}", key_number(),
                       format_number(range->first), format_number(range->second));
  if (any) {
    std::string runs;
    for (double n : numbers) runs += (runs.empty() ? "" : ", ") + format_number(n);
    return fmt::format("{}  # measured: {}", shown(numbers.back()),
                       numbers.size() > 1 ? "any of the runs' " + runs : "your run's");
  }
  if (!list) return shown(numbers.front());
  std::string s = "[";
  for (size_t i = 0; i < numbers.size(); ++i) s += (i ? ", " : "") + format_number(numbers[i]);
  return s + "]";
}

}  // namespace commlab::lab
