// Which measured quantity a taught formula's T is (docs/formulas.md: the formulas mix
// definitions), or how far it is from the nearest one.
#pragma once
#include <string>
#include <vector>

namespace commlab {

struct Quantity {
  std::string name;
  double bytes;
};

struct FormulaMatch {
  std::vector<std::string> matches;  // quantities within the tolerance of T
  std::string nearest;               // when none matches: the closest one
  double ratio = 0;                  // T / nearest
  std::string describe(double T, const std::vector<Quantity>& q) const;
};

// Equal within `slack_B` bytes or `tolerance` (relative) counts as a match,
// so a split uneven by an element per chunk still names its quantity;
// describe() shows the bytes.
FormulaMatch match_formula(double T, const std::vector<Quantity>& quantities, double slack_B = 0,
                           double tolerance = 1e-4);

// The slack for P ranks and elements of esize bytes: a rank's 2(P-1)
// whole-element chunks may each be one element off N/P.
inline double uneven_split_slack_B(int P, double esize) { return 2.0 * P * esize; }

// Which counted quantity the taught T is, in the one wording the report's
// "T is" column and the lab's answer key share: the counted figures by their
// column names (sent_max_B, recv_max_B, sent_total_B, ...), "none" where T
// equals none of them. `quantities` in that wording.
FormulaMatch taught_is(double T, const std::vector<Quantity>& quantities, int P, double esize);

}  // namespace commlab
