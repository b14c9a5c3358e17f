#include "formulas.hpp"

#include <fmt/format.h>

#include <cmath>

namespace commlab {

FormulaMatch match_formula(double T, const std::vector<Quantity>& quantities, double slack_B,
                           double tolerance) {
  FormulaMatch m;
  double best = INFINITY;
  for (const Quantity& q : quantities) {
    if (std::abs(T - q.bytes) <= std::max(slack_B, tolerance * std::max(std::abs(T), q.bytes))) {
      m.matches.push_back(q.name);
      continue;
    }
    // Nearest on a log scale: 2x too much is as far off as 2x too little.
    double off = q.bytes > 0 && T > 0 ? std::abs(std::log(T / q.bytes)) : INFINITY;
    if (off < best) best = off, m.nearest = q.name, m.ratio = T / q.bytes;
  }
  if (!m.matches.empty()) m.nearest.clear(), m.ratio = 0;
  return m;
}

FormulaMatch taught_is(double T, const std::vector<Quantity>& quantities, int P, double esize) {
  return match_formula(T, quantities, uneven_split_slack_B(P, esize));
}

std::string FormulaMatch::describe(double T, const std::vector<Quantity>& quantities) const {
  if (matches.empty())
    return nearest.empty() ? "nothing" : fmt::format("none; {:.2f} x {}", ratio, nearest);
  std::string s;
  for (const std::string& name : matches) {
    for (const Quantity& q : quantities)
      if (q.name == name && std::abs(q.bytes - T) >= 0.5)
        s +=
            fmt::format("{}{} ({:+.0f} B: uneven split)", s.empty() ? "" : ", ", name, q.bytes - T);
      else if (q.name == name)
        s += (s.empty() ? "" : ", ") + name;
  }
  return s;
}

}  // namespace commlab
