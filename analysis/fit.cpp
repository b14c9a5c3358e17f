#include "fit.hpp"

#include <libalglib/optimization.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/vocabulary/stats.hpp"

namespace commlab {

double Fit::predict(const std::vector<double>& x) const {
  double t = 0;
  for (size_t j = 0; j < x.size(); ++j) {
    // A row of the report's (kTierKey holds its key) once a tier is chosen;
    // before, in fit_with_tier's own design, the column holds the tier's bytes.
    if (j == kTierKey && x.size() == kTierKey + 1 && tier_from_B) {
      if (x[j] >= *tier_from_B) t += at(j) * x[1];
      continue;
    }
    t += at(j) * x[j];
  }
  return t;
}

namespace {

// The coefficients alone: min sum_i (1 - x_i . c / t_i)^2 over c >= 0. Each
// column is scaled to unit length first, so that steps (~10) and bytes
// (~10^7) weigh alike in the solver's tolerances.
std::vector<double> solve(const std::vector<std::vector<double>>& x, const std::vector<double>& t) {
  const size_t k = x.empty() ? 0 : x.front().size();
  std::vector<double> scale(k, 0.0), coef(k, 0.0);
  for (size_t i = 0; i < t.size(); ++i)
    for (size_t j = 0; j < k; ++j) scale[j] += (x[i][j] / t[i]) * (x[i][j] / t[i]);
  std::vector<size_t> used;  // columns that are not all 0
  for (size_t j = 0; j < k; ++j)
    if (scale[j] > 0) used.push_back(j), scale[j] = std::sqrt(scale[j]);
  const size_t n = used.size();
  if (n == 0 || t.empty()) return coef;
  // 0.5 c'(V'V)c - (V'1)'c, V the weighted, scaled rows.
  alglib::real_2d_array A;
  alglib::real_1d_array b, c;
  A.setlength(n, n);
  b.setlength(n);
  for (size_t p = 0; p < n; ++p) {
    b[p] = 0;
    for (size_t q = 0; q < n; ++q) A[p][q] = 0;
  }
  for (size_t i = 0; i < t.size(); ++i)
    for (size_t p = 0; p < n; ++p) {
      const double vp = x[i][used[p]] / t[i] / scale[used[p]];
      b[p] -= vp;
      for (size_t q = 0; q < n; ++q) A[p][q] += vp * x[i][used[q]] / t[i] / scale[used[q]];
    }
  alglib::minqpstate qp;
  alglib::minqpreport report;
  alglib::minqpcreate(alglib::ae_int_t(n), qp);
  alglib::minqpsetquadraticterm(qp, A);
  alglib::minqpsetlinearterm(qp, b);
  alglib::minqpsetbcall(qp, 0.0, alglib::fp_posinf);
  alglib::minqpsetscaleautodiag(qp);
  alglib::minqpsetalgobleic(qp, 0.0, 0.0, 1e-12, 0);
  alglib::minqpoptimize(qp);
  alglib::minqpresults(qp, c, report);
  if (report.terminationtype <= 0) throw std::runtime_error("fit: the solver did not converge");
  for (size_t p = 0; p < n; ++p) coef[used[p]] = std::max(0.0, c[p]) / scale[used[p]];
  return coef;
}

}  // namespace

Fit fit_nonnegative(const std::vector<std::vector<double>>& x, const std::vector<double>& t) {
  std::vector<std::vector<double>> xs;
  std::vector<double> ts;
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i] > 0 && std::isfinite(t[i])) xs.push_back(x[i]), ts.push_back(t[i]);
  Fit f;
  f.n = int(ts.size());
  f.coef = solve(xs, ts);
  if (ts.empty()) return f;
  double mean = 0, res = 0, tot = 0;
  for (double ti : ts) mean += ti / double(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    res += (ts[i] - f.predict(xs[i])) * (ts[i] - f.predict(xs[i]));
    tot += (ts[i] - mean) * (ts[i] - mean);
  }
  f.r2 = tot > 0 ? 1 - res / tot : (res == 0 ? 1 : 0);
  if (ts.size() < 2) return f;
  std::vector<double> off;  // leave-one-out
  for (size_t out = 0; out < ts.size(); ++out) {
    std::vector<std::vector<double>> x1;
    std::vector<double> t1;
    for (size_t i = 0; i < ts.size(); ++i)
      if (i != out) x1.push_back(xs[i]), t1.push_back(ts[i]);
    Fit without;
    without.coef = solve(x1, t1);
    off.push_back(std::abs(without.predict(xs[out]) - ts[out]) / ts[out]);
  }
  f.loo_max = *std::max_element(off.begin(), off.end());
  f.loo_median = median(off);
  return f;
}

Fit fit_gamma_where_it_holds(const std::vector<std::vector<double>>& x,
                             const std::vector<double>& t) {
  if (x.empty() || x.front().size() != 3) return fit_nonnegative(x, t);
  std::vector<std::vector<double>> x_no_gamma = x;
  for (auto& row : x_no_gamma) row.back() = 0;
  const Fit with = fit_nonnegative(x, t), without = fit_nonnegative(x_no_gamma, t);
  const bool gamma_holds =
      with.at(2) > 0 && with.at(2) < with.at(1) && with.loo_median < without.loo_median;
  return gamma_holds ? with : without;
}

Fit fit_with_tier(const std::vector<std::vector<double>>& x, const std::vector<double>& t) {
  if (x.empty() || x.front().size() != kTierKey + 1) return fit_nonnegative(x, t);
  auto design = [&](double from_B) {  // column 1's bytes again from that key on
    std::vector<std::vector<double>> d = x;
    for (auto& row : d) row[kTierKey] = row[kTierKey] >= from_B ? row[1] : 0;
    return d;
  };
  Fit best = fit_nonnegative(design(INFINITY), t);
  std::vector<double> keys;
  for (const auto& row : x) keys.push_back(row[kTierKey]);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (size_t i = 1; i < keys.size(); ++i) {  // rows on both sides of it
    Fit tiered = fit_nonnegative(design(keys[i]), t);
    if (tiered.at(kTierKey) > 0 && tiered.loo_median < best.loo_median)
      best = tiered, best.tier_from_B = keys[i];
  }
  return best;
}

}  // namespace commlab
