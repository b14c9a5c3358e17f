// libFuzzer target: sizes and counts as users type them ("4K", "1:16M",
// "4,8,15") and the size ladder between them. Each parse gives a value or a
// UsageError; a ladder is sorted, within MIN:MAX, without repeats, and ends.
#include <cstdint>
#include <string>

#include "core/comm/errors.hpp"
#include "core/vocabulary/numbers.hpp"
#include "harness/options.hpp"

using namespace commlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const size_t colon = text.find(':');
  try {
    const size_t lo = parse_size(text.substr(0, colon));
    const size_t hi = colon == std::string::npos ? lo : parse_size(text.substr(colon + 1));
    const double factor = size > 2 ? kFactorMin + data[size - 1] % 64 : 2;
    const auto sizes = size_range(lo, hi, factor);
    if (sizes.empty() || sizes.front() != lo) __builtin_trap();
    for (size_t i = 1; i < sizes.size(); ++i)
      if (sizes[i] <= sizes[i - 1] || sizes[i] > hi) __builtin_trap();
  } catch (const UsageError&) {
  }
  try {
    parse_count(text, "-n");
  } catch (const UsageError&) {
  }
  try {
    const double v = parse_finite(text, -1e300, 1e300, "-f");
    if (!(v >= -1e300 && v <= 1e300)) __builtin_trap();
  } catch (const UsageError&) {
  }
  if (auto v = whole_number(text); v && text.find_first_not_of("0123456789") != std::string::npos)
    __builtin_trap();
  return 0;
}
