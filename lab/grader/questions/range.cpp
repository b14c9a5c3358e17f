#include "range.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common.hpp"
#include "lab/grader/judge.hpp"

namespace commlab::lab {

// A figure no output records: plausible from lo to hi; where it is `like`
// another answer (alpha like the smallest message's time; a bandwidth like
// the bytes over the largest one's time), within a factor `within` of that
// answer times `times` (or `times` over it, `inverse`), so that a unit slip shows.
Expected plausible(const Question& q, const toml::table* answers) {
  Expected e;
  e.unit = optional<std::string>(q, "unit", "");
  e.range = {need_positive(q, "lo"), need_positive(q, "hi")};
  const std::string like = optional<std::string>(q, "like", "");
  if (like.empty() || !answers) return e;
  const auto other = (*answers)[like].value<double>();
  if (!other || !std::isfinite(*other) || *other <= 0) return e;
  const double times = optional<double>(q, "times", 1.0),
               within = optional<double>(q, "within", 3.0);
  if (!(times > 0) || !(within > 1)) throw bad(q, "'times' must be above 0 and 'within' above 1");
  const double center = optional<bool>(q, "inverse", false) ? times / *other : times * *other;
  const std::pair<double, double> near_other{std::max(e.range->first, center / within),
                                             std::min(e.range->second, center * within)};
  if (near_other.first > near_other.second) return e;  // the other answer is implausible itself
  e.range = near_other;
  e.rel_tolerance = 1 - 1 / within;  // a slip matches within sqrt(within) (judge.cpp)
  // Only slips far enough that their band misses the answer's (a unit's).
  for (Slip& slip : number_slips(center, e.unit))
    if (std::fabs(std::log(slip.numbers.front() / center)) > 1.5 * std::log(within)) {
      slip.says += fmt::format(" (compared with your {})", like);
      e.slips.push_back(slip);
    }
  return e;
}

}  // namespace commlab::lab
