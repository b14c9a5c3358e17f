#include "rules.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

#include "harness/tuned.hpp"

namespace commlab {

namespace {

// A row that forced one of Open MPI's algorithms (MPI_Allreduce:ring), and
// was right: its call and Open MPI's number for the algorithm.
struct Forced {
  const TunedCall* call = nullptr;
  int number = 0;
};
Forced forced(const Measurement& m) {
  const size_t colon = m.algorithm.find(':');
  if (m.impl != Impl::mpi || colon == std::string::npos || m.check == Check::fail) return {};
  const TunedCall* call = tuned_call(m.algorithm.substr(0, colon));
  if (!call) return {};
  return {call, tuned_number(*call, m.algorithm.substr(colon + 1))};
}

// Where the choice changes between two measured sizes a < b, the rule
// starts halfway between them on a log scale (and above a).
uint64_t boundary_B(uint64_t a, uint64_t b) {
  const auto mid = uint64_t(std::ceil(std::sqrt(double(a) * double(b))));
  return std::min(std::max(mid, a + 1), b);
}

struct Best {
  double t_median_us;
  int number;
};
// call -> P -> bytes -> the fastest forced algorithm's median time (the least
// over repeated runs of the same algorithm too).
using Table = std::map<const TunedCall*, std::map<int, std::map<uint64_t, Best>>>;

std::string call_rules(const TunedCall& call, const std::map<int, std::map<uint64_t, Best>>& by_P) {
  std::string text = fmt::format("{}  # {} (coll_tuned_{}_algorithm)\n{}  # communicator sizes\n",
                                 call.rules_id, call.mpi_call, call.tuned, by_P.size());
  for (const auto& [P, by_size] : by_P) {
    std::vector<std::pair<uint64_t, int>> rules;  // from bytes, algorithm
    uint64_t last_B = 0;
    for (const auto& [bytes, best] : by_size) {
      if (rules.empty())
        rules.emplace_back(0, best.number);
      else if (best.number != rules.back().second)
        rules.emplace_back(boundary_B(last_B, bytes), best.number);
      last_B = bytes;
    }
    text += fmt::format("{}  # P\n{}  # message sizes\n", P, rules.size());
    for (const auto& [from_B, number] : rules)
      text += fmt::format("{} {} 0 0  # from {} B: {}\n", from_B, number, from_B,
                          call.algorithms.at(number - 1));
  }
  return text;
}

}  // namespace

std::string open_mpi_rules(const std::vector<Measurement>& rows, const std::string& source) {
  Table table;
  const Measurement* first = nullptr;  // a rules file knows only the call, P and bytes
  for (const Measurement& m : rows) {
    const Forced f = forced(m);
    if (!f.number) continue;
    if (!first) first = &m;
    if (std::tie(m.device, m.dtype, m.op) != std::tie(first->device, first->dtype, first->op))
      throw ReportError(fmt::format(
          "{}: rows of {} {} {} beside {} {} {}: a rules file picks by call, P and size alone, so "
          "give it the rows of one device, dtype and op",
          source, m.device, m.dtype, m.op, first->device, first->dtype, first->op));
    auto [at, fresh] = table[f.call][m.P].try_emplace(m.bytes, Best{m.t_median_us, f.number});
    if (!fresh && m.t_median_us < at->second.t_median_us) at->second = {m.t_median_us, f.number};
  }
  if (table.empty())
    throw ReportError(source + ": no row forced one of Open MPI's algorithms (--mpi-algorithm)");
  std::string text = fmt::format(
      "# Open MPI's dynamic rules (coll_tuned_dynamic_rules_filename), written by report --rules\n"
      "# from {}: for each call and P, the fastest of its forced algorithms at each size\n"
      "# measured, from halfway (on a log scale) between two sizes where the choice changes.\n"
      "# Each rule: message size in bytes, algorithm, fan-in/out and segment size (0: Open "
      "MPI's).\n"
      "{}  # collectives\n",
      source, table.size());
  for (const auto& [call, by_P] : table) text += call_rules(*call, by_P);
  return text;
}

}  // namespace commlab
