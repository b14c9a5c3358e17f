// Numbers from outside (flags, CSV files), read whole and computed without
// wrapping. Each answers "no value" instead of guessing: a sign, a space, a
// suffix, a value past the type, NaN or infinity. The callers turn that into
// their own one-line error (a UsageError, a ReportError). Locale-free
// (std::from_chars), so "1,5" is never 1.5 and "1.5" reads alike everywhere.
#pragma once
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

namespace commlab {

// Digits only: "12". Not "+12", " 12", "-1", "0x1f", nor past 2^64 - 1.
inline std::optional<uint64_t> whole_number(std::string_view text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  if (text.empty() || text[0] < '0' || text[0] > '9') return std::nullopt;
  auto [stop, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || stop != end) return std::nullopt;
  return v;
}

// A finite decimal number: "1.5", "-2", "1e3". Not "inf", "nan", "1e999", " 1".
inline std::optional<double> finite_number(std::string_view text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || stop != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

// a * b and a + b, or no value where the true result does not fit in 64 bits.
inline std::optional<uint64_t> product(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<uint64_t> sum(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Whether every one of n values is finite: a result that decides ok or FAIL
// looks here first, since NaN compares false with everything (a NaN
// "difference" is never above a tolerance).
template <class T>
bool all_finite(const T* v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(double(v[i]))) return false;
  return true;
}

}  // namespace commlab
