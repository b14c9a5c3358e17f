#include "distributions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/vocabulary/distribution.hpp"
#include "core/vocabulary/numbers.hpp"
#include "table.hpp"

namespace commlab {

IterationKey iteration_key(const Measurement& m) {
  return {m.program, m.algorithm, name(m.impl), m.dtype, m.op, m.count, m.P, m.host, m.date};
}

Iterations read_iterations(const std::string& path) {
  const std::vector<std::string> names{"program", "algorithm", "impl", "dtype", "op",  "count", "P",
                                       "rank",    "iteration", "t_us", "host",  "date"};
  // Per row, per iteration: the slowest rank's time.
  std::map<IterationKey, std::map<uint64_t, double>> slowest;
  size_t line = 1;
  for (const auto& c : read_columns(path, names)) {
    ++line;
    const auto count = whole_number(c[5]), P = whole_number(c[6]), i = whole_number(c[8]);
    const auto t = finite_number(c[9]);
    if (!count || !P || !i || !t || *P < 1 || *P > (1u << 30) || *t < 0)
      throw ReportError(fmt::format("{} line {}: not an iteration's time", path, line));
    double& s = slowest[{c[0], c[1], c[2], c[3], c[4], *count, int(*P), c[10], c[11]}][*i];
    s = std::max(s, *t);
  }
  Iterations out;
  for (const auto& [key, by_iteration] : slowest)
    for (const auto& [i, t] : by_iteration) out[key].push_back(t);
  return out;
}

size_t outliers(std::vector<double> t) {
  if (t.size() < 4) return 0;
  const double q1 = *quantile(t, 0.25, 1), q3 = *quantile(t, 0.75, 1), fence = 1.5 * (q3 - q1);
  return size_t(std::count_if(t.begin(), t.end(),
                              [&](double x) { return x < q1 - fence || x > q3 + fence; }));
}

namespace {

std::string us(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}", *v) : std::string("-");
}

// One row of a table: its figures, and the outliers where its iterations are known.
void add(MarkdownTable& table, const Measurement& m, const Iterations& iterations) {
  const auto it = iterations.find(iteration_key(m));
  const std::string ci = m.ci_lo_us && m.ci_hi_us
                             ? fmt::format(" [{:.1f}, {:.1f}]", *m.ci_lo_us, *m.ci_hi_us)
                             : std::string();
  const std::string slowest =
      m.slowest_rank && m.slowest_share
          ? fmt::format("{} ({:.0f}%)", *m.slowest_rank, *m.slowest_share * 100)
          : "-";
  // The last to arrive keeps the others waiting but times itself the
  // shortest: named apart from the slowest, with the arrivals' skew.
  const std::string late =
      m.late_rank && m.late_share && m.arrival_skew_us
          ? fmt::format("{} ({:.0f}%), {:.1f} / {}", *m.late_rank, *m.late_share * 100,
                        *m.arrival_skew_us, us(m.arrival_skew_p99_us))
          : "-";
  table.add_row(human_bytes(m.bytes), m.algorithm + over_fabric(m.fabric()),
                fmt::format("{:.1f}{}{}", m.t_median_us, ci, m.noisy() ? " **noisy**" : ""),
                us(m.p90_us), us(m.p99_us),
                it == iterations.end()
                    ? "-"
                    : fmt::format("{} of {}", outliers(it->second), it->second.size()),
                slowest, m.rank_spread ? fmt::format("{:.0f}%", *m.rank_spread * 100) : "-", late);
}

}  // namespace

std::string distributions(const std::vector<Measurement>& rows, const Iterations& iterations) {
  // By program, fabric, dtype and P; all-reduce programs only (the
  // formulas' subject): the others' iterations are in the folder's file.
  std::map<std::tuple<std::string, std::string, std::string, int>, std::vector<const Measurement*>>
      groups;
  for (const Measurement& m : rows)
    if (m.program.rfind("allreduce", 0) == 0 && m.rank_spread)
      groups[{m.program, m.fabric(), m.dtype, m.P}].push_back(&m);
  if (groups.empty()) return "";
  std::string s =
      "Each row's timed iterations, each the time of its slowest rank: the median and its 95% "
      "interval (distribution-free, from the order statistics), p90, p99 (from 10 and 100 "
      "iterations), Tukey's outliers (beyond 1.5 interquartile ranges of the quartiles, where "
      "the iterations were written: --times), the rank most often slowest and how often, and "
      "the spread between ranks (the median, over the iterations, of the slowest rank's lead "
      "over the fastest, as a share of the iteration); and the rank most often last to arrive at "
      "the call, how often, and the median / p99 in us of the last arrival's lead over the first "
      "(on rank 0's clock; the last to arrive waits least, so it is seldom the slowest). "
      "**noisy**: the interval spans more than "
      "30% of the median; such rows are left out of the fit.\n";
  for (const auto& [key, ms] : groups) {
    const auto& [program, fabric, dtype, P] = key;
    MarkdownTable table({"N", "implementation", "median us [95%]", "p90", "p99", "outliers",
                         "slowest rank", "spread", "last to arrive, skew us"});
    for (const Measurement* m : ms) add(table, *m, iterations);
    s += fmt::format("\n### {}, P = {} ({}, {})\n\n{}", program, P, fabric, dtype, table.str());
  }
  return s;
}

}  // namespace commlab
