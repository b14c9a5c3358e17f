// The report's sections on Open MPI's own algorithms, where the rows hold
// any (bench/mpi_tuning.sh): which algorithm the library ran at each size,
// as its counted bytes say, beside the fastest one it could have been
// forced to; and its default against a rules file, run for run.
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "core/vocabulary/stats.hpp"
#include "report.hpp"
#include "table.hpp"

namespace commlab {

namespace {

// MPI_Allreduce:ring -> {MPI_Allreduce, ring}; the default row -> {MPI_Allreduce, ""}.
std::pair<std::string, std::string> call_and_forced(const std::string& algorithm) {
  const size_t colon = algorithm.find(':');
  if (colon == std::string::npos) return {algorithm, ""};
  return {algorithm.substr(0, colon), algorithm.substr(colon + 1)};
}

using Key = std::tuple<std::string, int, std::string, std::string,
                       std::string>;  // call, P, device, dtype, op
std::string title(const Key& k) {
  const auto& [call, P, device, dtype, op] = k;
  return device == "host" && op == "sum"
             ? fmt::format("{}, P = {}, {}", call, P, dtype)
             : fmt::format("{}, P = {}, {} {} {}", call, P, device, dtype, op);
}

struct Seen {
  std::vector<double> t_us;                   // each run's median
  std::string ran;                            // what its counted bytes say it ran
  TrafficCheck traffic = TrafficCheck::none;  // against our model of the forced algorithm
};
// call, P, device, dtype, op -> size -> forced algorithm ("" the default, "rules") -> what was
// seen.
using Seens = std::map<Key, std::map<uint64_t, std::map<std::string, Seen>>>;

Seens seen_by_call(const std::vector<Measurement>& rows) {
  Seens seen;
  for (const Measurement& m : rows) {
    if (m.impl != Impl::mpi || m.check == Check::fail) continue;
    const auto [call, forced] = call_and_forced(m.algorithm);
    Seen& s = seen[{call, m.P, m.device, m.dtype, m.op}][m.bytes][forced];
    s.t_us.push_back(m.t_median_us);
    if (s.ran.empty())
      s.ran = !m.sent_max_B ? "not counted" : m.chose.empty() ? "none of ours" : m.chose;
    if (s.traffic == TrafficCheck::none) s.traffic = m.traffic;
  }
  return seen;
}

std::string counted_section(const Seens& seen) {
  std::string s;
  for (const auto& [key, by_size] : seen) {
    MarkdownTable table({"N", "default ran", "default us", "fastest forced", "its us",
                         "forced: our model exact", "forced: differs (ran)"});
    for (const auto& [bytes, by_forced] : by_size) {
      const auto def = by_forced.find("");
      std::string fastest = "-", exact, differs;
      double fastest_us = 0;
      for (const auto& [forced, x] : by_forced) {
        if (forced.empty() || forced == "rules") continue;
        const double us = median(x.t_us);
        if (fastest == "-" || us < fastest_us) fastest = forced, fastest_us = us;
        if (x.traffic == TrafficCheck::exact) exact += (exact.empty() ? "" : ", ") + forced;
        if (x.traffic == TrafficCheck::differs)
          differs += fmt::format("{}{} ({})", differs.empty() ? "" : ", ", forced, x.ran);
      }
      if (fastest == "-") continue;
      table.add_row(human_bytes(bytes), def == by_forced.end() ? "-" : def->second.ran,
                    def == by_forced.end() ? "-" : fmt::format("{:.1f}", median(def->second.t_us)),
                    fastest, fmt::format("{:.1f}", fastest_us), exact.empty() ? "-" : exact,
                    differs.empty() ? "-" : differs);
    }
    if (!table.empty()) s += fmt::format("\n### {}\n\n{}", title(key), table.str());
  }
  return s;
}

std::string rules_section(const Seens& seen) {
  std::string s;
  for (const auto& [key, by_size] : seen) {
    MarkdownTable table({"N", "default ran", "rules ran", "default us", "rules us",
                         "default / rules, each run", "median"});
    std::string slower;
    for (const auto& [bytes, by_forced] : by_size) {
      const auto def = by_forced.find(""), rules = by_forced.find("rules");
      if (def == by_forced.end() || rules == by_forced.end()) continue;
      // Run k of the default against run k of the rules (rows in file order);
      // the default's earlier rows (bench/mpi_tuning.sh's step 1) pair with none.
      std::vector<double> speedups;
      const auto& d = def->second.t_us;
      const auto& r = rules->second.t_us;
      const size_t runs = std::min(d.size(), r.size()), skip = d.size() - runs;
      std::string each;
      for (size_t k = 0; k < runs; ++k) {
        speedups.push_back(r[k] > 0 ? d[skip + k] / r[k] : 0);
        each += fmt::format("{}{:.2f}", each.empty() ? "" : " ", speedups.back());
      }
      const double mid = median(speedups);
      table.add_row(human_bytes(bytes), def->second.ran, rules->second.ran,
                    fmt::format("{:.1f}", median(d)), fmt::format("{:.1f}", median(r)), each,
                    fmt::format("**{:.2f}**", mid));
      if (mid < 1)
        slower += fmt::format("{}{} ({:.3f})", slower.empty() ? "" : ", ", human_bytes(bytes), mid);
    }
    if (!table.empty())
      s += fmt::format("\n### {}\n\n{}\nBelow 1.0 (the rules slower): {}.\n", title(key),
                       table.str(), slower.empty() ? "none" : slower);
  }
  return s;
}

}  // namespace

std::string open_mpi_sections(const std::vector<Measurement>& rows) {
  const Seens seen = seen_by_call(rows);
  const std::string counted = counted_section(seen), rules = rules_section(seen);
  std::string s;
  if (!counted.empty())
    s += "\n## Open MPI's own algorithms, counted\n\n"
         "Each of Open MPI's algorithms forced in turn (--mpi-algorithm); what the default ran, as "
         "its "
         "counted bytes and messages say (the hand-written algorithms that move the same, or none "
         "of "
         "ours); the "
         "fastest forced one; and which forced ones moved what our model of the same name says.\n" +
         counted;
  if (!rules.empty())
    s += "\n## Open MPI's default against the tuned rules\n\n"
         "The default's median time over the rules file's (--mpi-rules) in run k of each, and the "
         "median over runs: above 1.0 the rules are faster.\n" +
         rules;
  return s;
}

}  // namespace commlab
