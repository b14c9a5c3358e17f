#include "common.hpp"

#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>

#include "core/comm/topology.hpp"
#include "lab/grader/judge.hpp"

namespace commlab::lab {

UsageError bad(const Question& q, const std::string& what) {
  return UsageError(fmt::format("question {}: {}", q.id, what));
}

int64_t need_within(const Question& q, const char* key, int64_t lo, int64_t hi,
                    std::optional<int64_t> otherwise) {
  const int64_t v = otherwise && !q.spec.contains(key) ? *otherwise : need<int64_t>(q, key);
  if (v < lo || v > hi) throw bad(q, fmt::format("'{}' must be from {} to {}", key, lo, hi));
  return v;
}
double need_positive(const Question& q, const char* key, bool zero_allowed) {
  const double v = need<double>(q, key);
  if (!std::isfinite(v) || v < 0 || (!zero_allowed && v == 0))
    throw bad(q, fmt::format("'{}' must be a finite number {} 0", key, zero_allowed ? ">=" : ">"));
  return v;
}

const Operation& operation(const Question& q) {
  static std::map<std::string, std::unique_ptr<Operation>> made;
  const std::string name = optional<std::string>(q, "operation", "allreduce");
  auto& op = made[name];
  if (!op) op = make_operation(name);
  return *op;
}
const CollectiveAlgorithm& algorithm(const Question& q, const Operation& op, const char* key) {
  const std::string wanted = need<std::string>(q, key);
  for (const auto& a : op.algorithms)
    if (a.name == wanted) return a;
  throw bad(q, fmt::format("{} has no algorithm '{}'", op.name, wanted));
}

Nodes nodes_of(const Question& q, int P) {
  if (!q.spec.contains("network")) return {};
  Nodes nodes = Nodes::blocks(P, 1);
  try {
    const Topology network = Topology::parse(need<std::string>(q, "network"));
    if (network.nodes() && network.nodes() < P)
      throw bad(q, fmt::format("P = {} needs {} nodes, and {} has {}", P, P, network.describe(),
                               network.nodes()));
    nodes.set_network(network, {});
  } catch (const UsageError& e) {
    throw bad(q, e.what());
  }
  return nodes;
}

InProcessResult run(const Question& q, const char* algo_key, Fill fill, bool trace) {
  const Operation& op = operation(q);
  const int P = int(need_within(q, "P", 1, 64));
  InProcessRun r{op, algorithm(q, op, algo_key), P, size_t(need_within(q, "count", 0, 1 << 22))};
  r.root = int(need_within(q, "root", 0, P - 1, 0));
  r.nodes = nodes_of(q, P);
  r.fill = fill;
  r.trace = trace;
  ThreadWorld world(P);
  InProcessResult result = run_in_process(world, r);
  const std::string wrong = result.verdict(r.algo.model(r.shape()));
  if (!wrong.empty()) throw std::logic_error(r.describe() + ": " + wrong);
  return result;
}

Expected number(double v, std::string unit, const std::string& text) {
  Expected e;
  e.numbers = {v};
  e.unit = std::move(unit);
  e.slips = number_slips(v, e.unit, text);
  return e;
}

std::string ranks_text(const std::vector<int>& ranks) {
  if (ranks.size() > 3 && ranks.back() - ranks.front() + 1 == int(ranks.size()))
    return fmt::format("ranks {} to {}", ranks.front(), ranks.back());
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i)
    s += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  return s;
}

}  // namespace commlab::lab
