// The report's all-reduce choice sections: which algorithm was fastest at
// each size beside the one the time model predicted, where the winner
// changes, and -a auto's time over MPI_Allreduce's, run by run.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/vocabulary/stats.hpp"
#include "report.hpp"
#include "table.hpp"

namespace commlab {

namespace {

using TableKey = std::tuple<int, std::string, std::string, std::string>;  // P, fabric, dtype, op

std::string heading(const TableKey& k) {
  const auto& [P, fabric, dtype, op] = k;
  return fmt::format("P = {} ({}, {} {})", P, fabric, dtype, op);
}

// The rows of one size, each run's: the hand-written algorithms' by name,
// auto's, the library's.
struct SizeRows {
  std::map<std::string, std::vector<const Measurement*>> hand;
  std::vector<const Measurement*> automatic;
  std::vector<double> library_us;  // MPI_Allreduce's, once per program run
};

// allreduce, or one of its algorithms under its own name (allreduce_ring).
bool is_allreduce(const Measurement& m) { return m.program.rfind("allreduce", 0) == 0; }

double median_of_runs(const std::vector<const Measurement*>& ms) {
  std::vector<double> us;
  for (const Measurement* m : ms) us.push_back(m->t_median_us);
  return median(us);
}

// "a up to 16 KiB, b from 64 KiB": the runs of one winner.
std::string crossovers(const std::vector<std::pair<uint64_t, std::string>>& winners) {
  std::string s;
  for (size_t i = 0; i < winners.size(); ++i)
    if (i == 0 || winners[i].second != winners[i - 1].second)
      s += fmt::format("{}{} from {}", s.empty() ? "" : ", ", winners[i].second,
                       human_bytes(winners[i].first));
  return s;
}

constexpr double kAutoNear = 1.10;  // auto's target: within 10% of the fastest

// One size's line: the fastest by the median of its runs, the model's pick
// (its first run's t_model_us), auto's choice and time; "" with fewer than
// two algorithms. Counts auto within 10% of the fastest into `near`.
struct Winners {
  std::vector<std::pair<uint64_t, std::string>> measured, predicted;
  int sizes_with_auto = 0, auto_near = 0;
};
void add_size(MarkdownTable& table, Winners& w, uint64_t bytes, const SizeRows& at) {
  if (at.hand.size() < 2) return;
  std::string fast, model;
  double fast_us = 0, model_us = 0;
  for (const auto& [name, ms] : at.hand) {
    const double us = median_of_runs(ms);
    if (fast.empty() || us < fast_us) fast = name, fast_us = us;
    const auto& t = ms.front()->t_model_us;
    if (t && (model.empty() || *t < model_us)) model = name, model_us = *t;
  }
  w.measured.emplace_back(bytes, fast);
  if (!model.empty()) w.predicted.emplace_back(bytes, model);
  std::set<std::string> chose;
  for (const Measurement* m : at.automatic) chose.insert(m->chose);
  std::string auto_us = "-", ratio = "-";
  if (!at.automatic.empty()) {
    const double us = median_of_runs(at.automatic);
    auto_us = fmt::format("{:.1f}", us), ratio = fmt::format("{:.2f}", us / fast_us);
    ++w.sizes_with_auto, w.auto_near += us <= kAutoNear * fast_us;
  }
  table.add_row(human_bytes(bytes), fast, fmt::format("{:.1f}", fast_us),
                model.empty() ? "-" : model,
                model.empty() ? "-" : fmt::format("{:.1f}", median_of_runs(at.hand.at(model))),
                chose.empty() ? "-" : fmt::format("{}", fmt::join(chose, ", ")), auto_us, ratio,
                at.library_us.empty() ? "-" : fmt::format("{:.1f}", median(at.library_us)));
}

}  // namespace

std::string fastest_allreduce(const std::vector<Measurement>& rows) {
  std::map<TableKey, std::map<uint64_t, SizeRows>> tables;
  for (const Measurement& m : rows) {
    if (!is_allreduce(m)) continue;
    SizeRows& at = tables[{m.P, m.fabric(), m.dtype, m.op}][m.bytes];
    if (m.algorithm == "auto")
      at.automatic.push_back(&m);
    else if (m.hand())
      at.hand[m.algorithm].push_back(&m);
    else if (m.algorithm == "MPI_Allreduce")
      at.library_us.push_back(m.t_median_us);
  }
  std::string s;
  for (const auto& [key, by_size] : tables) {
    MarkdownTable table({"N", "fastest (measured)", "its median us", "the model's pick",
                         "its median us", "auto ran", "auto's median us", "auto / fastest",
                         "MPI_Allreduce us"});
    Winners w;
    for (const auto& [bytes, at] : by_size) add_size(table, w, bytes, at);
    if (table.empty()) continue;
    const std::string near =
        w.sizes_with_auto ? fmt::format("\n\nauto within 10% of the fastest: {} of {} sizes.",
                                        w.auto_near, w.sizes_with_auto)
                          : "";
    s += fmt::format("\n### {}\n\n{}\nCrossovers, measured: {}.\n\nCrossovers, predicted: {}.{}\n",
                     heading(key), table.str(), crossovers(w.measured),
                     w.predicted.empty() ? std::string("- (no t_model_us in these rows)")
                                         : crossovers(w.predicted),
                     near);
  }
  return s.empty() ? "No all-reduce rows with two or more hand-written algorithms.\n" : s;
}

std::string auto_against_library(const std::vector<Measurement>& rows) {
  // P, fabric, dtype, op -> size -> run (date) -> auto's row, MPI_Allreduce's
  std::map<
      TableKey,
      std::map<uint64_t, std::map<std::string, std::pair<const Measurement*, const Measurement*>>>>
      runs;
  std::map<TableKey, std::map<uint64_t, std::map<std::string, std::string>>> chose;
  std::map<TableKey, std::map<uint64_t, std::vector<double>>> predicted_us, auto_us;
  for (const Measurement& m : rows) {
    if (!is_allreduce(m) || (m.algorithm != "auto" && m.algorithm != "MPI_Allreduce")) continue;
    const TableKey key{m.P, m.fabric(), m.dtype, m.op};
    auto& pair = runs[key][m.bytes][m.date];
    (m.algorithm == "auto" ? pair.first : pair.second) = &m;
    if (m.algorithm != "auto") continue;
    chose[key][m.bytes][m.chose] = m.chose;
    auto_us[key][m.bytes].push_back(m.t_median_us);
    if (m.t_model_us) predicted_us[key][m.bytes].push_back(*m.t_model_us);
  }
  std::string s;
  for (const auto& [key, by_size] : runs) {
    MarkdownTable table({"N", "auto ran", "model us", "median us",
                         "auto / MPI_Allreduce (medians), each run", "median"});
    std::string over;
    for (const auto& [bytes, by_run] : by_size) {
      std::vector<double> ratios;
      std::string each;
      int noisy = 0;
      for (const auto& [date, t] : by_run)
        if (t.first && t.second && t.first->t_median_us > 0 && t.second->t_median_us > 0) {
          ratios.push_back(t.first->t_median_us / t.second->t_median_us);
          each += (each.empty() ? "" : "; ") + median_ratio(*t.first, *t.second);
          noisy += t.first->noisy() || t.second->noisy() || !t.first->has_interval() ||
                   !t.second->has_interval();
        }
      if (ratios.empty()) continue;
      std::string ran;
      for (const auto& [name, _] : chose.at(key).at(bytes)) ran += (ran.empty() ? "" : ", ") + name;
      const double mid = median(ratios);
      const auto& model = predicted_us[key][bytes];
      // A figure is bold only where every run it comes from had an interval
      // and none was noisy.
      table.add_row(human_bytes(bytes), ran,
                    model.empty() ? "-" : fmt::format("{:.1f}", median(model)),
                    fmt::format("{:.1f}", median(auto_us[key][bytes])), each,
                    noisy ? fmt::format("{:.2f} ({} of {} runs noisy or without an interval)", mid,
                                        noisy, ratios.size())
                          : fmt::format("**{:.2f}**", mid));
      if (mid > 1)
        over += fmt::format("{}{} ({:.3f})", over.empty() ? "" : ", ", human_bytes(bytes), mid);
    }
    if (table.empty()) continue;
    s += fmt::format("\n### {}\n\n{}\nAbove 1.0 (the library faster): {}.\n", heading(key),
                     table.str(), over.empty() ? "none" : over);
  }
  return s.empty() ? "No rows of -a auto beside MPI_Allreduce.\n" : s;
}

}  // namespace commlab
