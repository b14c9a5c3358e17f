#include "fit.hpp"

#include <cmath>

namespace commlab {

Fit fit_alpha_beta(const std::vector<std::array<double, 2>>& x, const std::vector<double>& t) {
  // Normal equations of the weighted problem: dividing each row by t turns
  // it into ordinary least squares on (x1/t, x2/t) -> 1.
  double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0;
  Fit f;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!(t[i] > 0)) continue;
    double u = x[i][0] / t[i], v = x[i][1] / t[i];
    s11 += u * u, s12 += u * v, s22 += v * v, s1y += u, s2y += v;
    ++f.n;
  }
  if (f.n == 0) return f;
  const double det = s11 * s22 - s12 * s12;
  if (std::abs(det) > 1e-12 * s11 * s22 && s22 > 0) {
    f.a = (s1y * s22 - s2y * s12) / det;
    f.b = (s11 * s2y - s12 * s1y) / det;
  } else if (s11 > 0) {
    f.a = s1y / s11;
  }
  // R^2 of the weighted problem, whose targets are all 1: against their mean,
  // which is 1, the total sum of squares would be 0, so compare with the
  // best constant fit of t instead (weighted the same way).
  double res = 0, w = 0, wt = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!(t[i] > 0)) continue;
    double e = (t[i] - f.predict(x[i][0], x[i][1])) / t[i];
    res += e * e;
    w += 1 / (t[i] * t[i]);
    wt += 1 / t[i];
  }
  const double c = wt / w;  // the weighted-best constant
  double tot = 0;
  for (double ti : t)
    if (ti > 0) tot += (ti - c) * (ti - c) / (ti * ti);
  f.r2 = tot > 0 ? 1 - res / tot : (res == 0 ? 1 : 0);
  return f;
}

}  // namespace commlab
