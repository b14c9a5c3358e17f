// The three algorithms side by side, with brief.md's formulas as taught.
#include <cmath>

#include "allreduce.hpp"
#include "core/errors.hpp"

namespace commlab {

const std::vector<AllreduceAlgorithm>& allreduce_algorithms() {
  static const std::vector<AllreduceAlgorithm> all{
      {"master_worker", allreduce_master_worker, model_master_worker, "(P-1)*N",
       [](int P, double N) { return (P - 1) * N; }},
      {"ring", allreduce_ring, model_ring, "2*(N/P)*(P-1)",
       [](int P, double N) { return 2 * (N / P) * (P - 1); }},
      {"tree", allreduce_tree, model_tree, "log2(P)*N",
       [](int P, double N) { return std::log2(P) * N; }},
  };
  return all;
}

const AllreduceAlgorithm& find_allreduce(const std::string& name) {
  for (const auto& a : allreduce_algorithms())
    if (a.name == name) return a;
  throw UsageError("unknown all-reduce algorithm '" + name + "'");
}

}  // namespace commlab
