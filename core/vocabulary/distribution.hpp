// What the timed iterations of one row say beyond their mean: where their
// times lie (the median with its 95% confidence interval, p90, p99, as
// nccl-tests' -I and PICO's summaries give them), and how the ranks differ
// within an iteration (which rank is slowest, how often, by how much).
// An iteration's time is its slowest rank's (the call is over when every
// rank is); the per-rank times tell the stragglers apart.
#pragma once
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace commlab {

// The fewest iterations each figure needs: below them it would be the
// largest time itself (p90 of 9 is the maximum), or the interval not at 95%.
constexpr size_t kItersForP90 = 10, kItersForP99 = 100, kItersForMedianCI = 6;

// The q-quantile (0 < q < 1) by the nearest-rank rule: the smallest time
// with at least q of the times at or below it; none below `needs` values.
std::optional<double> quantile(std::vector<double> t, double q, size_t needs);

// The 95% confidence interval of the median, distribution-free: the order
// statistics j and k (1-based, of n sorted values) with
// P(Binomial(n, 1/2) in [j, k-1]) >= 0.95, as narrow as that allows. None
// below 6 values, where even the whole range is below 95%.
std::optional<std::pair<size_t, size_t>> median_ci_ranks(size_t n);

struct Distribution {
  double median_us = 0;
  std::optional<double> p90_us, p99_us;
  std::optional<double> ci_lo_us, ci_hi_us;  // the median's 95% interval
  // Median over the iterations of (slowest rank - fastest rank) / slowest:
  // the share of an iteration the fastest rank spent waiting for the last.
  double rank_spread = 0;
  int slowest_rank = 0;      // the rank most often slowest (the lowest of equals)
  double slowest_share = 0;  // the share of iterations it was
};

// times[r][i]: rank r's time of iteration i (every rank the same count).
Distribution distribution(const std::vector<std::vector<double>>& times);

// When the ranks arrived at each timed call, on one clock: the rank that
// arrives last keeps every other waiting in the barrier before the call, yet
// its own time is the shortest (each rank times from the barrier's exit), so
// the slowest rank above never names it.
struct Arrivals {
  int late_rank = 0;          // the rank most often last to arrive (the lowest of equals)
  double late_share = 0;      // the share of iterations it was
  double skew_median_us = 0;  // the median over the iterations of (last arrival - first)
  std::optional<double> skew_p99_us;
};

// arrived_us[r][i]: rank r's arrival at iteration i (any common origin).
Arrivals arrivals(const std::vector<std::vector<double>>& arrived_us);
// Each arrival after the iteration's first: arrived_us[r][i] - min over r.
std::vector<std::vector<double>> lateness(const std::vector<std::vector<double>>& arrived_us);

}  // namespace commlab
