#include "crossover.hpp"

#include <fmt/format.h>

#include "common.hpp"
#include "predict.hpp"

namespace commlab::lab {

namespace {

// The powers of two on either side of a crossover are the likely slips: a
// size where it is not below yet, or one past the smallest.
Expected crossing(const Question& q, double N) {
  const std::string a = need<std::string>(q, "algorithm"), v = need<std::string>(q, "versus");
  Expected e = number(N, "B", q.text);
  e.power_of_two = true;
  e.slips.insert(e.slips.begin(),
                 {{{N / 2},
                   "",
                   fmt::format("at that size {}'s predicted time is not below {}'s yet: compute "
                               "both there",
                               a, v)},
                  {{N * 2},
                   "",
                   fmt::format("{} is below {} there, and already at a smaller power of two: the "
                               "question asks the smallest",
                               a, v)}});
  return e;
}

}  // namespace

Expected crossover(const Question& q) {
  const int64_t from_B = need_within(q, "from_B", 4, int64_t(1) << 40),
                to_B = need_within(q, "to_B", from_B, int64_t(1) << 40);
  for (int64_t N = from_B; N <= to_B; N *= 2)
    if (predicted_us(q, "algorithm", size_t(N / 4)) < predicted_us(q, "versus", size_t(N / 4)))
      return crossing(q, double(N));
  Expected e = number(0, "B", q.text);
  e.power_of_two = true;
  return e;
}

}  // namespace commlab::lab
