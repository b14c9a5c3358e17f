#include "node_memory.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/comm/time_model.hpp"
#include "core/vocabulary/usage_error.hpp"
#include "operations/operation.hpp"
#include "operations/predicted.hpp"
#include "report.hpp"

namespace commlab {

namespace {
std::string rate(double us_per_B) {
  return us_per_B > 0 ? fmt::format("{:.3g} GB/s", 1e-3 / us_per_B) : std::string("free");
}
std::string rows_of(const std::string& folder) {
  return (std::filesystem::path(folder) / "rows.csv").string();
}
}  // namespace

NodeMemory node_by_hand(double alpha_us, double rank_GBps, std::optional<double> node_GBps) {
  NodeMemory n{"by-hand", "given on the command line", {}};
  n.fit.coef = {alpha_us, 1e-3 / rank_GBps, node_GBps ? 1e-3 / *node_GBps : 0.0, 0.0};
  return n;
}

bool on_one_node(const std::string& folder) {
  if (!std::filesystem::exists(rows_of(folder))) return false;  // --fit says so
  for (const Measurement& m : read_rows(rows_of(folder)))
    if (m.nodes.value_or(1) > 1) return false;
  return true;
}

// The report's fit of the folder's one-node rows on host buffers: the
// first such fabric and dtype (host float32 in a default sweep).
NodeMemory fitted_node(const std::string& folder, std::optional<double> node_GBps) {
  const std::vector<Measurement> rows = read_rows(rows_of(folder));
  std::optional<std::pair<std::string, std::string>> data;
  for (const Measurement& m : rows)
    if (m.on_one_node_memory() && !data) data = {m.fabric(), m.dtype};
  if (!data)
    throw UsageError("--fit " + folder +
                     ": no hand-written all-reduce rows on one node on host buffers with memory "
                     "columns (a sweep of this version's allreduce writes them)");
  const auto fits = formulas_fits(rows, read_machine(folder));
  const auto it = fits.find(*data);
  const std::string large = human_bytes(kLargeMessage_B);
  if (it == fits.end() || it->second.n < 3 || it->second.at(1) <= 0)
    throw UsageError(
        fmt::format("--fit {}: too few hand-written all-reduce rows of {} or more "
                    "on one node to fit (3 at least)",
                    folder, large));
  const std::string label = std::filesystem::weakly_canonical(folder).filename().string();
  NodeMemory n{"fit:" + label,
               fmt::format("fitted to {}: {} {}, its {} hand-written all-reduce rows of {} or "
                           "more with a core a rank; R^2 {:.3f}, leave-one-out error {:.0f}% "
                           "median, {:.0f}% at most",
                           rows_of(folder), data->first, data->second, it->second.n, large,
                           it->second.r2, it->second.loo_median * 100, it->second.loo_max * 100),
               it->second};
  n.fit.coef.resize(kTierKey + 1, 0.0);
  if (node_GBps) {
    n.fit.coef[2] = 1e-3 / *node_GBps;
    n.what += fmt::format("; the node's {:g} GB/s given on the command line", *node_GBps);
  }
  return n;
}

std::string describe(const NodeMemory& n) {
  const Fit& f = n.fit;
  const std::string tier = f.tier_from_B
                               ? fmt::format(" ({} from {} on)", rate(f.at(1) + f.at(kTierKey)),
                                             human_bytes(uint64_t(*f.tier_from_B)))
                               : "";
  return fmt::format("{}: alpha {:.3g} us, a rank's bytes moved at {}{}, the node's at {} ({})",
                     n.name, f.at(0), rate(f.at(1)), tier, rate(f.at(2)), n.what);
}

// Bytes as elements of one byte: the chunks of every schedule are then
// those of N bytes, and the eager limit is met where the runs met it.
NodeLoad node_load(const CollectiveAlgorithm& a, int P, size_t N_B) {
  static const auto allreduce = make_operation("allreduce");
  const JobShape shape{P, N_B, 1, 0};
  const Traffic t = a.model(shape);
  const MemoryLoad load = memory_load(t, own_copied_B(*allreduce, a, shape, false));
  return {double(t.steps), double(load.rank_B), double(load.node_B)};
}

double node_time_us(const NodeMemory& n, const NodeLoad& load, size_t N_B) {
  return n.fit.predict({load.steps, load.rank_B, load.node_B, double(N_B)});
}

}  // namespace commlab
