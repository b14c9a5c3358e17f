#include "predicted.hpp"

#include <limits>

namespace commlab {

Predicted predict(const CollectiveAlgorithm& algo, const CostModel& cost, const JobShape& shape) {
  Traffic model = algo.model(shape);
  const double us = cost.predict_us(model);
  return {std::move(model), us};
}

std::vector<Predicted> predict(const Operation& op, const CostModel& cost, const JobShape& shape) {
  std::vector<Predicted> all;
  for (const CollectiveAlgorithm& a : op.algorithms) all.push_back(predict(a, cost, shape));
  return all;
}

size_t fastest(const Operation& op, const std::vector<Predicted>& predicted, bool maps_peers) {
  size_t best = 0;
  double best_us = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < predicted.size(); ++i)
    if ((maps_peers || !op.algorithms[i].reads_peers) && predicted[i].us < best_us)
      best = i, best_us = predicted[i].us;
  return best;
}

}  // namespace commlab
