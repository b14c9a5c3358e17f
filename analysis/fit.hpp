// The time model fitted to measured times: t = c1*x1 + c2*x2 + ..., every
// coefficient 0 or more (a negative alpha or beta is no time at all), least
// squares on the relative error (each row weighted by 1/t^2) so that a
// 4-byte row counts as much as a 16 MiB one. Non-negative least squares is a
// quadratic programme with bounds; ALGLIB's solver (minqp) does it.
//
// For a hand-written algorithm the regressors are its steps (alpha: latency
// per step), the bytes through the busiest port or along its critical path
// (beta: time per byte) and the bytes its busiest rank reduces (gamma); for
// a library call, whose schedule is hidden, 1 and N.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

namespace commlab {

struct Fit {
  std::vector<double> coef;  // one per regressor, each >= 0
  double r2 = 0;             // 1 - SS_res / SS_tot about the mean time: 1 is perfect
  // Leave-one-out: each row predicted by the fit of all the others, as
  // |predicted - measured| / measured; the largest, and the median.
  double loo_max = 0, loo_median = 0;
  int n = 0;
  // fit_with_tier's: from a message of this many bytes on (x[kTierKey]),
  // each of column 1's bytes costs at(kTierKey) more.
  std::optional<double> tier_from_B;
  double predict(const std::vector<double>& x) const;
  double at(size_t j) const { return j < coef.size() ? coef[j] : 0; }
};

// Rows with t <= 0 are left out. A regressor that is 0 in every row (no bytes
// at all: a barrier) gets 0. Rows x must all have the same length.
Fit fit_nonnegative(const std::vector<std::vector<double>>& x, const std::vector<double>& t);

// For a hand-written algorithm's rows (steps, port bytes, reduced bytes):
// within the ring and master-worker the reduced bytes are half the port
// bytes, so a fit cannot tell gamma from beta and may split the link's time
// between them. Gamma is kept only where it predicts left-out rows better and
// a byte reduced costs less than a byte sent (memory is faster than the link);
// else the fit is alpha and beta alone. Rows of another width: fitted as they are.
Fit fit_gamma_where_it_holds(const std::vector<std::vector<double>>& x,
                             const std::vector<double>& t);

// One node's memory (steps, the busiest rank's bytes moved, every rank's,
// then the tier's key, kTierKey, which is no term of its own: the message's
// size). The busiest rank's bytes cost more once a rank's buffers no longer
// fit in the caches below memory: a second rate for them from each size the
// rows have is tried; the one that predicts left-out rows best is kept, and
// only where it does so better than one rate for all sizes (why the size,
// not the bytes an algorithm touches: docs/time-model.md).
constexpr size_t kTierKey = 3;
Fit fit_with_tier(const std::vector<std::vector<double>>& x, const std::vector<double>& t);

}  // namespace commlab
