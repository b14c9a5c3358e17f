// The alpha-beta model fitted to measured times: t = a*x1 + b*x2, least
// squares on the relative error (each row weighted by 1/t^2), so a 4-byte
// row counts as much as a 16 MiB one. For a hand-written algorithm x1 is its
// steps and x2 the bytes on its critical path (alpha: latency per step, beta:
// time per byte); for a library call, whose schedule is hidden, x1 = 1 and
// x2 = N.
#pragma once
#include <array>
#include <vector>

namespace commlab {

struct Fit {
  double a = 0, b = 0;
  double r2 = 0;  // of the weighted fit: 1 is perfect
  int n = 0;
  double predict(double x1, double x2) const { return a * x1 + b * x2; }
};

// Points with t <= 0 are left out. With x2 all zero (a barrier) b stays 0.
Fit fit_alpha_beta(const std::vector<std::array<double, 2>>& x, const std::vector<double>& t);

}  // namespace commlab
