#include "distribution.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "stats.hpp"

namespace commlab {

std::optional<double> quantile(std::vector<double> t, double q, size_t needs) {
  if (t.size() < needs || t.empty()) return std::nullopt;
  std::sort(t.begin(), t.end());
  const size_t rank = size_t(std::ceil(q * double(t.size())));  // 1-based
  return t[std::clamp<size_t>(rank, 1, t.size()) - 1];
}

std::optional<std::pair<size_t, size_t>> median_ci_ranks(size_t n) {
  if (n < kItersForMedianCI) return std::nullopt;
  // The largest j with P(X < j) <= 2.5%, X ~ Binomial(n, 1/2), the terms
  // summed in logs (n may be large); k = n + 1 - j by symmetry.
  auto pmf = [n](size_t x) {
    return std::exp(std::lgamma(double(n) + 1) - std::lgamma(double(x) + 1) -
                    std::lgamma(double(n - x) + 1) - double(n) * std::log(2.0));
  };
  size_t j = 1;
  double below = pmf(0);  // P(X < j + 1) = P(X <= j) as j grows
  while (j + 1 <= n / 2 && below + pmf(j) <= 0.025) below += pmf(j), ++j;
  return std::make_pair(j, n + 1 - j);
}

namespace {

// Each iteration's largest and smallest value, their spread, and the rank of the largest.
struct PerIteration {
  std::vector<double> slowest, fastest, spread;
  std::vector<int> slowest_rank;
};

PerIteration per_iteration(const std::vector<std::vector<double>>& times) {
  PerIteration p;
  const size_t iters = times.empty() ? 0 : times.front().size();
  for (size_t i = 0; i < iters; ++i) {
    int worst = 0;
    double lo = times[0][i], hi = times[0][i];
    for (size_t r = 1; r < times.size(); ++r) {
      lo = std::min(lo, times[r][i]);
      if (times[r][i] > hi) hi = times[r][i], worst = int(r);
    }
    p.slowest.push_back(hi);
    p.fastest.push_back(lo);
    p.spread.push_back(hi > 0 ? (hi - lo) / hi : 0);
    p.slowest_rank.push_back(worst);
  }
  return p;
}

// The rank that comes up most often (the lowest of equals), and its share.
std::pair<int, double> most_often(const std::vector<int>& ranks, size_t P) {
  std::vector<size_t> count(P);
  for (int r : ranks) ++count[size_t(r)];
  const int most = int(std::max_element(count.begin(), count.end()) - count.begin());
  return {most, double(count[size_t(most)]) / double(ranks.size())};
}

}  // namespace

Distribution distribution(const std::vector<std::vector<double>>& times) {
  const PerIteration p = per_iteration(times);
  Distribution d;
  if (p.slowest.empty()) return d;
  d.median_us = median(p.slowest);
  d.p90_us = quantile(p.slowest, 0.90, kItersForP90);
  d.p99_us = quantile(p.slowest, 0.99, kItersForP99);
  if (const auto ci = median_ci_ranks(p.slowest.size())) {
    std::vector<double> sorted = p.slowest;
    std::sort(sorted.begin(), sorted.end());
    d.ci_lo_us = sorted[ci->first - 1];
    d.ci_hi_us = sorted[ci->second - 1];
  }
  d.rank_spread = median(p.spread);
  std::tie(d.slowest_rank, d.slowest_share) = most_often(p.slowest_rank, times.size());
  return d;
}

Arrivals arrivals(const std::vector<std::vector<double>>& arrived_us) {
  const PerIteration p = per_iteration(arrived_us);
  Arrivals a;
  if (p.slowest.empty()) return a;
  std::vector<double> skew(p.slowest.size());
  for (size_t i = 0; i < skew.size(); ++i) skew[i] = p.slowest[i] - p.fastest[i];
  a.skew_median_us = median(skew);
  a.skew_p99_us = quantile(skew, 0.99, kItersForP99);
  std::tie(a.late_rank, a.late_share) = most_often(p.slowest_rank, arrived_us.size());
  return a;
}

std::vector<std::vector<double>> lateness(const std::vector<std::vector<double>>& arrived_us) {
  const PerIteration p = per_iteration(arrived_us);
  std::vector<std::vector<double>> late = arrived_us;
  for (auto& rank : late)
    for (size_t i = 0; i < rank.size(); ++i) rank[i] -= p.fastest[i];
  return late;
}

}  // namespace commlab
